// RUN: dist-opt %s --dist-propagate --dist-partition -split-input-file | FileCheck %s
// A pass in between invalidates the rules dist-propagate keeps for
// dist-partition: computed again, they must give the same program.
// RUN: dist-opt %s --dist-propagate --strip-debuginfo --dist-partition -split-input-file | FileCheck %s

// Tests the Megatron MLP: local weight shards, exactly one all_reduce (after
// the row-parallel matmul), the bias added once after it, and no mask on the
// zero-filled accumulator.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @megatron_mlp
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {}]>}
// CHECK-SAME: %[[W1:[^:]+]]: tensor<16x8xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {mp}]>}
// CHECK-SAME: %[[W2:[^:]+]]: tensor<8x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {}]>})
func.func @megatron_mlp(%x: tensor<8x16xf32>,
    %w1: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
    %w2: tensor<32x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>},
    %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %h0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  // CHECK: %[[H:.+]] = linalg.matmul ins(%[[X]], %[[W1]] : tensor<8x16xf32>, tensor<16x8xf32>) {{.*}} -> tensor<8x8xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%h0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK-NOT: arith.select
  // CHECK: %[[O:.+]] = linalg.matmul ins(%[[H]], %[[W2]] : tensor<8x8xf32>, tensor<8x16xf32>)
  %o = linalg.matmul ins(%h, %w2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%o0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: %[[R:.+]] = dist.all_reduce %[[O]] on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<8x16xf32>
  // CHECK: %[[B:.+]] = arith.addf %[[R]], %{{.*}} : tensor<8x16xf32>
  %ob = arith.addf %o, %b : tensor<8x16xf32>
  // CHECK-NOT: dist.
  // CHECK: return %[[B]]
  return %ob : tensor<8x16xf32>
}

// -----

// Tests data parallelism: one all_reduce for the weight gradient, none on
// activations.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @data_parallel_step
// CHECK-SAME: tensor<4x16xf32>
// CHECK-SAME: tensor<4x4xf32>
func.func @data_parallel_step(
    %x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
    %dy: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
    %w: tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {}]>},
    %lr: f32) -> tensor<16x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  // CHECK: linalg.transpose {{.*}} outs(%{{.*}} : tensor<16x4xf32>)
  %xt = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e : tensor<16x8xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<16x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x4xf32>) -> tensor<16x4xf32>
  // CHECK: %[[DW:.+]] = linalg.matmul {{.*}} -> tensor<16x4xf32>
  %dw = linalg.matmul ins(%xt, %dy : tensor<16x8xf32>, tensor<8x4xf32>) outs(%z : tensor<16x4xf32>) -> tensor<16x4xf32>
  // CHECK: %[[G:.+]] = dist.all_reduce %[[DW]] on @mesh_2 [dp] sum {origin = #dist.origin<partial>} : tensor<16x4xf32>
  // CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[G]] :
  %new = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%w, %dw : tensor<16x4xf32>, tensor<16x4xf32>) outs(%e2 : tensor<16x4xf32>) {
  ^bb0(%wi: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %n = arith.subf %wi, %s : f32
    linalg.yield %n : f32
  } -> tensor<16x4xf32>
  // CHECK-NOT: dist.all_reduce
  // CHECK: return
  return %new : tensor<16x4xf32>
}

// -----

// Tests split -> replicated: an all_gather.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @split_to_replicated
// CHECK-SAME: (%[[X:.+]]: tensor<2x8xf32> {{.*}}) -> (tensor<8x8xf32>
// CHECK: %[[G:.+]] = dist.all_gather %[[X]] on @mesh_4 [mp] dim = 0 {origin = #dist.origin<reshard>} : tensor<2x8xf32> -> tensor<8x8xf32>
// CHECK: return %[[G]]
func.func @split_to_replicated(%x: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>})
    -> (tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {}]>}) {
  return %x : tensor<8x8xf32>
}

// -----

// Tests replicated -> split: a local slice at the rank's offset, no
// communication.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @replicated_to_split
// CHECK-SAME: (%[[X:.+]]: tensor<8x8xf32> {{.*}}) -> (tensor<8x2xf32>
// CHECK: %[[I:.+]] = dist.process_index on @mesh_4 [mp] : index
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[OFF:.+]] = arith.muli %[[I]], %[[C2]] : index
// CHECK: %[[S:.+]] = tensor.extract_slice %[[X]][0, %[[OFF]]] [8, 2] [1, 1] : tensor<8x8xf32> to tensor<8x2xf32>
// CHECK: return %[[S]]
func.func @replicated_to_split(%x: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {}]>})
    -> (tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>}) {
  return %x : tensor<8x8xf32>
}

// -----

// Tests moving a split to another dim: one all_to_all.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @move_split
// CHECK: dist.all_to_all %{{.*}} on @mesh_4 [mp] split_dim = 1 concat_dim = 0 {origin = #dist.origin<reshard>} : tensor<2x8xf32> -> tensor<8x2xf32>
// CHECK-NOT: dist.
// CHECK: return
func.func @move_split(%x: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>})
    -> (tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>}) {
  return %x : tensor<8x8xf32>
}

// -----

// Tests swapping the axes of two dims on a 2-D mesh (upstream's shard gets the
// local shapes wrong): the minor-axis rule allows one all_to_all after a
// gather, then a local slice; every intermediate type is exact.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// CHECK-LABEL: func.func @swap_axes
// CHECK-SAME: tensor<4x2xf32>
// CHECK-SAME: -> (tensor<2x4xf32>
// CHECK: %[[G:.+]] = dist.all_gather %{{.*}} on @mesh_2x4 [dp] dim = 0 {origin = #dist.origin<reshard>} : tensor<4x2xf32> -> tensor<8x2xf32>
// CHECK: %[[T:.+]] = dist.all_to_all %[[G]] on @mesh_2x4 [mp] split_dim = 0 concat_dim = 1 {origin = #dist.origin<reshard>} : tensor<8x2xf32> -> tensor<2x8xf32>
// CHECK: tensor.extract_slice %[[T]]{{.*}} : tensor<2x8xf32> to tensor<2x4xf32>
func.func @swap_axes(%x: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {mp}]>})
    -> (tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{mp}, {dp}]>}) {
  return %x : tensor<8x8xf32>
}

