// RUN: dist-opt %s --dist-propagate -split-input-file | FileCheck %s

// Tests the Megatron MLP: the first matmul is column-parallel, the second
// row-parallel and partial over mp; the bias add (nonlinear in a partial with
// a replicated operand) needs the reduced value, so it is not partial, and
// the result is replicated.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @megatron_mlp
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {}]>})
func.func @megatron_mlp(%x: tensor<8x16xf32>,
    %w1: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
    %w2: tensor<32x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>},
    %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  // CHECK: tensor.empty() {dist.shardings = [#dist.sharding<@mesh_4, [{}, {mp}]>]}
  %e1 = tensor.empty() : tensor<8x32xf32>
  // CHECK: linalg.fill {dist.shardings = [#dist.sharding<@mesh_4, [{}, {mp}]>]}
  %h0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  // CHECK: linalg.matmul {dist.shardings = [#dist.sharding<@mesh_4, [{}, {mp}]>]}
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%h0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: linalg.matmul {dist.shardings = [#dist.sharding<@mesh_4, [{}, {}], partial = sum{mp}>]}
  %o = linalg.matmul ins(%h, %w2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%o0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: arith.addf {{.*}} {dist.shardings = [#dist.sharding<@mesh_4, [{}, {}]>]}
  %ob = arith.addf %o, %b : tensor<8x16xf32>
  return %ob : tensor<8x16xf32>
}

// -----

// Tests data parallelism forward and backward: activations split by rows,
// weight gradients (a contraction over the split batch) partial over dp, and
// the SGD update, which is not linear in the gradient alone, replicated.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @data_parallel_step
// CHECK-SAME: -> (tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {}]>})
func.func @data_parallel_step(
    %x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
    %dy: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
    %w: tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {}]>},
    %lr: f32) -> tensor<16x4xf32> {
  %zero = arith.constant 0.0 : f32
  // CHECK: linalg.transpose {{.*}} {dist.shardings = [#dist.sharding<@mesh_2, [{}, {dp}]>]}
  %e = tensor.empty() : tensor<16x8xf32>
  %xt = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e : tensor<16x8xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<16x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x4xf32>) -> tensor<16x4xf32>
  // CHECK: linalg.matmul {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
  %dw = linalg.matmul ins(%xt, %dy : tensor<16x8xf32>, tensor<8x4xf32>) outs(%z : tensor<16x4xf32>) -> tensor<16x4xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: dist.shardings = [#dist.sharding<@mesh_2, [{}, {}]>]
  %new = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%w, %dw : tensor<16x4xf32>, tensor<16x4xf32>) outs(%e2 : tensor<16x4xf32>) {
  ^bb0(%wi: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %n = arith.subf %wi, %s : f32
    linalg.yield %n : f32
  } -> tensor<16x4xf32>
  return %new : tensor<16x4xf32>
}

// -----

// Tests that partial values flow through linear ops: the sum of two partial
// gradients and its scaling stay partial, so only one reduction is needed.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @accumulate_partials
func.func @accumulate_partials(
    %a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {dp}]>},
    %b: tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
    %c: tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
    %acc: tensor<8x4xf32>, %scale: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: linalg.matmul {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
  %g1 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  // CHECK: linalg.matmul {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
  %g2 = linalg.matmul ins(%a, %c : tensor<8x16xf32>, tensor<16x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  // CHECK: arith.addf {{.*}} {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
  %sum = arith.addf %g1, %g2 : tensor<8x4xf32>
  // CHECK: arith.mulf {{.*}} {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
  %scaled = arith.mulf %sum, %scale : tensor<8x4xf32>
  // CHECK: math.exp {{.*}} {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}]>]}
  %e = math.exp %scaled : tensor<8x4xf32>
  return %e : tensor<8x4xf32>
}

// -----

// Tests backward propagation from an annotation: the operands of the matmul
// that produces an annotated value get the layout, and the annotation itself
// is kept (the user's constraint).
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// CHECK-LABEL: func.func @backward_from_annotation
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>}
// CHECK-SAME: %{{.*}}: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp}]>}
func.func @backward_from_annotation(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %o: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // CHECK: linalg.matmul {dist.shardings = [#dist.sharding<@mesh_2x4, [{dp}, {mp}]>]}
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%o : tensor<8x32xf32>) -> tensor<8x32xf32>
  // CHECK: dist.annotate %{{.*}} as <@mesh_2x4, [{dp}, {mp}]>
  %a = dist.annotate %y as <@mesh_2x4, [{dp}, {mp}]> : tensor<8x32xf32>
  return %a : tensor<8x32xf32>
}

// -----

