// RUN: dist-opt %s --dist-fuse-elementwise | FileCheck %s
// RUN: dist-opt %s --dist-fuse-elementwise=multi-result=true | FileCheck %s --check-prefix=MULTI
// RUN: dist-opt %s --dist-fuse-elementwise=recompute=true | FileCheck %s --check-prefix=RECOMPUTE

// A chain of elementwise ops (add, then a broadcast multiply, then exp) becomes
// one op; exp's result has two users (a reduction, a negation), so it is
// neither fused into them nor computed twice.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @chain(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %c : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  // Used twice: not fused into either user.
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%init : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<4x8xf32>) outs(%zeros : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %u, %sum : tensor<4x8xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @chain
// CHECK: %[[F:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1, %arg2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: math.exp
// CHECK-NEXT: linalg.yield
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[F]] : tensor<4x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[F]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.negf
// CHECK-NOT: linalg.generic
// CHECK: return



// Rounding to a narrow type between the ops stays in the fused body (bf16
// steps compute as before).
#id1 = affine_map<(d0) -> (d0)>
func.func @narrow(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e16 = tensor.empty() : tensor<8xbf16>
  %h = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e16 : tensor<8xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8xbf16>
  %e = tensor.empty() : tensor<8xf32>
  %w = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%h : tensor<8xbf16>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %r = arith.extf %x : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %w : tensor<8xf32>
}
// CHECK-LABEL: func.func @narrow
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT: linalg.generic


