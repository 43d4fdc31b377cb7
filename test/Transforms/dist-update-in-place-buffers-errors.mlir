// RUN: dist-opt %s --dist-update-in-place-buffers -verify-diagnostics | FileCheck %s

// The pass rejects nothing. A function with two returns keeps its results
// (one of them is its argument's buffer), and its self-copy (a no-op) goes.
// expected-no-diagnostics

func.func @two_returns(%w: memref<8xf32>, %c: i1) -> (memref<8xf32> {dist.updates = 0 : i64}) {
  memref.copy %w, %w : memref<8xf32> to memref<8xf32>
  cf.cond_br %c, ^a, ^b
^a:
  return %w : memref<8xf32>
^b:
  %0 = memref.alloc() : memref<8xf32>
  return %0 : memref<8xf32>
}
// CHECK-LABEL: func.func @two_returns(%arg0: memref<8xf32>, %arg1: i1) -> (memref<8xf32> {dist.updates = 0 : i64})
// CHECK-NOT: memref.copy
// CHECK: return %arg0
// CHECK: return %{{.*}} : memref<8xf32>