// Tests that a user's layout wins over a bigger inferred one, and that an
// axis splits one factor only: both operands want dp, on different factors.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @user_wins
func.func @user_wins(
    %x: tensor<4x8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
    %y: tensor<64x64xf32>, %o: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %yt = dist.annotate %y as <@mesh_2, [{}, {dp}]> : tensor<64x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  // The slice keeps the columns of %yt; the matmul takes the user's rows
  // of %x (the partitioner gathers the slice's columns for it).
  // CHECK: tensor.extract_slice {{.*}} {dist.shardings = [#dist.sharding<@mesh_2, [{}, {dp}]>]}
  %s = tensor.extract_slice %yt[0, 0] [8, 64] [1, 1] : tensor<64x64xf32> to tensor<8x64xf32>
  // CHECK: linalg.matmul {dist.shardings = [#dist.sharding<@mesh_2, [{dp}, {}]>]}
  %r = linalg.matmul ins(%x, %s : tensor<4x8xf32>, tensor<8x64xf32>) outs(%o : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

// Tests that an op on tensors without a rule computes whole tensors: its
// result is replicated and not refined by its users, while the elementwise
// op after it follows the annotation (slicing a replicated value is local).
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @no_rule
func.func @no_rule(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}, %shape: tensor<1xi64>) -> tensor<128xf32> {
  // CHECK: tensor.reshape {{.*}} {dist.shardings = [#dist.sharding<@mesh_4, [{}]>]}
  %s = tensor.reshape %x(%shape) : (tensor<8x16xf32>, tensor<1xi64>) -> tensor<128xf32>
  // CHECK: math.exp {{.*}} {dist.shardings = [#dist.sharding<@mesh_4, [{mp}]>]}
  %r = math.exp %s : tensor<128xf32>
  %a = dist.annotate %r as <@mesh_4, [{mp}]> : tensor<128xf32>
  return %a : tensor<128xf32>
}

// -----

// Tests that a split max reduction leaves a partial max.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @partial_max
func.func @partial_max(%x: tensor<8x32xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>}, %init: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: linalg.generic
  // CHECK-SAME: dist.shardings = [#dist.sharding<@mesh_4, [{}], partial = max{mp}>]
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x32xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Tests that a function without annotations is left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: dist.sharding
// CHECK: return
func.func @untouched(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.exp %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Tests that a loop carries a partial accumulator: the iter arg, the
// accumulation and the loop's result stay partial over dp; only the layout
// (not the partial state) flows back to the init.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @loop_carried_partial
// CHECK: linalg.fill {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}]>]}
// CHECK: scf.for
// CHECK: linalg.matmul {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
// CHECK: arith.addf {{.*}} {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
// CHECK: } {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
func.func @loop_carried_partial(
    %a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {dp}]>},
    %b: tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>}) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %acc0) -> tensor<8x4xf32> {
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
    %g = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
    %n = arith.addf %acc, %g : tensor<8x4xf32>
    scf.yield %n : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

// Tests that a zero accumulator shared (after CSE) by a row-split and a
// column-split matmul is recreated for each: each copy takes its user's
// layout, and no value is moved for it.
// CHECK-LABEL: func.func @shared_accumulator
// CHECK-COUNT-2: tensor.empty() {dist.shardings = [#dist.sharding<@mesh_4, [{mp}, {}]>]}
// CHECK-NEXT: tensor.empty() {dist.shardings = [#dist.sharding<@mesh_4, [{}, {mp}]>]}
// CHECK-NEXT: linalg.fill {{.*}}dist.shardings = [#dist.sharding<@mesh_4, [{}, {mp}]>]
// CHECK-NEXT: linalg.fill {{.*}}dist.shardings = [#dist.sharding<@mesh_4, [{mp}, {}]>]
dist.mesh @mesh_4 [mp = 4]
func.func @shared_accumulator(
    %a: tensor<16x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>},
    %b: tensor<16x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
    %w: tensor<16x16xf32>)
    -> (tensor<16x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>},
        tensor<16x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
        tensor<16x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = linalg.matmul ins(%w, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %x = linalg.exp ins(%a : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r, %c, %x : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// Tests that an scf.while carries a pending reduction: the `after` region
// accumulates a partial matmul, so the loop's state is partial on its
// `before` arguments (recorded in dist.edge_shardings, as no result records
// them), its `after` arguments and its results. The counter has no layout.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @while_accumulate
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: linalg.matmul {dist.shardings = [#dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
// CHECK: arith.addf {{.*}}{dist.shardings = [#dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
// CHECK: attributes {dist.edge_shardings = [unit, #dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>], dist.shardings = [unit, #dist.sharding<@mesh_2, [{}, {}], partial = sum{dp}>]}
func.func @while_accumulate(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {dp}]>},
                            %b: tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
                            %n: index) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r:2 = scf.while (%i = %c0, %acc = %acc0) : (index, tensor<8x4xf32>) -> (index, tensor<8x4xf32>) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %i, %acc : index, tensor<8x4xf32>
  } do {
  ^bb0(%j: index, %cur: tensor<8x4xf32>):
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
    %g = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
    %next = arith.addf %cur, %g : tensor<8x4xf32>
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %next : index, tensor<8x4xf32>
  }
  return %r#1 : tensor<8x4xf32>
}

// -----

// Tests that the cases of an scf.index_switch and its result share a layout.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @switch
// CHECK: scf.index_switch %{{.*}} {dist.shardings = [#dist.sharding<@mesh_2, [{dp}, {}]>]}
// CHECK: math.exp %{{.*}} {dist.shardings = [#dist.sharding<@mesh_2, [{dp}, {}]>]}
// CHECK: tensor.empty() {dist.shardings = [#dist.sharding<@mesh_2, [{dp}, {}]>]}
func.func @switch(%x: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>}, %k: index) -> tensor<8x4xf32> {
  %s = scf.index_switch %k -> tensor<8x4xf32>
  case 0 {
    %y = math.exp %x : tensor<8x4xf32>
    scf.yield %y : tensor<8x4xf32>
  }
  default {
    %y = tensor.empty() : tensor<8x4xf32>
    scf.yield %y : tensor<8x4xf32>
  }
  return %s : tensor<8x4xf32>
}
