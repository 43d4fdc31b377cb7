// RUN: dist-opt %s --dist-matmul-to-blas | FileCheck %s

// Tests that an f32 matmul on buffers calls cblas_sgemm in row-major order
// (101), without transposes (111), M = 64, N = 16, K = 32, alpha = beta = 1
// (linalg.matmul accumulates into C), with each operand's row stride as its
// leading dimension.
// CHECK-LABEL: func.func @sgemm
// CHECK-SAME: (%[[A:.*]]: memref<64x32xf32>, %[[B:.*]]: memref<32x16xf32>, %[[C:.*]]: memref<64x16xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK: %[[M:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[K:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[AP:.*]] = llvm.inttoptr
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[AS:[a-z_0-9]+]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[LDA:.*]] = arith.index_cast %[[AS]]#0 : index to i32
// CHECK: call @cblas_sgemm(%[[ROW]], %[[NT]], %[[NT]]{{.*}}, %[[M]], %[[N]], %[[K]], %[[ONE]], %[[AP]], %[[LDA]], %{{.*}}, %{{.*}}, %[[ONE]], %{{.*}}, %{{.*}}) : (i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32) -> ()
// CHECK-NOT: linalg.matmul
func.func @sgemm(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Tests f64 (cblas_dgemm) on views whose rows are contiguous (row stride 32,
// an offset).
// CHECK-LABEL: func.func @dgemm_views
// CHECK: call @cblas_dgemm
// CHECK-NOT: linalg.matmul
func.func @dgemm_views(%a: memref<8x4xf64, strided<[32, 1], offset: 4>>, %b: memref<4x8xf64>,
                       %c: memref<8x8xf64, strided<[32, 1]>>) {
  linalg.matmul ins(%a, %b : memref<8x4xf64, strided<[32, 1], offset: 4>>, memref<4x8xf64>)
                outs(%c : memref<8x8xf64, strided<[32, 1]>>)
  return
}

// Tests what stays a loop nest: integer matmuls, columns that are not
// contiguous, tensors, and transposed (user-defined) maps.
// CHECK-LABEL: func.func @unchanged
// CHECK-COUNT-4: linalg.matmul
// CHECK-NOT: call
// CHECK: return
// The CBLAS functions are declared once, at the end of the module.
// CHECK-DAG: func.func private @cblas_sgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
// CHECK-DAG: func.func private @cblas_dgemm(i32, i32, i32, i32, i32, i32, f64, !llvm.ptr, i32, !llvm.ptr, i32, f64, !llvm.ptr, i32)
func.func @unchanged(%ai: memref<4x4xi32>, %ci: memref<4x4xi32>,
                     %as: memref<4x4xf32, strided<[1, 4]>>, %b: memref<4x4xf32>, %c: memref<4x4xf32>,
                     %t: tensor<4x4xf32>) -> tensor<4x4xf32> {
  linalg.matmul ins(%ai, %ai : memref<4x4xi32>, memref<4x4xi32>) outs(%ci : memref<4x4xi32>)
  linalg.matmul ins(%as, %b : memref<4x4xf32, strided<[1, 4]>>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  %r = linalg.matmul ins(%t, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%t : tensor<4x4xf32>) -> tensor<4x4xf32>
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                ins(%b, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return %r : tensor<4x4xf32>
}
