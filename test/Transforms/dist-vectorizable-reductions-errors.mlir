// RUN: dist-opt %s --dist-vectorizable-reductions -verify-diagnostics | FileCheck %s

// The pass reports nothing: reductions it cannot reorder or flag keep their
// loop order and flags.
// expected-no-diagnostics

// A map that is no projected permutation (a sliding window, a 1-D
// convolution) keeps the loop order; its add is still flagged.
func.func @window(%x: tensor<10xf32>, %w: tensor<3xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<10xf32>, tensor<3xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%v: f32, %k: f32, %acc: f32):
    %p = arith.mulf %v, %k : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @window
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc>

// A combiner that is not an associative float op (a subtraction, an integer
// add) is not flagged; the largest statically shaped input (the i32 one)
// decides the loop order.
func.func @not_flagged(%x: tensor<?x8xf32>, %i: tensor<4x8xi32>, %finit: tensor<8xf32>, %iinit: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x, %i : tensor<?x8xf32>, tensor<4x8xi32>) outs(%finit, %iinit : tensor<8xf32>, tensor<8xi32>) {
  ^bb0(%v: f32, %w: i32, %facc: f32, %iacc: i32):
    %d = arith.subf %facc, %v : f32
    %s = arith.addi %w, %iacc : i32
    linalg.yield %d, %s : f32, i32
  } -> (tensor<8xf32>, tensor<8xi32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi32>
}
// CHECK-LABEL: func.func @not_flagged
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: arith.subf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addi
