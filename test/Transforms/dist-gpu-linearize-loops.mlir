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
