// RUN: dist-opt %s --dist-approximate-math -verify-diagnostics | FileCheck %s

// The pass reports nothing: math it does not approximate stays as it is.
// expected-no-diagnostics

// Math on tensors is left to convert-elementwise-to-linalg (the patterns
// build scalar and vector constants only); f64, and functions without an
// approximation (sqrt, sin, pow), keep their ops.
func.func @left_alone(%t: tensor<4xf32>, %d: f64, %x: f32) -> (tensor<4xf32>, f64, f32, f32, f32) {
  %a = math.exp %t : tensor<4xf32>
  %b = math.log %d : f64
  %c = math.sqrt %x : f32
  %s = math.sin %x : f32
  %p = math.powf %x, %x : f32
  return %a, %b, %c, %s, %p : tensor<4xf32>, f64, f32, f32, f32
}
// CHECK-LABEL: func.func @left_alone
// CHECK: math.exp %arg0 : tensor<4xf32>
// CHECK: math.log %arg1 : f64
// CHECK: math.sqrt %arg2 : f32
// CHECK: math.sin %arg2 : f32
// CHECK: math.powf %arg2, %arg2 : f32
