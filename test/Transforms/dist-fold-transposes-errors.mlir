// RUN: dist-opt %s --dist-fold-transposes -verify-diagnostics | FileCheck %s
// RUN: dist-opt %s --dist-fold-transposes=mixed-precision=true -verify-diagnostics | FileCheck %s --check-prefix=MIXED

// The pass reports nothing: what it does not fold it leaves as it is.
// expected-no-diagnostics

// Integer matmuls, mixed element types without mixed-precision (the CPU's
// matmul code takes them) and matmuls with indexing maps of their own keep
// their transposes.
func.func @integer(%a: tensor<4x8xi32>, %b: tensor<4x2xi32>, %init: tensor<8x2xi32>) -> tensor<8x2xi32> {
  %e = tensor.empty() : tensor<8x4xi32>
  %t = linalg.transpose ins(%a : tensor<4x8xi32>) outs(%e : tensor<8x4xi32>) permutation = [1, 0]
  %r = linalg.matmul ins(%t, %b : tensor<8x4xi32>, tensor<4x2xi32>) outs(%init : tensor<8x2xi32>) -> tensor<8x2xi32>
  return %r : tensor<8x2xi32>
}
// CHECK-LABEL: func.func @integer
// CHECK: linalg.transpose
// CHECK: linalg.matmul

func.func @mixed(%a: tensor<4x8xbf16>, %b: tensor<4x2xbf16>, %init: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %e = tensor.empty() : tensor<8x4xbf16>
  %t = linalg.transpose ins(%a : tensor<4x8xbf16>) outs(%e : tensor<8x4xbf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%t, %b : tensor<8x4xbf16>, tensor<4x2xbf16>) outs(%init : tensor<8x2xf32>) -> tensor<8x2xf32>
  return %r : tensor<8x2xf32>
}
// CHECK-LABEL: func.func @mixed
// CHECK: linalg.transpose
// CHECK: linalg.matmul

func.func @own_maps(%a: tensor<4x8xf32>, %b: tensor<2x4xf32>, %init: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%t, %b : tensor<8x4xf32>, tensor<2x4xf32>) outs(%init : tensor<8x2xf32>) -> tensor<8x2xf32>
  return %r : tensor<8x2xf32>
}
// CHECK-LABEL: func.func @own_maps
// CHECK: linalg.transpose
// CHECK: linalg.matmul

// Buffers are not rewritten (the pass runs before bufferization).
func.func @buffers(%a: memref<4x8xf32>, %t: memref<8x4xf32>, %b: memref<4x2xf32>, %c: memref<8x2xf32>) {
  linalg.transpose ins(%a : memref<4x8xf32>) outs(%t : memref<8x4xf32>) permutation = [1, 0]
  linalg.matmul ins(%t, %b : memref<8x4xf32>, memref<4x2xf32>) outs(%c : memref<8x2xf32>)
  return
}
// CHECK-LABEL: func.func @buffers
// CHECK: linalg.transpose
// CHECK: linalg.matmul

// With mixed-precision too: inputs wider than the output (the body would
// round, which cuBLAS does not) and inputs of two types.
func.func @narrowing(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>, %init: tensor<8x2xbf16>) -> tensor<8x2xbf16> {
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%t, %b : tensor<8x4xf32>, tensor<4x2xf32>) outs(%init : tensor<8x2xbf16>) -> tensor<8x2xbf16>
  return %r : tensor<8x2xbf16>
}
// CHECK-LABEL: func.func @narrowing
// MIXED-LABEL: func.func @narrowing
// MIXED: linalg.transpose
// MIXED: linalg.matmul

func.func @two_input_types(%a: tensor<4x8xbf16>, %b: tensor<4x2xf16>, %init: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %e = tensor.empty() : tensor<8x4xbf16>
  %t = linalg.transpose ins(%a : tensor<4x8xbf16>) outs(%e : tensor<8x4xbf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%t, %b : tensor<8x4xbf16>, tensor<4x2xf16>) outs(%init : tensor<8x2xf32>) -> tensor<8x2xf32>
  return %r : tensor<8x2xf32>
}
// MIXED-LABEL: func.func @two_input_types
// MIXED: linalg.transpose
// MIXED: linalg.matmul
