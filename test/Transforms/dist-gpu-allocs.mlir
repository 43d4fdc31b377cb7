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

// A kernel that reads a slice of a constant (a partitioned constant) reads
// the same slice of the device copy; host code keeps the host's.
// CHECK-LABEL: func.func @slice_of_constant
// CHECK-SAME: (%[[OFF:.*]]: index, %[[OUT:.*]]: memref<2xf32>)
// CHECK-NEXT: %[[HOST:.*]] = memref.get_global @table : memref<4xf32>
// CHECK-NEXT: %[[TABLE:.*]] = gpu.alloc  () : memref<4xf32>
// CHECK-NEXT: gpu.memcpy  %[[TABLE]], %[[HOST]] : memref<4xf32>, memref<4xf32>
// CHECK: %[[HOST_SLICE:.*]] = memref.subview %[[HOST]][%[[OFF]]] [2] [1]
// CHECK-NEXT: %[[SLICE:.*]] = memref.subview %[[TABLE]][%[[OFF]]] [2] [1]
// CHECK-NEXT: call @read_on_host(%[[HOST_SLICE]])
// CHECK-NEXT: gpu.launch_func @kernels::@copy_slice {{.*}} args(%[[SLICE]] : memref<2xf32, strided<[1], offset: ?>>, %[[OUT]] : memref<2xf32>)
// CHECK-NEXT: gpu.dealloc  %[[TABLE]] : memref<4xf32>
// CHECK-NEXT: return
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
  func.func private @read_on_host(memref<2xf32, strided<[1], offset: ?>>)
  func.func @slice_of_constant(%offset: index, %out: memref<2xf32>) {
    %c1 = arith.constant 1 : index
    %table = memref.get_global @table : memref<4xf32>
    %slice = memref.subview %table[%offset] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: ?>>
    func.call @read_on_host(%slice) : (memref<2xf32, strided<[1], offset: ?>>) -> ()
    gpu.launch_func @kernels::@copy_slice blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%slice : memref<2xf32, strided<[1], offset: ?>>, %out : memref<2xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @copy_slice(%a: memref<2xf32, strided<[1], offset: ?>>, %b: memref<2xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<2xf32, strided<[1], offset: ?>>
      memref.store %x, %b[%c0] : memref<2xf32>
      gpu.return
    }
    gpu.func @add(%a: memref<4xf32>, %b: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<4xf32>
      memref.store %x, %b[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
