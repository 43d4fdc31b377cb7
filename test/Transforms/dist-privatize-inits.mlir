// RUN: dist-opt %s --dist-privatize-inits | FileCheck %s
// RUN: dist-opt %s --dist-privatize-inits | FileCheck %s --check-prefix=EMPTY
// RUN: dist-opt %s --dist-lower-to-llvm --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS

// Two gradients start from the same zeros, two updates write into the same
// empty tensor: each destination gets its own empty tensor and fill. The
// zeros are also read as an input, so no destination keeps the original
// (writing it in place would need a copy first).
func.func @shared(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>, %p: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g1 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g2 = linalg.matmul ins(%p, %b : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %u1 = linalg.add ins(%p, %g1 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %u2 = linalg.add ins(%z, %g2 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %g1, %g2, %u1, %u2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
// Five empty tensors and three fills: one each for the zeros that are read,
// for each gradient and for each update.
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-3: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK-NOT: linalg.fill
// CHECK: return
// EMPTY-LABEL: func.func @shared
// EMPTY-COUNT-5: tensor.empty()
// EMPTY-NOT: tensor.empty()
// EMPTY: return

// Bufferized, no zeros are copied: every matmul fills its own buffer.
// BUFFERS-LABEL: func.func @shared
// BUFFERS-NOT: memref.copy
// BUFFERS: return