// A reduction takes its single-use producer (the squares it sums); a
// contraction takes none, so BLAS still sees its two operands.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @reductions(%a: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> (tensor<4xf32>, tensor<4x2xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%init : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%sq : tensor<4x8xf32>) outs(%zeros : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %neg = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %init2 = tensor.empty() : tensor<4x2xf32>
  %zeros2 = linalg.fill ins(%z : f32) outs(%init2 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %mm = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%neg, %w : tensor<4x8xf32>, tensor<8x2xf32>) outs(%zeros2 : tensor<4x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %o, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x2xf32>
  return %sum, %mm : tensor<4xf32>, tensor<4x2xf32>
}
// CHECK-LABEL: func.func @reductions
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: %[[NEG:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.negf
// CHECK: linalg.generic {{.*}} ins(%[[NEG]], %arg1 : tensor<4x8xf32>, tensor<8x2xf32>)

// multi-result (dist-lower-to-nvvm: every loop nest is a kernel launch):
// Adam's moments (each also a result) fuse into the parameter update, which
// yields them too: one op with three results, each moment computed once.
// In @chain exp's other user (the reduction) comes before the negation, so
// exp stays as it is there.
// MULTI-LABEL: func.func @chain
// MULTI: linalg.generic {{.*}} ins(%arg0, %arg1, %arg2
// MULTI: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// MULTI: arith.negf
// MULTI-LABEL: func.func @adam
// MULTI: %[[F:.*]]:3 = linalg.generic {{.*}} ins(%arg0, %arg2, %arg1, %arg3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
// MULTI-COUNT-1: arith.mulf %{{.*}}, %{{.*}} : f32
// MULTI: math.sqrt
// MULTI: linalg.yield %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32
// MULTI-NOT: linalg.generic
// MULTI: return %[[F]]#2, %[[F]]#1, %[[F]]#0
// Without it each moment stays its own op (it has two users).
// CHECK-LABEL: func.func @adam
// CHECK-COUNT-3: linalg.generic
#v = affine_map<(i) -> (i)>
func.func @adam(%p: tensor<8xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %m2 = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%m, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %c = arith.constant 0.9 : f32
    %x = arith.mulf %a, %c : f32
    %y = arith.addf %x, %b : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %v2 = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%v, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %x = arith.mulf %b, %b : f32
    %y = arith.addf %x, %a : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %p2 = linalg.generic {indexing_maps = [#v, #v, #v, #v], iterator_types = ["parallel"]} ins(%p, %m2, %v2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %s = math.sqrt %c : f32
    %d = arith.divf %b, %s : f32
    %y = arith.subf %a, %d : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %p2, %m2, %v2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// A consumer that reads the shared producer twice: both reads fuse, the
// producer's result is yielded once more for the return.
// MULTI-LABEL: func.func @read_twice
// MULTI: %[[F:.*]]:2 = linalg.generic {{.*}} ins(%arg0 : tensor<8xf32>)
// MULTI: %[[N:.*]] = arith.negf
// MULTI: arith.mulf %[[N]], %[[N]] : f32
// MULTI-NOT: linalg.generic
// MULTI: return %[[F]]#0, %[[F]]#1
func.func @read_twice(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %q = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%p, %p : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %p, %q : tensor<8xf32>, tensor<8xf32>
}

// recompute: softmax's exp(x - max), read by its row sum and by its
// division, is computed in both (it reads 4 bytes of full-size input an
// element and writes 4) and never stored: two ops, each reading %x and the
// row max, the sum's body and the division's starting with the exp.
// RECOMPUTE-LABEL: func.func @softmax
// RECOMPUTE-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[MAX:.*]]: tensor<4xf32>)
// RECOMPUTE: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MAX]] : tensor<4x8xf32>, tensor<4xf32>)
// RECOMPUTE: arith.subf
// RECOMPUTE-NEXT: math.exp
// RECOMPUTE-NEXT: arith.addf
// RECOMPUTE: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
// RECOMPUTE: arith.subf
// RECOMPUTE-NEXT: math.exp
// RECOMPUTE-NEXT: arith.divf
// RECOMPUTE-NOT: linalg.generic
// Without the option the exp stays, made once (3 ops).
// CHECK-LABEL: func.func @softmax
// CHECK-COUNT-3: linalg.generic
#rowmap = affine_map<(i, j) -> (i)>
#fullmap = affine_map<(i, j) -> (i, j)>
func.func @softmax(%x: tensor<4x8xf32>, %max: tensor<4xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %exp = linalg.generic {indexing_maps = [#fullmap, #rowmap, #fullmap], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4x8xf32>, tensor<4xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#fullmap, #rowmap], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4x8xf32>) outs(%zeros : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#fullmap, #rowmap, #fullmap], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// What recompute leaves made once: a producer that reads more full-size
// bytes than it writes (%sum2 of two f32 inputs, 8 bytes read for 4
// written), one a user reads through a broadcast (%row, read for every
// column), and one whose other user is not a linalg op (%neg, returned).
// RECOMPUTE-LABEL: func.func @kept
// RECOMPUTE-COUNT-8: linalg.generic
// RECOMPUTE-NOT: linalg.generic
func.func @kept(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %v: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %r0 = tensor.empty() : tensor<4xf32>
  %sum2 = linalg.generic {indexing_maps = [#fullmap, #fullmap, #fullmap], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %u1 = linalg.generic {indexing_maps = [#fullmap, #fullmap], iterator_types = ["parallel", "parallel"]}
      ins(%sum2 : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %u2 = linalg.generic {indexing_maps = [#fullmap, #fullmap], iterator_types = ["parallel", "parallel"]}
      ins(%sum2 : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.sqrt %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %row = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%v : tensor<4xf32>) outs(%r0 : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %bc = linalg.generic {indexing_maps = [#rowmap, #fullmap, #fullmap], iterator_types = ["parallel", "parallel"]}
      ins(%row, %a : tensor<4xf32>, tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %row2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%row : tensor<4xf32>) outs(%r0 : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %neg = linalg.generic {indexing_maps = [#fullmap, #fullmap], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %u3 = linalg.generic {indexing_maps = [#fullmap, #fullmap], iterator_types = ["parallel", "parallel"]}
      ins(%neg : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %u1, %u2, %bc, %u3, %row2, %neg : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>
}

// A producer that reads its init (an accumulation into %acc) would read
// one more full-size input than it writes: made once.
// RECOMPUTE-LABEL: func.func @reads_init
// RECOMPUTE-COUNT-3: linalg.generic
// RECOMPUTE: return
func.func @reads_init(%a: tensor<8xf32>, %acc: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %u1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %u2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.sqrt %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %u1, %u2 : tensor<8xf32>, tensor<8xf32>
}

// Index elements count 64 bits: an index producer read element for element
// by two users is computed in each (it reads 64 bits and writes 64).
// RECOMPUTE-LABEL: func.func @index_shared
// RECOMPUTE: linalg.generic {{.*}} ins(%arg0 : tensor<8xindex>)
// RECOMPUTE: arith.addi
// RECOMPUTE-NEXT: arith.muli
// RECOMPUTE: linalg.generic {{.*}} ins(%arg0 : tensor<8xindex>)
// RECOMPUTE-NOT: linalg.generic
// RECOMPUTE: return
func.func @index_shared(%i: tensor<8xindex>) -> (tensor<8xindex>, tensor<8xindex>) {
  %e = tensor.empty() : tensor<8xindex>
  %c1 = arith.constant 1 : index
  %p = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%i : tensor<8xindex>) outs(%e : tensor<8xindex>) {
  ^bb0(%x: index, %o: index):
    %r = arith.addi %x, %c1 : index
    linalg.yield %r : index
  } -> tensor<8xindex>
  %u1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%p : tensor<8xindex>) outs(%e : tensor<8xindex>) {
  ^bb0(%x: index, %o: index):
    %r = arith.muli %x, %x : index
    linalg.yield %r : index
  } -> tensor<8xindex>
  %u2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%p : tensor<8xindex>) outs(%e : tensor<8xindex>) {
  ^bb0(%x: index, %o: index):
    %r = arith.shli %x, %c1 : index
    linalg.yield %r : index
  } -> tensor<8xindex>
  return %u1, %u2 : tensor<8xindex>, tensor<8xindex>
}
