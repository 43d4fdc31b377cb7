// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-hoist-updates | FileCheck %s

// Tests that a collective on buffers is rejected: the pass reorders ops on
// tensors, before bufferization (on buffers it would reorder memory).
dist.mesh @mesh_2 [dp = 2]
func.func @buffers(%x: tensor<8xf32>, %b: memref<8xf32>) -> tensor<8xf32> {
  %dx = arith.mulf %x, %x {dist.role = #dist.role<backward>} : tensor<8xf32>
  // expected-error@+1 {{'dist.buffer.all_reduce' op is a collective on buffers; dist-hoist-updates works on tensors (run it before bufferization)}}
  dist.buffer.all_reduce %b on @mesh_2 [dp] sum {dist.role = #dist.role<optimizer>} : memref<8xf32>
  return %dx : tensor<8xf32>
}

// -----

// What the pass may not move stays where it is. Tests that an optimizer op
// with memory effects (a store into a buffer) stays, while the pure update
// after it moves up to the value it needs.
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

