// RUN: dist-opt %s --dist-gpu-linearize-loops | FileCheck %s

// Tests that a parallel loop nest of host code becomes one dimension over
// the product of its extents, row-major (the last index varies fastest),
// the indices recovered by remainder and division; that a loop of one
// dimension, a nested loop and a loop with a reduction stay as they are.

// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[IN:.*]]: memref<16x64xf32>, %[[OUT:.*]]: memref<16x64xf32>)
// CHECK-DAG: arith.constant 64 : index
// CHECK-DAG: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK: scf.parallel (%[[K:.*]]) = (%{{.*}}) to (%[[C1024]]) step (%{{.*}}) {
// CHECK-NEXT: %[[J:.*]] = arith.remsi %[[K]], %[[C64:.*]] : index
// CHECK-NEXT: %[[I:.*]] = arith.divsi %[[K]], %[[C64]] : index
// CHECK-NEXT: %[[X:.*]] = memref.load %[[IN]][%[[I]], %[[J]]] : memref<16x64xf32>
// CHECK-NEXT: memref.store %[[X]], %[[OUT]][%[[I]], %[[J]]] : memref<16x64xf32>
func.func @copy(%in: memref<16x64xf32>, %out: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<16x64xf32>
    memref.store %x, %out[%i, %j] : memref<16x64xf32>
    scf.reduce
  }
  return
}

// Three dimensions, one of them dynamic: the innermost is the remainder.
// CHECK-LABEL: func.func @cube
// CHECK: scf.parallel (%[[K:.*]]) =
// CHECK-NEXT: %[[L:.*]] = arith.remsi %[[K]], %{{.*}} : index
// CHECK-NEXT: %[[REST:.*]] = arith.divsi %[[K]], %{{.*}} : index
// CHECK-NEXT: %[[J:.*]] = arith.remsi %[[REST]], %{{.*}} : index
// CHECK-NEXT: %[[I:.*]] = arith.divsi %[[REST]], %{{.*}} : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[L]]] : memref<2x?x8xf32>
func.func @cube(%out: memref<2x?x8xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j, %l) = (%c0, %c0, %c0) to (%c2, %n, %c8) step (%c1, %c1, %c1) {
    memref.store %v, %out[%i, %j, %l] : memref<2x?x8xf32>
    scf.reduce
  }
  return
}

// A one-dimensional loop, the loop nested in a nest, and a loop with a
// reduction stay.
// CHECK-LABEL: func.func @left
// CHECK: scf.parallel (%{{[^,]*}}) = (%{{[^,]*}}) to (%{{[^,]*}}) step
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to
// CHECK: scf.reduce(%{{.*}} : f32)
func.func @left(%out: memref<8x8xf32>, %v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.parallel (%j, %l) = (%c0, %c0) to (%c1, %c8) step (%c1, %c1) {
      memref.store %v, %out[%i, %l] : memref<8x8xf32>
      scf.reduce
    }
    scf.reduce
  }
  %sum = scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) init (%zero) -> f32 {
    %x = memref.load %out[%i, %j] : memref<8x8xf32>
    scf.reduce(%x : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}

// A column sum's partial sums over (column, chunk): the loads and the
// store index the column last (the loads 8 times a thread), so the column
// runs fastest though it is the outer dimension: consecutive threads read
// consecutive elements.
// CHECK-LABEL: func.func @column_partials
// CHECK-SAME: (%[[IN:.*]]: memref<8x4x16xf32>, %[[PART:.*]]: memref<4x16xf32>)
// CHECK: scf.parallel (%[[T:.*]]) =
// CHECK-NEXT: %[[C:.*]] = arith.remsi %[[T]], %[[C16:.*]] : index
// CHECK-NEXT: %[[P:.*]] = arith.divsi %[[T]], %[[C16]] : index
// CHECK: memref.load %[[PART]][%[[P]], %[[C]]]
// CHECK: memref.load %[[IN]][%{{.*}}, %[[P]], %[[C]]]
func.func @column_partials(%in: memref<8x4x16xf32>, %part: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%c, %p) = (%c0, %c0) to (%c16, %c4) step (%c1, %c1) {
    %init = memref.load %part[%p, %c] : memref<4x16xf32>
    %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %init) -> (f32) {
      %x = memref.load %in[%k, %p, %c] : memref<8x4x16xf32>
      %next = arith.addf %acc, %x : f32
      scf.yield %next : f32
    }
    memref.store %sum, %part[%p, %c] : memref<4x16xf32>
    scf.reduce
  }
  return
}

// A transpose: the load indexes j last, the store i, and neither is read
// more often; the inner dimension stays fastest.
// CHECK-LABEL: func.func @transpose_ties
// CHECK: scf.parallel (%[[T:.*]]) =
// CHECK-NEXT: %[[J:.*]] = arith.remsi %[[T]], %[[C8:.*]] : index
// CHECK-NEXT: %[[I:.*]] = arith.divsi %[[T]], %[[C8]] : index
// CHECK: memref.load %{{.*}}[%[[I]], %[[J]]]
func.func @transpose_ties(%x: memref<4x8xf32>, %t: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<4x8xf32>
    memref.store %a, %t[%j, %i] : memref<8x4xf32>
    scf.reduce
  }
  return
}
