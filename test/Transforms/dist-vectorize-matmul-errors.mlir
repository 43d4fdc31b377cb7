// RUN: dist-opt %s --dist-vectorize-matmul="tile-m=0" -verify-diagnostics

// Tests that a tile size below one is rejected, naming both options.
// expected-error @below {{dist-vectorize-matmul: tile-m and tile-n must be positive (got 0 and 32)}}
func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
