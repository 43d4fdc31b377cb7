// RUN: dist-opt %s --dist-gpu-serial-kernels | FileCheck %s

// Tests that host code touching buffers becomes one-iteration parallel loops
// (kernels of one thread once mapped): a rank-0 fill and a full reduction
// left as host loops by convert-linalg-to-parallel-loops; and that a load
// whose value the host uses (a branch condition) goes through a
// one-element staging buffer to host memory. Parallel loops stay as they are.

// CHECK-LABEL: func.func @serial
// CHECK: scf.parallel (%{{.*}}) = (%[[Z:.*]]) to (%[[O:.*]]) step (%[[O]]) {
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC:.*]][] : memref<f32>
// CHECK: scf.parallel
// CHECK-NEXT: scf.for
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<8xf32>
// CHECK: memref.store %{{.*}}, %[[ACC]][] : memref<f32>
// The host's branch reads the sum through host memory.
// CHECK: %[[STAGING:.*]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT: %[[HOST:.*]] = memref.alloca() : memref<1xf32>
// CHECK: scf.parallel
// CHECK-NEXT: %[[V:.*]] = memref.load %[[ACC]][] : memref<f32>
// CHECK-NEXT: memref.store %[[V]], %[[STAGING]][%{{.*}}] : memref<1xf32>
// CHECK: memref.copy %[[STAGING]], %[[HOST]]
// CHECK-NEXT: memref.dealloc %[[STAGING]]
// CHECK-NEXT: %[[S:.*]] = memref.load %[[HOST]][%{{.*}}] : memref<1xf32>
// CHECK-NEXT: arith.cmpf ogt, %[[S]]
// An existing parallel loop is not wrapped again.
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT: memref.store
func.func @serial(%x: memref<8xf32>, %acc: memref<f32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %acc[] : memref<f32>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf32>
    %a = memref.load %acc[] : memref<f32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[] : memref<f32>
  }
  %sum = memref.load %acc[] : memref<f32>
  %positive = arith.cmpf ogt, %sum, %zero : f32
  scf.if %positive {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      memref.store %sum, %out[%i] : memref<8xf32>
    }
  }
  return
}

// A rank-0 linalg op lowered to straight-line host code (loads, arithmetic,
// a store: a global norm summed from per-parameter norms) runs in the
// kernel whole: the loads and the adds move in with the store, so the host
// reads no device memory. A load that a write precedes stays on the host
// (staged); so does what the host itself uses.
// CHECK-LABEL: func.func @rank0
// CHECK-SAME: (%[[A:.*]]: memref<f32>, %[[B:.*]]: memref<f32>, %[[C:.*]]: memref<f32>, %[[OUT:.*]]: memref<f32>, %[[OUT2:.*]]: memref<f32>)
// CHECK: scf.parallel
// CHECK-NEXT: %[[X:.*]] = memref.load %[[A]][] : memref<f32>
// CHECK-NEXT: %[[Y:.*]] = memref.load %[[B]][] : memref<f32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[SQRT:.*]] = math.sqrt %[[SUM]] : f32
// CHECK-NEXT: memref.store %[[SQRT]], %[[OUT]][] : memref<f32>
// CHECK-NEXT: scf.reduce
// The load of %c precedes a write of it: staged to the host, then stored
// by a kernel.
// CHECK: %[[STAGED:.*]] = memref.alloca() : memref<1xf32>
// CHECK: scf.parallel
// CHECK-NEXT: memref.load %[[C]][] : memref<f32>
// CHECK: %[[OLD:.*]] = memref.load %[[STAGED]][%{{.*}}] : memref<1xf32>
// CHECK: scf.parallel
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %{{.*}}, %[[C]][] : memref<f32>
// CHECK: scf.parallel
// CHECK-NEXT: %[[TWICE:.*]] = arith.addf %[[OLD]], %[[OLD]] : f32
// CHECK-NEXT: memref.store %[[TWICE]], %[[OUT2]][] : memref<f32>
func.func @rank0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>, %out: memref<f32>, %out2: memref<f32>) {
  %x = memref.load %a[] : memref<f32>
  %y = memref.load %b[] : memref<f32>
  %sum = arith.addf %x, %y : f32
  %norm = math.sqrt %sum : f32
  memref.store %norm, %out[] : memref<f32>
  %old = memref.load %c[] : memref<f32>
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %c[] : memref<f32>
  %twice = arith.addf %old, %old : f32
  memref.store %twice, %out2[] : memref<f32>
  return
}