// -----

// Tests a dim split over two axes, then one of them moved to the other dim
// (upstream's shard gets this wrong too): one all_to_all of the minor axis.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// CHECK-LABEL: func.func @multi_axis_move
// CHECK-SAME: tensor<1x8xf32>
// CHECK: dist.all_to_all %{{.*}} on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 {origin = #dist.origin<reshard>} : tensor<1x8xf32> -> tensor<4x2xf32>
// CHECK-NOT: dist.
// CHECK: return
func.func @multi_axis_move(%x: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp, mp}, {}]>})
    -> (tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {mp}]>}) {
  return %x : tensor<8x8xf32>
}

// -----

// Tests partial -> split: a reduce_scatter, never all_reduce + slice.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @partial_to_split
// CHECK: %[[M:.+]] = linalg.matmul {{.*}} -> tensor<8x8xf32>
// CHECK: %[[R:.+]] = dist.reduce_scatter %[[M]] on @mesh_4 [mp] sum dim = 0 {origin = #dist.origin<partial>} : tensor<8x8xf32> -> tensor<2x8xf32>
// CHECK-NOT: dist.all_reduce
// CHECK: return %[[R]]
func.func @partial_to_split(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
                            %b: tensor<16x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>},
                            %c: tensor<8x8xf32>)
    -> (tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = dist.annotate %r as <@mesh_4, [{mp}, {}]> : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// -----

// Tests that a replicated accumulator of a split contraction is added once:
// ranks other than the group's first hold zeros (a local mask).
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @accumulate_into_replicated
// CHECK-SAME: tensor<8x4xf32>
// CHECK-SAME: tensor<4x8xf32>
// CHECK-SAME: %[[C:arg2]]: tensor<8x8xf32>
// CHECK: %[[I:.+]] = dist.process_index on @mesh_4 [mp] : index
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[I]], %{{.*}} : index
// CHECK: %[[ZEROS:.+]] = arith.constant dense<0.000000e+00> : tensor<8x8xf32>
// CHECK: %[[ACC:.+]] = arith.select %[[FIRST]], %[[C]], %[[ZEROS]] : tensor<8x8xf32>
// CHECK: %[[M:.+]] = linalg.matmul {{.*}} outs(%[[ACC]] : tensor<8x8xf32>)
// CHECK: dist.all_reduce %[[M]] on @mesh_4 [mp] sum
func.func @accumulate_into_replicated(
    %a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
    %b: tensor<16x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>},
    %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Tests the 2-D mesh dp x mp: rows over dp and the hidden dim over mp; the
