// RUN: dist-opt %s --split-input-file --dist-promote-accumulators -verify-diagnostics | FileCheck %s

// dist-promote-accumulators takes no options and refuses nothing: what it
// cannot prove safe stays as it is, without a diagnostic.

// Two function arguments might be one buffer: the loop reads %x while
// writing %sum, so the store stays in the loop.
// CHECK-LABEL: func.func @arguments
// CHECK: scf.for
// CHECK-NEXT: memref.load %arg0
// CHECK-NEXT: memref.load %arg1
// CHECK: memref.store
// CHECK-NEXT: }
func.func @arguments(%x: memref<128xf32>, %sum: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%t) = (%c0) to (%c1) step (%c1) {
    scf.for %k = %c0 to %c128 step %c1 {
      %a = memref.load %x[%k] : memref<128xf32>
      %acc = memref.load %sum[] : memref<f32>
      %s = arith.addf %acc, %a : f32
      memref.store %s, %sum[] : memref<f32>
    }
    scf.reduce
  }
  return
}

// -----

// A host loop (no kernel around it) stays one op for
// dist-gpu-serial-kernels to move into a kernel, even over a fresh buffer.
// CHECK-LABEL: func.func @host
// CHECK-NOT: iter_args
func.func @host(%x: memref<128xf32>) -> memref<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %sum = memref.alloc() : memref<f32>
  scf.for %k = %c0 to %c128 step %c1 {
    %a = memref.load %x[%k] : memref<128xf32>
    %acc = memref.load %sum[] : memref<f32>
    %s = arith.addf %acc, %a : f32
    memref.store %s, %sum[] : memref<f32>
  }
  return %sum : memref<f32>
}

// -----

// The loop reads the accumulator's own buffer elsewhere (a prefix sum), or
// writes twice, or stores at an index that changes: left as they are.
// CHECK-LABEL: func.func @left
// CHECK-NOT: iter_args
func.func @left(%x: memref<128xf32>) -> (memref<129xf32>, memref<2xf32>, memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %prefix = memref.alloc() : memref<129xf32>
  %two = memref.alloc() : memref<2xf32>
  %copy = memref.alloc() : memref<128xf32>
  scf.parallel (%t) = (%c0) to (%c1) step (%c1) {
  scf.for %k = %c0 to %c128 step %c1 {
    %next = arith.addi %k, %c1 : index
    %a = memref.load %prefix[%k] : memref<129xf32>
    %acc = memref.load %prefix[%c0] : memref<129xf32>
    %s = arith.addf %acc, %a : f32
    memref.store %s, %prefix[%c0] : memref<129xf32>
  }
  scf.for %k = %c0 to %c128 step %c1 {
    %a = memref.load %x[%k] : memref<128xf32>
    %acc = memref.load %two[%c0] : memref<2xf32>
    %s = arith.addf %acc, %a : f32
    memref.store %s, %two[%c0] : memref<2xf32>
    memref.store %a, %two[%c1] : memref<2xf32>
  }
  scf.for %k = %c0 to %c128 step %c1 {
    %a = memref.load %x[%k] : memref<128xf32>
    %acc = memref.load %copy[%k] : memref<128xf32>
    %s = arith.addf %acc, %a : f32
    memref.store %s, %copy[%k] : memref<128xf32>
  }
  scf.reduce
  }
  return %prefix, %two, %copy : memref<129xf32>, memref<2xf32>, memref<128xf32>
}
