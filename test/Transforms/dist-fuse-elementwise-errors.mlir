// RUN: dist-opt %s --dist-fuse-elementwise -verify-diagnostics | FileCheck %s
// RUN: dist-opt %s --dist-fuse-elementwise=multi-result=true -verify-diagnostics | FileCheck %s --check-prefix=MULTI

// The pass reports nothing: what it cannot fuse (ops on buffers, a producer
// with several users, ops that are not linalg) it leaves as it is.
// expected-no-diagnostics
#id = affine_map<(d0) -> (d0)>
func.func @buffers(%a: memref<8xf32>, %b: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<8xf32>) outs(%a : memref<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  }
  return
}
// CHECK-LABEL: func.func @buffers
// CHECK: arith.negf
// CHECK: math.exp

// multi-result leaves a shared producer whose consumer reads it through a
// broadcast (the fused op would compute it once per row) or whose other
// user comes before the consumer (it could not read the fused op's result).
// MULTI-LABEL: func.func @shared_left
// MULTI-COUNT-5: linalg.generic
#col = affine_map<(i, j) -> (j)>
#mat = affine_map<(i, j) -> (i, j)>
func.func @shared_left(%a: tensor<8xf32>, %b: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %bc = linalg.generic {indexing_maps = [#col, #mat, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%n, %b : tensor<8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %x2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %zero = tensor.empty() : tensor<f32>
  %early = linalg.generic {indexing_maps = [#id, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x2 : tensor<8xf32>) outs(%zero : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %late = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x2 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %n, %bc, %early, %late : tensor<8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<8xf32>
}