// forward all_reduce is over mp only.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// CHECK-LABEL: func.func @mesh_2d
// CHECK-SAME: tensor<4x16xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<4x8xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<4x16xf32>
// CHECK: dist.all_reduce %{{.*}} on @mesh_2x4 [mp] sum {origin = #dist.origin<partial>} : tensor<4x16xf32>
// CHECK-NOT: dist.
// CHECK: return
func.func @mesh_2d(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>},
    %w1: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp}]>},
    %w2: tensor<32x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{mp}, {}]>})
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %h0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%h0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = linalg.matmul ins(%h, %w2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%o0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// -----

// Tests a partial max (a split max reduction) reduced with a max all_reduce.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @partial_max
// CHECK: %[[M:.+]] = linalg.generic
// CHECK: dist.all_reduce %[[M]] on @mesh_4 [mp] max {origin = #dist.origin<partial>} : tensor<8xf32>
func.func @partial_max(%x: tensor<8x32xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>}, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x32xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Tests slices, softmax, concat, pad and insert_slice on row-split inputs:
// every op works on its rows, no collective; the full-width slice sizes
// become local.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @tensor_ops_rows
// CHECK-SAME: tensor<2x16xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 4] [2, 8] [1, 1] : tensor<2x16xf32> to tensor<2x8xf32>
// CHECK: linalg.softmax dimension(1) {{.*}} -> tensor<2x8xf32>
// CHECK: tensor.concat dim(1) {{.*}} -> tensor<2x24xf32>
// CHECK: tensor.pad
// CHECK: } : tensor<2x4xf32> to tensor<2x6xf32>
// CHECK: tensor.insert_slice {{.*}}[0, 0] [2, 6] [1, 1] : tensor<2x6xf32> into tensor<2x24xf32>
// CHECK-NOT: dist.
// CHECK: return
func.func @tensor_ops_rows(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}, %y: tensor<8x4xf32>) -> tensor<8x24xf32> {
  %s = tensor.extract_slice %x[0, 4] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %soft = linalg.softmax dimension(1) ins(%s : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = tensor.concat dim(1) %soft, %x : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x24xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %y low[0, 1] high[0, 1] { ^bb0(%i: index, %j: index): tensor.yield %z : f32 } : tensor<8x4xf32> to tensor<8x6xf32>
  %r = tensor.insert_slice %p into %c[0, 0] [8, 6] [1, 1] : tensor<8x6xf32> into tensor<8x24xf32>
  return %r : tensor<8x24xf32>
}

// -----

// Tests that a softmax over a split dim gathers it first (its dim must be
// whole), and re-splits the result locally.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @softmax_over_split_dim
// CHECK: %[[G:.+]] = dist.all_gather %{{.*}} on @mesh_4 [mp] dim = 1 {origin = #dist.origin<reshard>} : tensor<8x4xf32> -> tensor<8x16xf32>
// CHECK: %[[S:.+]] = linalg.softmax dimension(1) ins(%[[G]] : tensor<8x16xf32>)
// CHECK: tensor.extract_slice %[[S]]{{.*}} : tensor<8x16xf32> to tensor<8x4xf32>
func.func @softmax_over_split_dim(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>})
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>}) {
  %e = tensor.empty() : tensor<8x16xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// -----

// Tests an attention block: QKV column-parallel (heads split over mp), the
// scores, softmax and context per head, the output projection row-parallel.
// Exactly one all_reduce, after the output projection.
dist.mesh @mesh_4 [mp = 4]
#x_bse = affine_map<(b, s, h, d, e) -> (b, s, e)>
#w_ehd = affine_map<(b, s, h, d, e) -> (e, h, d)>
#o_bshd = affine_map<(b, s, h, d, e) -> (b, s, h, d)>
#q_bshd = affine_map<(b, h, s, t, d) -> (b, s, h, d)>
#k_bthd = affine_map<(b, h, s, t, d) -> (b, t, h, d)>
#o_bhst = affine_map<(b, h, s, t, d) -> (b, h, s, t)>
#p_bhst = affine_map<(b, s, h, d, t) -> (b, h, s, t)>
#v_bthd = affine_map<(b, s, h, d, t) -> (b, t, h, d)>
#c_bshd = affine_map<(b, s, h, d, t) -> (b, s, h, d)>
#ctx = affine_map<(b, s, e, h, d) -> (b, s, h, d)>
#wo = affine_map<(b, s, e, h, d) -> (h, d, e)>
#out = affine_map<(b, s, e, h, d) -> (b, s, e)>
// CHECK-LABEL: func.func @attention
// CHECK-SAME: tensor<8x1x2xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {mp}, {}]>}
// CHECK-SAME: tensor<1x2x8xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}, {}, {}]>}
// CHECK: linalg.softmax dimension(3) {{.*}} -> tensor<2x1x4x4xf32>
// CHECK: } -> tensor<2x4x8xf32>
// CHECK: %[[R:.+]] = dist.all_reduce %{{.*}} on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<2x4x8xf32>
// CHECK-NOT: dist.
// CHECK: return %[[R]]
func.func @attention(%x: tensor<2x4x8xf32>,
    %wq: tensor<8x4x2xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}, {}]>},
    %wk: tensor<8x4x2xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}, {}]>},
    %wv: tensor<8x4x2xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}, {}]>},
    %wo: tensor<4x2x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}, {}]>}) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e_bshd = tensor.empty() : tensor<2x4x4x2xf32>
  %z_bshd = linalg.fill ins(%zero : f32) outs(%e_bshd : tensor<2x4x4x2xf32>) -> tensor<2x4x4x2xf32>
  %q = linalg.generic {indexing_maps = [#x_bse, #w_ehd, #o_bshd], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wq : tensor<2x4x8xf32>, tensor<8x4x2xf32>) outs(%z_bshd : tensor<2x4x4x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x4x2xf32>
  %k = linalg.generic {indexing_maps = [#x_bse, #w_ehd, #o_bshd], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wk : tensor<2x4x8xf32>, tensor<8x4x2xf32>) outs(%z_bshd : tensor<2x4x4x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x4x2xf32>
  %v = linalg.generic {indexing_maps = [#x_bse, #w_ehd, #o_bshd], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wv : tensor<2x4x8xf32>, tensor<8x4x2xf32>) outs(%z_bshd : tensor<2x4x4x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x4x2xf32>
  %e_bhst = tensor.empty() : tensor<2x4x4x4xf32>
  %z_bhst = linalg.fill ins(%zero : f32) outs(%e_bhst : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %scores = linalg.generic {indexing_maps = [#q_bshd, #k_bthd, #o_bhst], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x4x2xf32>, tensor<2x4x4x2xf32>) outs(%z_bhst : tensor<2x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%scores : tensor<2x4x4x4xf32>) outs(%e_bhst : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %ctx = linalg.generic {indexing_maps = [#p_bhst, #v_bthd, #c_bshd], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x4x4x4xf32>, tensor<2x4x4x2xf32>) outs(%z_bshd : tensor<2x4x4x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x4x2xf32>
  %e_bse = tensor.empty() : tensor<2x4x8xf32>
  %z_bse = linalg.fill ins(%zero : f32) outs(%e_bse : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.generic {indexing_maps = [#ctx, #wo, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%ctx, %wo : tensor<2x4x4x2xf32>, tensor<4x2x8xf32>) outs(%z_bse : tensor<2x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Tests layernorm over a hidden dim split over mp: the mean and the variance
// are partial sums, each reduced once (two all_reduces of 8 elements); the
// normalized output stays split.
dist.mesh @mesh_4 [mp = 4]
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @layernorm
// CHECK-SAME: tensor<8x4xf32>
// CHECK: dist.all_reduce %{{.*}} on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<8xf32>
// CHECK: dist.all_reduce %{{.*}} on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<8xf32>
// CHECK-NOT: dist.
// CHECK: return %{{.*}} : tensor<8x4xf32>
func.func @layernorm(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>})
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>}) {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 0.0625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e_r = tensor.empty() : tensor<8xf32>
  %z_r = linalg.fill ins(%zero : f32) outs(%e_r : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%z_r : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %centered = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<8x16xf32>, tensor<8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %mean = arith.mulf %s, %inv_n : f32
    %c = arith.subf %a, %mean : f32
    linalg.yield %c : f32
  } -> tensor<8x16xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%centered : tensor<8x16xf32>) outs(%z_r : tensor<8xf32>) {
  ^bb0(%c: f32, %acc: f32):
    %m = arith.mulf %c, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%centered, %sq : tensor<8x16xf32>, tensor<8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%c: f32, %v: f32, %o: f32):
    %var = arith.mulf %v, %inv_n : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    %n = arith.mulf %c, %r : f32
    linalg.yield %n : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// Tests that the partitioner reproduces the recorded layouts instead of
// extending them: operands split on different factors by the same axis cost
// one all_gather, not a chain of all_to_alls.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @no_extension
// CHECK: dist.all_gather
// CHECK-NOT: dist.all_to_all
// CHECK-NOT: dist.all_gather
// CHECK: return
func.func @no_extension(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
                        %b: tensor<16x8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {dp}]>})
    -> (tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Tests that an operand the op only overwrites (an unread `outs`) laid out
// differently is replaced by a local tensor.empty, not moved.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @init_only_outs
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x8xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<8x2xf32>) outs(%[[E]] : tensor<2x8xf32>)
// CHECK-NOT: dist.
// CHECK: return
func.func @init_only_outs(%x: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
                          %out: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>})
    -> (tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) {
  %t = linalg.transpose ins(%x : tensor<8x8xf32>) outs(%out : tensor<8x8xf32>) permutation = [1, 0]
  return %t : tensor<8x8xf32>
}

// -----

// Tests reshapes: the hidden dim split over mp becomes the heads dim of the
// expanded tensor (local output shape rebuilt); collapsing heads back into
// rows can keep only the major dim's split, so mp is gathered first.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// CHECK-LABEL: func.func @heads
// CHECK-SAME: tensor<4x8xf32>
// CHECK-SAME: -> (tensor<128xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [4, 1, 8] : tensor<4x8xf32> into tensor<4x1x8xf32>
// CHECK: %[[G:.+]] = dist.all_gather %{{.*}} on @mesh_2x4 [mp] dim = 1 {origin = #dist.origin<reshard>} : tensor<4x1x8xf32> -> tensor<4x4x8xf32>
// CHECK: tensor.collapse_shape %[[G]] {{\[}}[0, 1, 2]] : tensor<4x4x8xf32> into tensor<128xf32>
func.func @heads(%x: tensor<8x32xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {mp}]>}) -> tensor<256xf32> {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [8, 4, 8] : tensor<8x32xf32> into tensor<8x4x8xf32>
  %t = math.exp %e : tensor<8x4x8xf32>
  %c = tensor.collapse_shape %t [[0, 1, 2]] : tensor<8x4x8xf32> into tensor<256xf32>
  return %c : tensor<256xf32>
}

// -----

// Tests gradient accumulation over micro-batches: the per-micro-batch
// weight gradient is a partial sum over dp, the loop carries the partial
// accumulator (its zero init needs no mask), and the one all_reduce happens
// after the loop.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @accumulate_micro_batches
// CHECK-SAME: tensor<4x4x16xf32>
// CHECK: %[[INIT:.+]] = linalg.fill
// CHECK-NOT: dist.
// CHECK: %[[LOOP:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (tensor<16x4xf32>)
// CHECK: tensor.extract_slice %{{.*}} : tensor<4x4x16xf32> to tensor<4x16xf32>
// CHECK: %[[G:.+]] = linalg.matmul
// CHECK: %[[NEXT:.+]] = arith.addf %[[ACC]], %[[G]] : tensor<16x4xf32>
// CHECK-NOT: dist.
// CHECK: scf.yield %[[NEXT]]
// CHECK: %[[R:.+]] = dist.all_reduce %[[LOOP]] on @mesh_2 [dp] sum {origin = #dist.origin<partial>} : tensor<16x4xf32>
// CHECK: return %[[R]]
func.func @accumulate_micro_batches(
    %xs: tensor<4x8x16xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {dp}, {}]>},
    %dys: tensor<4x8x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {dp}, {}]>}) -> tensor<16x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<16x4xf32>) -> tensor<16x4xf32>
  %grad = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %acc0) -> tensor<16x4xf32> {
    %x = tensor.extract_slice %xs[%i, 0, 0] [1, 8, 16] [1, 1, 1] : tensor<4x8x16xf32> to tensor<8x16xf32>
    %dy = tensor.extract_slice %dys[%i, 0, 0] [1, 8, 4] [1, 1, 1] : tensor<4x8x4xf32> to tensor<8x4xf32>
    %et = tensor.empty() : tensor<16x8xf32>
    %xt = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%et : tensor<16x8xf32>) permutation = [1, 0]
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x4xf32>) -> tensor<16x4xf32>
    %g = linalg.matmul ins(%xt, %dy : tensor<16x8xf32>, tensor<8x4xf32>) outs(%z : tensor<16x4xf32>) -> tensor<16x4xf32>
    %next = arith.addf %acc, %g : tensor<16x4xf32>
    scf.yield %next : tensor<16x4xf32>
  }
  return %grad : tensor<16x4xf32>
}

