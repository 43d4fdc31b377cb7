// RUN: dist-opt %s --dist-privatize-inits -verify-diagnostics | FileCheck %s

// The pass reports nothing: shared values it does not clone stay shared.
// expected-no-diagnostics

// A fill of a function argument (not of an empty tensor) is not cloned; a
// fill read only as an input, and an empty tensor with one use, are not
// cloned either.
func.func @left_alone(%t: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %cst = arith.constant 1.0 : f32
  %f = linalg.fill ins(%cst : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  %a = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.fill ins(%cst : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %c = linalg.add ins(%g, %g : tensor<4xf32>, tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%arg0 : tensor<4xf32>)
// CHECK: linalg.add {{.*}} outs(%[[F]] : tensor<4xf32>)
// CHECK: linalg.add {{.*}} outs(%[[F]] : tensor<4xf32>)
// CHECK: tensor.empty
// CHECK: linalg.fill
// CHECK-NOT: tensor.empty
// CHECK-NOT: linalg.fill
// CHECK: return
