// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-hoist-updates | FileCheck %s
// expected-no-diagnostics

// dist-hoist-updates rejects nothing: what it may not move stays where it
// is. Tests that an optimizer op with memory effects (a store into a
// buffer) stays where it is, while the pure update after it moves up to the
// value it needs.
// CHECK-LABEL: func.func @effects
// CHECK: arith.mulf %arg1, %arg1 {dist.role = #dist.role<backward>}
// CHECK-NEXT: arith.subf
// CHECK-NEXT: memref.store
func.func @effects(%w: tensor<8xf32> {dist.param}, %x: tensor<8xf32>, %m: memref<1xf32>, %c: f32) -> (tensor<8xf32>, tensor<8xf32>) {
  %i = arith.constant 0 : index
  %dx = arith.mulf %x, %x {dist.role = #dist.role<backward>} : tensor<8xf32>
  memref.store %c, %m[%i] {dist.role = #dist.role<optimizer>} : memref<1xf32>
  %n = arith.subf %w, %dx {dist.role = #dist.role<optimizer>} : tensor<8xf32>
  return %n, %dx : tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests that an optimizer collective on buffers (after bufferization) stays:
// it reads and writes memory.
// CHECK-LABEL: func.func @buffers
// CHECK: arith.mulf
// CHECK-NEXT: dist.buffer.all_reduce
dist.mesh @mesh_2 [dp = 2]
func.func @buffers(%x: tensor<8xf32>, %b: memref<8xf32>) -> tensor<8xf32> {
  %dx = arith.mulf %x, %x {dist.role = #dist.role<backward>} : tensor<8xf32>
  dist.buffer.all_reduce %b on @mesh_2 [dp] sum {dist.role = #dist.role<optimizer>} : memref<8xf32>
  return %dx : tensor<8xf32>
}