// -----

// Tests that a tensor captured by a body (an embedding table read with
// tensor.extract) is whole inside it: the body indexes it globally.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @captured_table
// CHECK-SAME: %[[TABLE:[^:]+]]: tensor<16x16xf32>
// CHECK: %[[WHOLE:.+]] = dist.all_gather %[[TABLE]] on @mesh_4 [mp] dim = 0 {origin = #dist.origin<reshard>} : tensor<16x16xf32> -> tensor<64x16xf32>
// CHECK: linalg.generic
// CHECK: tensor.extract %[[WHOLE]][%{{.*}}, %{{.*}}] : tensor<64x16xf32>
func.func @captured_table(%ids: tensor<8xindex>, %table: tensor<64x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, e) -> (b)>, affine_map<(b, e) -> (b, e)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<8xindex>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%id: index, %o: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%id, %j] : tensor<64x16xf32>
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// Tests vocab-parallel embedding and softmax cross-entropy (Megatron): the
// table and the output weight split over the vocabulary. The one-hot lookup
// compares ids with global vocabulary indices (the local index offset by the
// rank's block), its contraction over the split vocabulary is a partial sum
// (one all_reduce of the 8x16 embedding, cheaper than gathering a weight);
// the logits stay split; the max is a partial max and the exp-sum and the
// target logit partial sums, each reduced once over 8 elements.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @vocab_parallel
// CHECK-SAME: tensor<16x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}, {}]>}
// CHECK-SAME: tensor<16x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {mp}]>}
// CHECK: %[[BLOCK:.+]] = dist.process_index on @mesh_4 [mp] : index
// CHECK: %[[C16:.+]] = arith.constant 16 : index
// CHECK: %[[OFF:.+]] = arith.muli %[[BLOCK]], %[[C16]] : index
// CHECK: %[[IDX:.+]] = linalg.index 1 : index
// CHECK: arith.addi %[[IDX]], %[[OFF]] : index
// CHECK: %[[EMB:.+]] = linalg.matmul {{.*}} -> tensor<8x16xf32>
// CHECK: %[[EMB_R:.+]] = dist.all_reduce %[[EMB]] on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<8x16xf32>
// CHECK: linalg.matmul ins(%[[EMB_R]], %{{.*}} : tensor<8x16xf32>, tensor<16x16xf32>) {{.*}} -> tensor<8x16xf32>
// CHECK: dist.all_reduce %{{.*}} on @mesh_4 [mp] max {origin = #dist.origin<partial>} : tensor<8xf32>
// CHECK: dist.all_reduce %{{.*}} on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<8xf32>
// CHECK: dist.all_reduce %{{.*}} on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<8xf32>
// CHECK-NOT: dist.all_
// CHECK-NOT: dist.all_gather
// CHECK: return
#bv = affine_map<(b, v) -> (b, v)>
#b = affine_map<(b, v) -> (b)>
func.func @vocab_parallel(%ids: tensor<8xindex>, %labels: tensor<8xindex>,
    %table: tensor<64x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>},
    %w_out: tensor<16x64xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>}) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e_bv = tensor.empty() : tensor<8x64xf32>
  // Embedding lookup as one-hot(ids) @ table.
  %onehot = linalg.generic {indexing_maps = [#b, #bv], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<8xindex>) outs(%e_bv : tensor<8x64xf32>) {
  ^bb0(%id: index, %o: f32):
    %v = linalg.index 1 : index
    %eq = arith.cmpi eq, %id, %v : index
    %x = arith.select %eq, %one, %zero : f32
    linalg.yield %x : f32
  } -> tensor<8x64xf32>
  %e_be = tensor.empty() : tensor<8x16xf32>
  %z_be = linalg.fill ins(%zero : f32) outs(%e_be : tensor<8x16xf32>) -> tensor<8x16xf32>
  %emb = linalg.matmul ins(%onehot, %table : tensor<8x64xf32>, tensor<64x16xf32>) outs(%z_be : tensor<8x16xf32>) -> tensor<8x16xf32>
  // Logits over the vocabulary.
  %z_bv = linalg.fill ins(%zero : f32) outs(%e_bv : tensor<8x64xf32>) -> tensor<8x64xf32>
  %logits = linalg.matmul ins(%emb, %w_out : tensor<8x16xf32>, tensor<16x64xf32>) outs(%z_bv : tensor<8x64xf32>) -> tensor<8x64xf32>
  // Softmax cross-entropy: loss_b = logsumexp(logits_b) - logits_b[label_b].
  %e_b = tensor.empty() : tensor<8xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_b : tensor<8xf32>) -> tensor<8xf32>
  %max = linalg.generic {indexing_maps = [#bv, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<8x64xf32>) outs(%m0 : tensor<8xf32>) {
  ^bb0(%l: f32, %acc: f32):
    %m = arith.maximumf %l, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e_b : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#bv, #b, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits, %max : tensor<8x64xf32>, tensor<8xf32>) outs(%s0 : tensor<8xf32>) {
  ^bb0(%l: f32, %m: f32, %acc: f32):
    %d = arith.subf %l, %m : f32
    %x = math.exp %d : f32
    %a = arith.addf %acc, %x : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %t0 = linalg.fill ins(%zero : f32) outs(%e_b : tensor<8xf32>) -> tensor<8xf32>
  %target = linalg.generic {indexing_maps = [#bv, #b, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits, %labels : tensor<8x64xf32>, tensor<8xindex>) outs(%t0 : tensor<8xf32>) {
  ^bb0(%l: f32, %lab: index, %acc: f32):
    %v = linalg.index 1 : index
    %eq = arith.cmpi eq, %lab, %v : index
    %x = arith.select %eq, %l, %zero : f32
    %a = arith.addf %acc, %x : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %loss = linalg.generic {indexing_maps = [affine_map<(b) -> (b)>, affine_map<(b) -> (b)>, affine_map<(b) -> (b)>, affine_map<(b) -> (b)>], iterator_types = ["parallel"]}
      ins(%sum, %max, %target : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e_b : tensor<8xf32>) {
  ^bb0(%s: f32, %m: f32, %t: f32, %o: f32):
    %lg = math.log %s : f32
    %lse = arith.addf %lg, %m : f32
    %r = arith.subf %lse, %t : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %loss : tensor<8xf32>
}

// -----

// Tests a branch: both regions compute on the local rows, the result keeps
// the layout both yield; a branch yielding a partial value makes the result
// partial, and the other branch's value is masked (zero on all but the
// group's first rank) so the one all_reduce after the branch is right.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @branch
// CHECK: %[[R:.+]] = scf.if %{{.*}} -> (tensor<2x16xf32>) {
// CHECK: arith.addf {{.*}} : tensor<2x16xf32>
// CHECK: } else {
// CHECK: math.exp {{.*}} : tensor<2x16xf32>
// CHECK: }
// CHECK-NOT: dist.
// CHECK: return %[[R]]
func.func @branch(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}, %c: i1)
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) {
  %r = scf.if %c -> tensor<8x16xf32> {
    %n = arith.addf %x, %x : tensor<8x16xf32>
    scf.yield %n : tensor<8x16xf32>
  } else {
    %e = math.exp %x : tensor<8x16xf32>
    scf.yield %e : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// -----

dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @branch_partial
// CHECK: %[[R:.+]] = scf.if %{{.*}} -> (tensor<8x8xf32>) {
// CHECK: %[[M:.+]] = linalg.matmul
// CHECK: scf.yield %[[M]]
// CHECK: } else {
// CHECK: dist.process_index on @mesh_4 [mp]
// CHECK: %[[MASKED:.+]] = arith.select
// CHECK: scf.yield %[[MASKED]]
// CHECK: }
// CHECK: %[[S:.+]] = dist.all_reduce %[[R]] on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<8x8xf32>
// CHECK: return %[[S]]
func.func @branch_partial(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
                          %b: tensor<16x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>},
                          %y: tensor<8x8xf32>, %c: i1) -> tensor<8x8xf32> {
  %r = scf.if %c -> tensor<8x8xf32> {
    %zero = arith.constant 0.0 : f32
    %z = linalg.fill ins(%zero : f32) outs(%y : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %m : tensor<8x8xf32>
  } else {
    scf.yield %y : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

// Tests a loop that yields a nonlinear function of its accumulated sum: the
// sum is needed whole in every iteration, so each iteration adds the partial
// product to the masked accumulator and reduces once (one all_reduce and one
// mask per iteration, nothing after the loop).
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @loop_nonlinear_yield
// CHECK: scf.for
// CHECK: %[[MASKED:.+]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x4xf32>
// CHECK: %[[SUM:.+]] = arith.addf %[[MASKED]], %{{.*}} : tensor<8x4xf32>
// CHECK: %[[R:.+]] = dist.all_reduce %[[SUM]] on @mesh_2 [dp] sum {origin = #dist.origin<partial>} : tensor<8x4xf32>
// CHECK: math.exp %[[R]]
// CHECK-NOT: dist.all_reduce
// CHECK: return
func.func @loop_nonlinear_yield(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {dp}]>},
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
    %x = math.exp %n : tensor<8x4xf32>
    scf.yield %x : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

// Tests a loop that carries nothing: its body is partitioned like any other,
// and it ends with one (empty, so unprinted) yield.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @loop_without_results
// CHECK: scf.for
// CHECK-NEXT: math.exp %{{.*}} : tensor<4xf32>
// CHECK-NEXT: }
func.func @loop_without_results(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %y = math.exp %x : tensor<8xf32>
  }
  return
}

// -----

// Tests empty dims: a split dim of size 0 stays 0 on every rank, and a matmul
// over an empty contraction dim keeps its rows split.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @empty_dims
// CHECK: math.exp %{{.*}} : tensor<0x8xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x0xf32>, tensor<0x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
func.func @empty_dims(%x: tensor<0x8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
                      %a: tensor<8x0xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
                      %b: tensor<0x4xf32>, %c: tensor<8x4xf32>) -> (tensor<0x8xf32>, tensor<8x4xf32>) {
  %y = math.exp %x : tensor<0x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x0xf32>, tensor<0x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y, %r : tensor<0x8xf32>, tensor<8x4xf32>
}

// -----

// Tests that tensor.empty splits a static dim next to a dynamic one: the
// dynamic size stays the operand's.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @empty_static_split
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: tensor.empty(%[[N]]) : tensor<?x4xf32>
func.func @empty_static_split(%n: index) -> (tensor<?x8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {dp}]>}) {
  %e = tensor.empty(%n) : tensor<?x8xf32>
  return %e : tensor<?x8xf32>
}

// -----

// Tests a declaration with boundary shardings: its signature takes the local
// types (its definition elsewhere is a per-rank function), and the call
// passes local values.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func private @external(tensor<4xf32> {dist.partitioned_as = #dist.sharding<@mesh_2, [{dp}]>}) -> (tensor<4xf32> {dist.partitioned_as = #dist.sharding<@mesh_2, [{dp}]>})
// CHECK-LABEL: func.func @calls_external
// CHECK: call @external(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
func.func private @external(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>}) -> (tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>})
func.func @calls_external(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = func.call @external(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Tests calls with one layout per callee: the call site passes operands as
// the callee's arguments are laid out and gets its results as the callee's
// results are; the caller's unannotated arguments take the callee's layouts,
// so nothing moves.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @layer
// CHECK-SAME: tensor<16x8xf32>
// CHECK-SAME: -> (tensor<8x8xf32>
func.func @layer(%x: tensor<8x16xf32>, %w: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>}) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %a = dist.annotate %r as <@mesh_4, [{}, {mp}]> : tensor<8x32xf32>
  return %a : tensor<8x32xf32>
}
// CHECK-LABEL: func.func @model
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x16xf32>
// CHECK-SAME: %[[W:[^:]+]]: tensor<16x8xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {mp}]>}
// CHECK: %[[R:.+]] = call @layer(%[[X]], %[[W]]) : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
// CHECK: math.exp %[[R]] : tensor<8x8xf32>
// CHECK-NOT: dist.
// CHECK: return
func.func @model(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %r = func.call @layer(%x, %w) : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %e = math.exp %r : tensor<8x32xf32>
  return %e : tensor<8x32xf32>
}

