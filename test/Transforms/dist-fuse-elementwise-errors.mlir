// RUN: dist-opt %s --dist-fuse-elementwise -verify-diagnostics | FileCheck %s

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
