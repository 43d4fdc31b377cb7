// A random annotated program (differential testing, fourth session: one of
// 1,195 generated programs that all passed), kept as a regression test: its
// serial and partitioned runs must agree on every result.

// RUN: dist-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS: [[N:[0-9]+]] of [[N]] result(s) match the serial run

dist.mesh @mesh [a = 2, b = 2, c = 2]

func.func private @helper0(%arg0: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{a, b}, {}]>}, %arg1: tensor<8x4x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {b}, {}]>}) -> (tensor<8x4x4xf32> {dist.sharding = #dist.sharding<@mesh, [{b}, {}, {}]>}) {
  %v1 = tensor.extract_slice %arg1[0, 0, 0] [8, 4, 4] [1, 1, 1] : tensor<8x4x4xf32> to tensor<8x4x4xf32>
  return %v1 : tensor<8x4x4xf32>
}

func.func @main(
    %arg0: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{c, b}, {}], partial = max{a}>},
    %arg1: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh, [{a, b}, {c}]>},
    %arg2: tensor<16x16xf32> {dist.sharding = #dist.sharding<@mesh, [{b}, {c}]>},
    %arg3: tensor<4x8xf32> {dist.sharding = #dist.sharding<@mesh, [{b, c}, {}]>},
    %arg4: tensor<8x4xf32>,
    %arg5: tensor<8x4x4xf32>,
    %arg6: tensor<4x4xf32>,
    %arg7: tensor<4x4x4xf32> {dist.sharding = #dist.sharding<@mesh, [{c}, {}, {}]>})
    -> (tensor<4x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {a, b}]>}, tensor<8x4x2xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}, {c}]>}, tensor<8x4x4xf32>) {
  %e1 = tensor.empty() : tensor<8x16xf32>
  %c2 = arith.constant 0.0 : f32
  %z3 = linalg.fill ins(%c2 : f32) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %v4 = linalg.matmul ins(%arg1, %arg2 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z3 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %c5 = arith.constant 0 : index
  %c6 = arith.constant 1 : index
  %c7 = arith.constant 4 : index
  %e14 = tensor.empty() : tensor<4x8xf32>
  %c15 = arith.constant 0.0 : f32
  %z16 = linalg.fill ins(%c15 : f32) outs(%e14 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %v19 = scf.for %i8 = %c5 to %c7 step %c6 iter_args(%acc17 = %z16) -> (tensor<4x8xf32>) {
    %s9 = tensor.extract_slice %arg3[%i8, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
    %v10 = tensor.extract_slice %v4[0, 1] [4, 1] [1, 1] : tensor<8x16xf32> to tensor<4xf32>
    %e11 = tensor.empty() : tensor<4xf32>
    %v12 = linalg.map { math.tanh } ins(%v10 : tensor<4xf32>) outs(%e11 : tensor<4xf32>)
    %v13 = tensor.insert_slice %s9 into %s9[0] [8] [1] : tensor<8xf32> into tensor<8xf32>
    %v18 = tensor.insert_slice %v13 into %acc17[%i8, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
    scf.yield %v18 : tensor<4x8xf32>
  }
  %v20 = tensor.expand_shape %arg0 [[0], [1, 2]] output_shape [8, 4, 2] : tensor<8x8xf32> into tensor<8x4x2xf32>
  %v21 = func.call @helper0(%arg4, %arg5) : (tensor<8x4xf32>, tensor<8x4x4xf32>) -> tensor<8x4x4xf32>
  %e22 = tensor.empty() : tensor<4x8xf32>
  %v23 = linalg.softmax dimension(0) ins(%arg3 : tensor<4x8xf32>) outs(%e22 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %v24 = dist.annotate %v19 as <@mesh, [{a, b}, {c}]> : tensor<4x8xf32>
  %e25 = tensor.empty() : tensor<4x4xf32>
  %c26 = arith.constant 0.0 : f32
  %z27 = linalg.fill ins(%c26 : f32) outs(%e25 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %v28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterator_types = ["reduction", "parallel", "parallel"]} ins(%arg6, %arg7 : tensor<4x4xf32>, tensor<4x4x4xf32>) outs(%z27 : tensor<4x4xf32>) {
  ^bb0(%in0: f32, %in1: f32, %acc: f32):
    %m = arith.mulf %in0, %in1 : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<4x4xf32>
  %v29 = dist.annotate %v24 as <@mesh, [{}, {a}]> : tensor<4x8xf32>
  %e30 = tensor.empty() : tensor<8x4xf32>
  %v31 = linalg.map { math.tanh } ins(%arg4 : tensor<8x4xf32>) outs(%e30 : tensor<8x4xf32>)
  %v32 = tensor.insert_slice %v28 into %v19[0, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  return %v32, %v20, %v21 : tensor<4x8xf32>, tensor<8x4x2xf32>, tensor<8x4x4xf32>
}

