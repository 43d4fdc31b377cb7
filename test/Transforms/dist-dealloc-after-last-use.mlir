// RUN: dist-opt %s --dist-dealloc-after-last-use | FileCheck %s
// RUN: dist-opt %s --dist-dealloc-after-last-use --dist-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// Freed at the end of the function (as the deallocation pipeline leaves
// them), %a and %b each move to right after their last use: %a after the
// add that reads it through a view, %b after the loop whose body reads it.
// So %c can reuse %a's memory: the peak is the two arguments and two
// buffers (1024 B), not three buffers.
func.func @chain(%x: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %view = memref.subview %a[0] [64] [1] : memref<64xf32> to memref<64xf32, strided<[1]>>
  %b = memref.alloc() : memref<64xf32>
  linalg.add ins(%view, %x : memref<64xf32, strided<[1]>>, memref<64xf32>) outs(%b : memref<64xf32>)
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %b[%i] : memref<64xf32>
    memref.store %v, %out[%i] : memref<64xf32>
  }
  %c = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%c : memref<64xf32>)
  linalg.copy ins(%c : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}
// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: %[[B:.*]] = memref.alloc
// CHECK-NEXT: linalg.add
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: scf.for
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: %[[C:.*]] = memref.alloc
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: memref.dealloc %[[C]]
// CHECK-NEXT: return
// REPORT: remark: dist-memory-report: peak 1024 B live per rank: parameters 0 B, gradients 0 B, optimizer state 0 B, activations 1024 B,

// An async collective's wait names its buffers: the input is freed after
// the wait, not after the start.
func.func @async(%x: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  linalg.copy ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  %t = dist.buffer.all_reduce async %a on @mesh [x] sum : memref<8xf32>
  linalg.copy ins(%x : memref<8xf32>) outs(%out : memref<8xf32>)
  dist.wait %t, %a : memref<8xf32>
  linalg.copy ins(%a : memref<8xf32>) outs(%out : memref<8xf32>)
  linalg.copy ins(%x : memref<8xf32>) outs(%out : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  return
}
dist.mesh @mesh [x = 2]
// CHECK-LABEL: func.func @async
// CHECK: dist.wait
// CHECK-NEXT: linalg.copy ins(%{{.*}} : memref<8xf32>) outs(%arg1
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: linalg.copy