// -----

// Tests that a call site reshards to the callee's layouts: the caller holds
// its argument split by rows, the callee wants it whole.
dist.mesh @mesh_4 [mp = 4]
func.func @whole(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {}]>}) -> tensor<8x16xf32> {
  %e = math.exp %x : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}
// CHECK-LABEL: func.func @rows
// CHECK: %[[G:.+]] = dist.all_gather %{{.*}} on @mesh_4 [mp] dim = 0 {origin = #dist.origin<reshard>} : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK: call @whole(%[[G]]) : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @rows(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) -> tensor<8x16xf32> {
  %r = func.call @whole(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// Tests a vocabulary-parallel embedding written as tensor.gather: each rank
// looks up the ids in its block of rows (shifted to local rows, the others
// clamped and zeroed), and the partial sum is reduced once; the table is
// never gathered.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @gather_embedding
// CHECK-SAME: %[[IDS:[^:]+]]: tensor<8x1xindex>
// CHECK-SAME: %[[TABLE:[^:]+]]: tensor<16x16xf32>
// CHECK: %[[BLOCK:.+]] = dist.process_index on @mesh_4 [mp] : index
// CHECK: %[[OFF:.+]] = arith.muli %[[BLOCK]], %{{.*}} : index
// CHECK: %[[SPLAT:.+]] = tensor.splat %[[OFF]] : tensor<8x1xindex>
// CHECK: %[[LOCAL:.+]] = arith.subi %[[IDS]], %[[SPLAT]] : tensor<8x1xindex>
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[LOCAL]], %{{.*}} : tensor<8x1xindex>
// CHECK: %[[SAFE:.+]] = arith.select %[[IN]], %[[LOCAL]], %{{.*}} : tensor<8x1xi1>, tensor<8x1xindex>
// CHECK: %[[ROWS:.+]] = tensor.gather %[[TABLE]][%[[SAFE]]] gather_dims([0]) : (tensor<16x16xf32>, tensor<8x1xindex>) -> tensor<8x16xf32>
// CHECK: %[[MASKED:.+]] = linalg.generic {{.*}} ins(%[[ROWS]], %[[IN]] : tensor<8x16xf32>, tensor<8x1xi1>)
// CHECK: dist.all_reduce %[[MASKED]] on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<8x16xf32>
// CHECK-NOT: dist.all_gather
func.func @gather_embedding(%ids: tensor<8x1xindex>, %table: tensor<64x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) -> tensor<8x16xf32> {
  %rows = tensor.gather %table[%ids] gather_dims([0]) : (tensor<64x16xf32>, tensor<8x1xindex>) -> tensor<8x16xf32>
  return %rows : tensor<8x16xf32>
}

