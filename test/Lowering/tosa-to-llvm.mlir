// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s

// Tests that dist-lower-to-llvm takes a per-rank program of TOSA ops (a
// matmul whose partial result is all-reduced, a broadcast add, a reshape
// and a reduction) to the LLVM dialect: TOSA goes through tosa-to-linalg,
// tosa-to-tensor and tosa-to-arith first, nothing of it remains, and the
// matmul calls the BLAS.
// CHECK-NOT: tosa.
// CHECK-LABEL: llvm.func @tosa_block
// CHECK: llvm.call @cblas_sgemm
// CHECK: llvm.call @dist_all_reduce
// CHECK-NOT: tosa.

dist.mesh @m [mp = 2]

func.func @tosa_block(%x: tensor<1x8x8xf32>, %w: tensor<1x8x16xf32>,
                      %bias: tensor<1x1x16xf32>) -> tensor<8x1xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %r = dist.all_reduce %m on @m [mp] sum : tensor<1x8x16xf32>
  %a = tosa.add %r, %bias : (tensor<1x8x16xf32>, tensor<1x1x16xf32>) -> tensor<1x8x16xf32>
  %shape = tosa.const_shape {values = dense<[8, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %f = tosa.reshape %a, %shape : (tensor<1x8x16xf32>, !tosa.shape<2>) -> tensor<8x16xf32>
  %s = tosa.reduce_sum %f {axis = 1 : i32} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  return %s : tensor<8x1xf32>
}
