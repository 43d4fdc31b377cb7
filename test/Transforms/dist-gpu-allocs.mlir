// RUN: dist-opt %s --dist-gpu-allocs | FileCheck %s

// Tests that host code's buffers become device buffers: allocations,
// deallocations, copies, and a constant copied to the device at the
// function's entry (and freed at its return); kernels are left alone.

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[ARG:.*]]: memref<4xf32>, %[[FLAG:.*]]: i1)
// CHECK-NEXT: %[[HOST:.*]] = memref.get_global @table : memref<4xf32>
// CHECK-NEXT: %[[TABLE:.*]] = gpu.alloc  () : memref<4xf32>
// CHECK-NEXT: gpu.memcpy  %[[TABLE]], %[[HOST]] : memref<4xf32>, memref<4xf32>
// CHECK: %[[BUF:.*]] = gpu.alloc  () : memref<4xf32>
// CHECK-NEXT: gpu.memcpy  %[[BUF]], %[[ARG]] : memref<4xf32>, memref<4xf32>
// CHECK: scf.if %[[FLAG]] {
// CHECK-NEXT: gpu.launch_func @kernels::@add {{.*}} args(%[[TABLE]] : memref<4xf32>, %[[BUF]] : memref<4xf32>)
// CHECK: gpu.dealloc  %[[BUF]] : memref<4xf32>
// CHECK-NEXT: gpu.dealloc  %[[TABLE]] : memref<4xf32>
// CHECK-NEXT: return
// CHECK-NOT: memref.alloc
// The kernel keeps its loads and stores.
// CHECK: gpu.func @add
// CHECK: memref.load
// CHECK: memref.store
module attributes {gpu.container_module} {
  memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
  func.func @step(%arg: memref<4xf32>, %flag: i1) {
    %buf = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    memref.copy %arg, %buf : memref<4xf32> to memref<4xf32>
    %c1 = arith.constant 1 : index
    scf.if %flag {
      %table = memref.get_global @table : memref<4xf32>
      gpu.launch_func @kernels::@add blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%table : memref<4xf32>, %buf : memref<4xf32>)
    }
    memref.dealloc %buf : memref<4xf32>
    return
  }
  gpu.module @kernels {
    gpu.func @add(%a: memref<4xf32>, %b: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<4xf32>
      memref.store %x, %b[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
