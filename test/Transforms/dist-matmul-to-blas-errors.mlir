// RUN: dist-opt %s --dist-matmul-to-blas -verify-diagnostics | FileCheck %s

// dist-matmul-to-blas rejects nothing: a matmul CBLAS cannot take stays a
// linalg.matmul for the loop lowering, without a diagnostic (no
// expected-error here, and -verify-diagnostics fails on any).

// Tests that sizes beyond CBLAS's 32-bit ints, dynamic row strides and mixed
// element types are left alone.
// CHECK-LABEL: func.func @declined
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT: call @cblas
func.func @declined(%a: memref<3000000000x2xf32>, %b: memref<2x2xf32>, %c: memref<3000000000x2xf32>,
                    %d: memref<4x4xf32, strided<[?, ?]>>, %e: memref<4x4xf32>,
                    %h: memref<4x4xf16>, %f: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<3000000000x2xf32>, memref<2x2xf32>) outs(%c : memref<3000000000x2xf32>)
  linalg.matmul ins(%d, %e : memref<4x4xf32, strided<[?, ?]>>, memref<4x4xf32>) outs(%e : memref<4x4xf32>)
  linalg.matmul ins(%h, %h : memref<4x4xf16>, memref<4x4xf16>) outs(%f : memref<4x4xf32>)
  return
}
