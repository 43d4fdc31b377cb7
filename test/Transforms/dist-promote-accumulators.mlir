// RUN: dist-opt %s --split-input-file --dist-promote-accumulators | FileCheck %s

// A row sum into a fresh buffer: the element is loaded once, carried
// through the loop and stored once.
// CHECK-LABEL: func.func @row_sum
// CHECK: %[[SUM:.*]] = memref.alloc() : memref<64xf32>
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[INIT:.*]] = memref.load %[[SUM]][%[[I]]] : memref<64xf32>
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT: %[[A:.*]] = memref.load %{{.*}}[%[[I]], %{{.*}}] : memref<64x128xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[A]] : f32
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK: memref.store %[[R]], %[[SUM]][%[[I]]] : memref<64xf32>
func.func @row_sum(%x: memref<64x128xf32>) -> memref<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %sum = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %k = %c0 to %c128 step %c1 {
      %a = memref.load %x[%i, %k] : memref<64x128xf32>
      %acc = memref.load %sum[%i] : memref<64xf32>
      %s = arith.addf %acc, %a : f32
      memref.store %s, %sum[%i] : memref<64xf32>
    }
    scf.reduce
  }
  return %sum : memref<64xf32>
}

// -----

// Two reduction loops in a one-thread kernel to be (a sum over a matrix
// into a view of a fresh buffer): the inner loop carries the element, then
// the outer one.
// CHECK-LABEL: func.func @nest
// CHECK: %[[INIT:.*]] = memref.load %[[OUT:.*]][] : memref<f32, strided<[], offset: 1>>
// CHECK: %[[OUTER:.*]] = scf.for {{.*}} iter_args(%[[ACC0:.*]] = %[[INIT]]) -> (f32) {
// CHECK: %[[INNER:.*]] = scf.for {{.*}} iter_args(%[[ACC1:.*]] = %[[ACC0]]) -> (f32) {
// CHECK: scf.yield %[[INNER]] : f32
// CHECK: memref.store %[[OUTER]], %[[OUT]][]
func.func @nest(%x: memref<32x16xf32>) -> memref<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %buffer = memref.alloc() : memref<2xf32>
  %out = memref.subview %buffer[1] [1] [1] : memref<2xf32> to memref<f32, strided<[], offset: 1>>
  scf.parallel (%t) = (%c0) to (%c1) step (%c1) {
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %a = memref.load %x[%i, %j] : memref<32x16xf32>
        %acc = memref.load %out[] : memref<f32, strided<[], offset: 1>>
        %s = arith.addf %acc, %a : f32
        memref.store %s, %out[] : memref<f32, strided<[], offset: 1>>
      }
    }
    scf.reduce
  }
  return %buffer : memref<2xf32>
}
