// RUN: dist-opt %s --dist-fold-transposes | FileCheck %s
// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s --check-prefix=BLAS
// RUN: dist-opt %s --dist-fold-transposes=mixed-precision=true | FileCheck %s --check-prefix=MIXED

// dW = X^T dY: the transposed activation is read in place.
func.func @transposed_lhs(%x: tensor<16x8xf32>, %dy: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.transpose ins(%x : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x4xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  %dw = linalg.matmul {dist.role = #dist.role<backward>} ins(%t, %dy : tensor<8x16xf32>, tensor<16x4xf32>) outs(%zeros : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %dw : tensor<8x4xf32>
}
// CHECK-DAG: #[[KM:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[KN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[NK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @transposed_lhs
// CHECK-NOT: linalg.transpose
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[KM]], #[[KN]], #[[MN]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<16x8xf32>, tensor<16x4xf32>) outs(%[[F]] : tensor<8x4xf32>) attrs =  {dist.role = #dist.role<backward>}
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NOT: linalg.matmul

// The gemm reads X transposed (CblasTrans = 112) and there is no copy.
// BLAS-LABEL: llvm.func @transposed_lhs
// BLAS: llvm.mlir.constant(112 : i32)
// BLAS: llvm.call @cblas_sgemm
// BLAS-NOT: llvm.call @cblas_sgemm
// BLAS: llvm.return

// dX = dY W^T, and a transpose read by another op as well: that op keeps it.
func.func @transposed_rhs(%dy: tensor<16x4xf32>, %w: tensor<8x4xf32>) -> (tensor<16x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %t = linalg.transpose ins(%w : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16x8xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%init : tensor<16x8xf32>) -> tensor<16x8xf32>
  %dx = linalg.matmul ins(%dy, %t : tensor<16x4xf32>, tensor<4x8xf32>) outs(%zeros : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %dx, %t : tensor<16x8xf32>, tensor<4x8xf32>
}
// CHECK-LABEL: func.func @transposed_rhs
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[MK]], #[[NK]], #[[MN]]], {{.*}} ins(%arg0, %arg1 : tensor<16x4xf32>, tensor<8x4xf32>)
// CHECK: return %{{.*}}, %[[T]]

// Both operands transposed.
func.func @both(%a: tensor<16x8xf64>, %b: tensor<4x16xf64>) -> tensor<8x4xf64> {
  %ea = tensor.empty() : tensor<8x16xf64>
  %ta = linalg.transpose ins(%a : tensor<16x8xf64>) outs(%ea : tensor<8x16xf64>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<16x4xf64>
  %tb = linalg.transpose ins(%b : tensor<4x16xf64>) outs(%eb : tensor<16x4xf64>) permutation = [1, 0]
  %init = tensor.empty() : tensor<8x4xf64>
  %r = linalg.matmul ins(%ta, %tb : tensor<8x16xf64>, tensor<16x4xf64>) outs(%init : tensor<8x4xf64>) -> tensor<8x4xf64>
  return %r : tensor<8x4xf64>
}
// CHECK-LABEL: func.func @both
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[KM]], #[[NK]], #[[MN]]], {{.*}} ins(%arg0, %arg1 : tensor<16x8xf64>, tensor<4x16xf64>)
// CHECK: arith.mulf {{.*}} : f64

// With mixed-precision (cuBLAS: dist-lower-to-nvvm), bf16 inputs into an f32
// output fold as well, the body extending both inputs as linalg.matmul's
// cast_signed does. Without it (the CPU pipeline) the matmul stays for
// dist-vectorize-matmul.
func.func @mixed_lhs(%x: tensor<16x8xbf16>, %dy: tensor<16x4xbf16>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x16xbf16>
  %t = linalg.transpose ins(%x : tensor<16x8xbf16>) outs(%e : tensor<8x16xbf16>) permutation = [1, 0]
  %dw = linalg.matmul ins(%t, %dy : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %dw : tensor<8x4xf32>
}
// CHECK-LABEL: func.func @mixed_lhs
// CHECK: linalg.transpose
// CHECK: linalg.matmul
// MIXED-LABEL: func.func @mixed_lhs
// MIXED-NOT: linalg.transpose
// MIXED: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<16x8xbf16>, tensor<16x4xbf16>) outs(%arg2 : tensor<8x4xf32>)
// MIXED-NEXT: ^bb0(%[[A:.*]]: bf16, %[[B:.*]]: bf16, %[[C:.*]]: f32):
// MIXED-NEXT: %[[AF:.*]] = arith.extf %[[A]] : bf16 to f32
// MIXED-NEXT: %[[BF:.*]] = arith.extf %[[B]] : bf16 to f32
// MIXED-NEXT: %[[P:.*]] = arith.mulf %[[AF]], %[[BF]] : f32
// MIXED-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[P]] : f32
// MIXED-NEXT: linalg.yield %[[S]] : f32
// MIXED-NOT: linalg.matmul