// -----

// Tests that a square is not linear in its input: a partial input is reduced
// before it is squared ((a1 + a2)^2, not a1^2 + a2^2).
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @square
// CHECK: %[[R:.+]] = dist.all_reduce %{{.*}} on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<8x8xf32>
// CHECK: linalg.square ins(%[[R]] : tensor<8x8xf32>)
// CHECK-NOT: dist.all_reduce
func.func @square(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
                  %b: tensor<16x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %sq = linalg.square ins(%p : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %sq : tensor<8x8xf32>
}

// -----

// Tests that a partial input the body does not read does not make the
// result partial: the result is %c, never reduced (the unread input's
// reduction is dead code that the pipeline's cleanup removes).
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @unused_partial_input
// CHECK-SAME: %[[C:arg2]]: tensor<8x8xf32>
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[C]], %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>)
// CHECK-NOT: dist.all_reduce
// CHECK: return %[[R]]
func.func @unused_partial_input(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
                  %b: tensor<16x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>},
                  %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%c, %p : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Tests that a gather is not linear in its indices: partial indices are
// reduced before the lookup.
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @partial_indices
// CHECK: %[[IDS:.+]] = dist.all_reduce %{{.*}} on @mesh_4 [mp] sum {origin = #dist.origin<partial>} : tensor<8x1xindex>
// CHECK: tensor.gather %{{.*}}[%[[IDS]]]
// CHECK-NOT: dist.all_reduce
func.func @partial_indices(%a: tensor<8x16xindex> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}]>},
                %table: tensor<64x16xf32>) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<8x1xindex>
  %z = linalg.fill ins(%c0 : index) outs(%e : tensor<8x1xindex>) -> tensor<8x1xindex>
  %ids = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a : tensor<8x16xindex>) outs(%z : tensor<8x1xindex>) {
  ^bb0(%x: index, %o: index):
    %s = arith.addi %o, %x : index
    linalg.yield %s : index
  } -> tensor<8x1xindex>
  %g = tensor.gather %table[%ids] gather_dims([0]) unique : (tensor<64x16xf32>, tensor<8x1xindex>) -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

