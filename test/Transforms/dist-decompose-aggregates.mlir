// RUN: dist-opt %s --dist-decompose-aggregates | FileCheck %s

// Tests that softmax becomes the structured ops it stands for: a max
// reduction, exp(x - max), a sum reduction and a division.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg.softmax
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maxnumf
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %s : tensor<2x16xf32>
}

// Tests that other ops stay.
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.matmul
func.func @matmul(%a: tensor<2x4xf32>, %b: tensor<4x2xf32>, %c: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2x4xf32>, tensor<4x2xf32>) outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
