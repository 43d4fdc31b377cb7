// A random annotated program (differential testing, fourth session: one of
// 1,195 generated programs that all passed), kept as a regression test: its
// serial and partitioned runs must agree on every result.

// RUN: dist-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS: [[N:[0-9]+]] of [[N]] result(s) match the serial run

dist.mesh @mesh [a = 4, b = 2]

func.func private @helper0(%arg0: tensor<8x8x4xf32>, %arg1: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{b}, {}], partial = min{a}>}) -> (tensor<8x8xf32>) {
  %e1 = tensor.empty() : tensor<8x8xf32>
  %c2 = arith.constant 0.0 : f32
  %z3 = linalg.fill ins(%c2 : f32) outs(%e1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %v4 = linalg.matmul ins(%arg1, %arg1 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z3 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %v4 : tensor<8x8xf32>
}

func.func @main(
    %arg0: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
    %arg1: tensor<4x8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}, {a}]>},
    %arg2: index {dist.input_range = array<i64: 1, 5>},
    %arg3: tensor<8x8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {a}, {}], partial = min{b}>},
    %arg4: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{b}, {}]>})
    -> (tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{b, a}, {}]>}, tensor<16x16xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {b, a}]>}, tensor<8x8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}, {}]>}) {
  %c1 = arith.constant 0.0 : f32
  %v2 = tensor.pad %arg0 low[4, 0] high[4, 0] {
  ^bb0(%i0: index, %i1: index):
    tensor.yield %c1 : f32
  } : tensor<8x16xf32> to tensor<16x16xf32>
  %c3 = arith.constant 0 : index
  %c4 = arith.constant 1 : index
  %e10 = tensor.empty() : tensor<8x8x4xf32>
  %c11 = arith.constant 0.0 : f32
  %z12 = linalg.fill ins(%c11 : f32) outs(%e10 : tensor<8x8x4xf32>) -> tensor<8x8x4xf32>
  %v15 = scf.for %i6 = %c3 to %arg2 step %c4 iter_args(%acc13 = %z12) -> (tensor<8x8x4xf32>) {
    %s7 = tensor.extract_slice %arg1[%i6, 0, 0] [1, 8, 4] [1, 1, 1] : tensor<4x8x4xf32> to tensor<8x4xf32>
    %v8 = tensor.collapse_shape %arg3 [[0], [1, 2]] : tensor<8x8x4xf32> into tensor<8x32xf32>
    %v9 = dist.annotate %arg3 as <@mesh, [{}, {b}, {}]> : tensor<8x8x4xf32>
    %v14 = arith.mulf %acc13, %v9 : tensor<8x8x4xf32>
    scf.yield %v14 : tensor<8x8x4xf32>
  }
  %c16 = arith.constant 0 : index
  %c17 = arith.constant 1 : index
  %c18 = arith.constant 4 : index
  %e28 = tensor.empty() : tensor<4x8x4xf32>
  %c29 = arith.constant 0.0 : f32
  %z30 = linalg.fill ins(%c29 : f32) outs(%e28 : tensor<4x8x4xf32>) -> tensor<4x8x4xf32>
  %v33 = scf.for %i19 = %c16 to %c18 step %c17 iter_args(%acc31 = %z30) -> (tensor<4x8x4xf32>) {
    %s20 = tensor.extract_slice %arg1[%i19, 0, 0] [1, 8, 4] [1, 1, 1] : tensor<4x8x4xf32> to tensor<8x4xf32>
    %e21 = tensor.empty() : tensor<16x16xf32>
    %c22 = arith.constant 0.0 : f32
    %z23 = linalg.fill ins(%c22 : f32) outs(%e21 : tensor<16x16xf32>) -> tensor<16x16xf32>
    %v24 = linalg.matmul ins(%v2, %v2 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z23 : tensor<16x16xf32>) -> tensor<16x16xf32>
    %v25 = tensor.extract_slice %v15[0, 0, 0] [8, 8, 4] [1, 1, 1] : tensor<8x8x4xf32> to tensor<8x8x4xf32>
    %e26 = tensor.empty() : tensor<4x8x4xf32>
    %v27 = linalg.transpose ins(%arg1 : tensor<4x8x4xf32>) outs(%e26 : tensor<4x8x4xf32>) permutation = [2, 1, 0]
    %v32 = arith.addf %acc31, %v27 : tensor<4x8x4xf32>
    scf.yield %v32 : tensor<4x8x4xf32>
  }
  %v34 = func.call @helper0(%v15, %arg4) : (tensor<8x8x4xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %v34, %v2, %v15 : tensor<8x8xf32>, tensor<16x16xf32>, tensor<8x8x4xf32>
}