// Tests that the masked gather of a split table is no longer `unique` (the
// clamped indices repeat).
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @unique_gather
// CHECK: tensor.gather %{{.*}} gather_dims([0]) : (tensor<16x16xf32>
// CHECK-NOT: unique
// CHECK: dist.all_reduce
func.func @unique_gather(%ids: tensor<8x1xindex>, %table: tensor<64x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) -> tensor<8x16xf32> {
  %g = tensor.gather %table[%ids] gather_dims([0]) unique : (tensor<64x16xf32>, tensor<8x1xindex>) -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

// Tests that a pad whose body reads the index of a dim keeps that dim whole
// (it computes with global indices).
dist.mesh @mesh_4 [mp = 4]
// CHECK-LABEL: func.func @pad_reads_index
// CHECK: %[[G:.+]] = dist.all_gather %{{.*}} on @mesh_4 [mp] dim = 0 {origin = #dist.origin<reshard>} : tensor<2x4xf32> -> tensor<8x4xf32>
// CHECK: tensor.pad %[[G]]
func.func @pad_reads_index(%x: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) -> (tensor<8x6xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) {
  %p = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    tensor.yield %f : f32
  } : tensor<8x4xf32> to tensor<8x6xf32>
  return %p : tensor<8x6xf32>
}

// -----

// Tests that roles survive partitioning and reach the collectives: the
// gradient reduction takes the role of the backward matmul that left its
// operand partial, and the rebuilt ops keep theirs.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @roles
// CHECK: %[[DW:.+]] = linalg.matmul {dist.role = #dist.role<backward>}
// CHECK: dist.all_reduce %[[DW]] on @mesh_2 [dp] sum {dist.role = #dist.role<backward>, origin = #dist.origin<partial>} : tensor<16x4xf32>
// CHECK: linalg.generic {{.*}} attrs = {dist.role = #dist.role<optimizer>}
func.func @roles(
    %xt: tensor<16x8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {dp}]>},
    %dy: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
    %w: tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {}]>}) -> tensor<16x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x4xf32>) -> tensor<16x4xf32>
  %dw = linalg.matmul {dist.role = #dist.role<backward>} ins(%xt, %dy : tensor<16x8xf32>, tensor<8x4xf32>) outs(%z : tensor<16x4xf32>) -> tensor<16x4xf32>
  %new = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%w, %dw : tensor<16x4xf32>, tensor<16x4xf32>) outs(%e2 : tensor<16x4xf32>) attrs = {dist.role = #dist.role<optimizer>} {
  ^bb0(%wi: f32, %g: f32, %out: f32):
    %n = arith.subf %wi, %g : f32
    linalg.yield %n : f32
  } -> tensor<16x4xf32>
  return %new : tensor<16x4xf32>
}


// -----

// Tests an scf.while rewritten in place: the init (not zero) is masked on
// all ranks but the group's first, the loop carries the partial sum on local
// types, and one all_reduce follows the loop.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @while_accumulate
// CHECK-SAME: %[[INIT:[^:]+]]: tensor<8x4xf32> {dist.partitioned_as = #dist.sharding<@mesh_2, [{}, {}]>}
// CHECK: %[[MASKED:.+]] = arith.select %{{.*}}, %[[INIT]], %{{.*}} : tensor<8x4xf32>
// CHECK: %[[LOOP:.+]]:2 = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[MASKED]]) : (index, tensor<8x4xf32>) -> (index, tensor<8x4xf32>)
// CHECK: scf.condition
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x4xf32>)
// CHECK-NOT: dist.
// CHECK: scf.yield
// CHECK: %[[R:.+]] = dist.all_reduce %[[LOOP]]#1 on @mesh_2 [dp] sum {origin = #dist.origin<partial>} : tensor<8x4xf32>
// CHECK: return %[[R]]
func.func @while_accumulate(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {dp}]>},
                            %b: tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
                            %init: tensor<8x4xf32>, %n: index) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %r:2 = scf.while (%i = %c0, %acc = %init) : (index, tensor<8x4xf32>) -> (index, tensor<8x4xf32>) {
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

// Tests an scf.index_switch on local types: every case yields the local
// block, and a case that needs its value reshaped reshards inside the case.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @switch
// CHECK: scf.index_switch %{{.*}} -> tensor<4x4xf32>
// CHECK: case 0 {
// CHECK: math.exp %{{.*}} : tensor<4x4xf32>
// CHECK: default {
// CHECK: tensor.extract_slice %{{.*}} : tensor<8x4xf32> to tensor<4x4xf32>
func.func @switch(%x: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
                  %w: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{}, {}]>},
                  %k: index) -> tensor<8x4xf32> {
  %s = scf.index_switch %k -> tensor<8x4xf32>
  case 0 {
    %y = math.exp %x : tensor<8x4xf32>
    scf.yield %y : tensor<8x4xf32>
  }
  default {
    %y = dist.annotate %w as <@mesh_2, [{}, {}]> : tensor<8x4xf32>
    scf.yield %y : tensor<8x4xf32>
  }
  return %s : tensor<8x4xf32>
}

