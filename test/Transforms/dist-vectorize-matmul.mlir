// RUN: dist-opt %s --split-input-file --dist-vectorize-matmul | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-vectorize-matmul="tile-m=4 tile-n=16" | FileCheck %s --check-prefix=SMALL
// RUN: dist-opt %s --split-input-file --dist-vectorize-matmul=skip-blas-types | FileCheck %s --check-prefix=SKIP

// Tests the register tiles of a 64x64x32 f32 matmul: 8x32 accumulator tiles
// (loops over rows by 8 and columns by 32), the accumulator read before the
// reduction loop, carried through it as a vector and written after it; each
// step reads a column of A (8x1) and a row of B (1x32) and does one FMA per
// row of the tile.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<32x64xf32>, %[[C:.*]]: tensor<64x64xf32>)
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[C64]] step %[[C8]] iter_args(%[[CI:.*]] = %[[C]])
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[C64]] step %[[C32]] iter_args(%[[CJ:.*]] = %[[CI]])
// CHECK: %[[ACC0:.*]] = vector.transfer_read %[[CJ]][%[[I]], %[[J]]]{{.*}} : tensor<64x64xf32>, vector<8x32xf32>
// CHECK: %[[ACC:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[C32]] step %[[C1]] iter_args(%[[ACCK:.*]] = %[[ACC0]]) -> (vector<8x32xf32>)
// CHECK: vector.transfer_read %[[A]][%[[I]], %[[K]]]{{.*}} : tensor<64x32xf32>, vector<8x1xf32>
// CHECK: vector.transfer_read %[[B]][%[[K]], %[[J]]]{{.*}} : tensor<32x64xf32>, vector<1x32xf32>
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT: vector.fma
// CHECK: scf.yield %{{.*}} : vector<8x32xf32>
// CHECK: vector.transfer_write %[[ACC]], %[[CJ]][%[[I]], %[[J]]]
// CHECK-NOT: linalg.matmul
// SMALL-LABEL: func.func @matmul
// SMALL: vector<4x16xf32>
// SKIP-LABEL: func.func @matmul
// SKIP: linalg.matmul
// SKIP-NOT: vector.
func.func @matmul(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// Tests that tile sizes that do not divide the shape shrink to ones that do
// (12 rows: 6; 20 columns: 20), so every tile is full.
// CHECK-LABEL: func.func @odd_sizes
// CHECK: scf.for {{.*}} step %c6
// CHECK: vector.transfer_read {{.*}} : tensor<12x20xf32>, vector<6x20xf32>
// CHECK: scf.for {{.*}} -> (vector<6x20xf32>)
// CHECK-COUNT-6: vector.fma {{.*}} : vector<20xf32>
// CHECK-NOT: linalg.matmul
func.func @odd_sizes(%a: tensor<12x5xf32>, %b: tensor<5x20xf32>, %c: tensor<12x20xf32>) -> tensor<12x20xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<12x5xf32>, tensor<5x20xf32>) outs(%c : tensor<12x20xf32>) -> tensor<12x20xf32>
  return %r : tensor<12x20xf32>
}

// -----

// Tests batch_matmul on i32 (batches one at a time; integer multiply-adds),
// which skip-blas-types still takes: no BLAS multiplies it.
// CHECK-LABEL: func.func @batch_i32
// CHECK: scf.for {{.*}} iter_args{{.*}} -> (vector<1x8x32xi32>)
// CHECK: arith.muli {{.*}} : vector<32xi32>
// CHECK-NOT: linalg.batch_matmul
// SKIP-LABEL: func.func @batch_i32
// SKIP-NOT: linalg.batch_matmul
func.func @batch_i32(%a: tensor<3x16x8xi32>, %b: tensor<3x8x64xi32>, %c: tensor<3x16x64xi32>) -> tensor<3x16x64xi32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x16x8xi32>, tensor<3x8x64xi32>) outs(%c : tensor<3x16x64xi32>) -> tensor<3x16x64xi32>
  return %r : tensor<3x16x64xi32>
}

// -----

// Tests what is left for the loop lowering: dynamic shapes, buffers,
// user-defined (transposing) indexing maps, unsigned casts (the vectorizer
// would extend the i8 operands as signed), inputs of another kind than the
// result (i8 into f32) or wider than it (f32 into f16), and a dead matmul.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-7: linalg.matmul
// CHECK-NOT: vector.
func.func @left_alone(%a: tensor<?x4xf32>, %b: tensor<4x4xf32>, %c: tensor<?x4xf32>,
                      %m: memref<4x4xf32>, %i: tensor<4x8xi8>, %j: tensor<8x4xi8>,
                      %k: tensor<4x4xi32>)
    -> (tensor<?x4xf32>, tensor<4x4xf32>, tensor<4x4xi32>, tensor<4x4xf32>, tensor<4x4xf16>) {
  %r = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x4xf32>) outs(%c : tensor<?x4xf32>) -> tensor<?x4xf32>
  linalg.matmul ins(%m, %m : memref<4x4xf32>, memref<4x4xf32>) outs(%m : memref<4x4xf32>)
  %t = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%b, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%b : tensor<4x4xf32>) -> tensor<4x4xf32>
  %u = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%i, %j : tensor<4x8xi8>, tensor<8x4xi8>)
         outs(%k : tensor<4x4xi32>) -> tensor<4x4xi32>
  %f = tensor.empty() : tensor<4x4xf32>
  %v = linalg.matmul ins(%i, %j : tensor<4x8xi8>, tensor<8x4xi8>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %h = tensor.empty() : tensor<4x4xf16>
  %w = linalg.matmul ins(%b, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%h : tensor<4x4xf16>) -> tensor<4x4xf16>
  %dead = linalg.matmul ins(%b, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%b : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r, %t, %u, %v, %w : tensor<?x4xf32>, tensor<4x4xf32>, tensor<4x4xi32>, tensor<4x4xf32>, tensor<4x4xf16>
}

// -----

// Tests that skip-blas-types leaves only what the BLAS takes (all three
// types f32): f16 inputs into an f32 result are vectorized.
// CHECK-LABEL: func.func @half_into_float
// SKIP-LABEL: func.func @half_into_float
// SKIP: vector.fma {{.*}} : vector<32xf32>
// SKIP-NOT: linalg.matmul
func.func @half_into_float(%a: tensor<8x4xf16>, %b: tensor<4x32xf16>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf16>, tensor<4x32xf16>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// Tests that skip-blas-types leaves an f32 batch_matmul (what tosa.matmul
// becomes) to the BLAS too: one call per batch element.
// CHECK-LABEL: func.func @batch_f32
// CHECK-NOT: linalg.batch_matmul
// SKIP-LABEL: func.func @batch_f32
// SKIP: linalg.batch_matmul
// SKIP-NOT: vector.
func.func @batch_f32(%a: tensor<2x8x4xf32>, %b: tensor<2x4x32xf32>, %c: tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x4xf32>, tensor<2x4x32xf32>) outs(%c : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %r : tensor<2x8x32xf32>
}
