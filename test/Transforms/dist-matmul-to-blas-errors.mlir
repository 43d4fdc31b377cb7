// RUN: dist-opt %s --split-input-file --dist-matmul-to-blas -verify-diagnostics | FileCheck %s
// RUN: not dist-opt %s --split-input-file --dist-matmul-to-blas=library=mkl 2>&1 | FileCheck %s --check-prefix=LIBRARY
// LIBRARY: error: dist-matmul-to-blas: library 'mkl' is not cblas or cublas

// dist-matmul-to-blas rejects no matmul: one CBLAS cannot take stays a
// linalg.matmul for the loop lowering, without a diagnostic. It rejects a
// module symbol that has a CBLAS name and another type (last case).

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

// -----

// Tests that a module function named like the CBLAS routine, with another
// type, is reported (once, for two matmuls) instead of called with the wrong
// arguments.
func.func @clash(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
// expected-error@+1 {{'func.func' op uses the name @cblas_sgemm, which the lowering calls as '(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32) -> ()'; rename it}}
func.func private @cblas_sgemm(i32)