// -----

// Tests owned layouts (ZeRO in the seeds' style): a partial value annotated
// owned is reduced onto its owner; ops on values of one owner run where they
// are and stay owned (a replicated operand joins for free); a sum of values
// of different owners masks each to a partial sum, reduced once; an owned
// value leaving replicated is broadcast from its owner; an owned result
// stays owned. The owner alone computes the owned values (an scf.if; the
// other ranks hold an empty tensor).
dist.mesh @mesh_4 [dp = 4]
// CHECK-LABEL: func.func @owned
// CHECK-SAME: %[[A:[^:]*]]: tensor<4xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}], owner = 1 {dp}>}
// CHECK-SAME: %[[B:[^:]*]]: tensor<4xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}], owner = 3 {dp}>}
// CHECK-SAME: %[[P:[^:]*]]: tensor<4xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}], partial = sum{dp}>}
// CHECK-SAME: %[[R:[^:]*]]: tensor<4xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}]>}
// CHECK: %[[PO:.*]] = dist.reduce %[[P]] on @mesh_4 [dp] sum root = 1 {{.*}} : tensor<4xf32>
// CHECK: %[[G:.*]] = dist.process_index on @mesh_4 [dp] : index
// CHECK: %[[ISOWNER:.*]] = arith.cmpi eq, %[[G]], %c1
// CHECK: %[[AR:.*]] = scf.if %[[ISOWNER]] -> (tensor<4xf32>) {
// CHECK-NEXT: %[[AP:.*]] = arith.addf %[[A]], %[[PO]] : tensor<4xf32>
// CHECK-NEXT: %[[ARO:.*]] = arith.mulf %[[AP]], %[[R]] : tensor<4xf32>
// CHECK-NEXT: scf.yield %[[ARO]] : tensor<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[EMPTY:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: scf.yield %[[EMPTY]] : tensor<4xf32>
// CHECK: %[[I:.*]] = dist.process_index on @mesh_4 [dp] : index
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[I]], %c1
// CHECK: %[[M1:.*]] = arith.select %[[IS1]], %[[AR]], %{{.*}} : tensor<4xf32>
// CHECK: %[[I3:.*]] = dist.process_index on @mesh_4 [dp] : index
// CHECK: %[[IS3:.*]] = arith.cmpi eq, %[[I3]], %c3
// CHECK: %[[M3:.*]] = arith.select %[[IS3]], %[[B]], %{{.*}} : tensor<4xf32>
// CHECK: %[[S:.*]] = arith.addf %[[M1]], %[[M3]] : tensor<4xf32>
// CHECK: %[[SR:.*]] = dist.all_reduce %[[S]] on @mesh_4 [dp] sum {{.*}} : tensor<4xf32>
// CHECK: %[[E:.*]] = math.exp %[[SR]] : tensor<4xf32>
// CHECK: %[[BC:.*]] = dist.broadcast %[[AR]] on @mesh_4 [dp] root = 1 {{.*}} : tensor<4xf32>
// CHECK: return %[[E]], %[[BC]], %[[AR]]
func.func @owned(%a: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}], owner = 1 {dp}>},
                 %b: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}], owner = 3 {dp}>},
                 %p: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}], partial = sum{dp}>},
                 %r: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}]>})
    -> (tensor<4xf32>, tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}]>},
        tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}], owner = 1 {dp}>}) {
  %po = dist.annotate %p as <@mesh_4, [{}], owner = 1 {dp}> : tensor<4xf32>
  %ap = arith.addf %a, %po : tensor<4xf32>
  %ar = arith.mulf %ap, %r : tensor<4xf32>
  %s = arith.addf %ar, %b : tensor<4xf32>
  %e = math.exp %s : tensor<4xf32>
  return %e, %ar, %ar : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that a scalar read from an owned tensor is read after a broadcast
// from the owner: a scalar carries no owner, and every rank must branch
// alike.
dist.mesh @mesh_4 [dp = 4]
// CHECK-LABEL: func.func @owned_scalar
// CHECK: %[[B:.*]] = dist.broadcast %arg0 on @mesh_4 [dp] root = 2 {{.*}} : tensor<4xi1>
// CHECK: tensor.extract %[[B]]
func.func @owned_scalar(%flags: tensor<4xi1> {dist.sharding = #dist.sharding<@mesh_4, [{}], owner = 2 {dp}>},
                        %x: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}]>}) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %f = tensor.extract %flags[%c0] : tensor<4xi1>
  %r = scf.if %f -> tensor<4xf32> {
    %y = math.exp %x : tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that a splat constant split into padded blocks (10 rows in 4 blocks
// of 3) stays a splat: its padding holds anything, so no tensor.pad, and
// the block is a local constant.
// CHECK-LABEL: func.func @padded_splat
// CHECK-SAME: %[[A:.*]]: tensor<3x8xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<12x8xf32>
// CHECK: %[[B:.*]] = tensor.extract_slice %[[C]]
// CHECK: arith.mulf %[[A]], %[[B]] : tensor<3x8xf32>
dist.mesh @m [x = 4]
func.func @padded_splat(%a: tensor<10x8xf32> {dist.sharding = #dist.sharding<@m, [{x}, {}]>}) -> (tensor<10x8xf32> {dist.sharding = #dist.sharding<@m, [{x}, {}]>}) {
  %c = arith.constant dense<2.0> : tensor<10x8xf32>
  %r = arith.mulf %a, %c : tensor<10x8xf32>
  return %r : tensor<10x8xf32>
}
