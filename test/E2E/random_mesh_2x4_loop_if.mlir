// A random annotated program (differential testing, fourth session: one of
// 1,195 generated programs that all passed), kept as a regression test: its
// serial and partitioned runs must agree on every result.

// RUN: dist-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS: [[N:[0-9]+]] of [[N]] result(s) match the serial run

dist.mesh @mesh [a = 2, b = 4]

func.func @main(
    %arg0: tensor<16x8xf32> {dist.sharding = #dist.sharding<@mesh, [{a}, {b}]>},
    %arg1: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{a}, {b}]>},
    %arg2: tensor<8xf32>,
    %arg3: tensor<4x8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}, {}]>},
    %arg4: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{a}, {b}]>},
    %arg5: tensor<4x8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {b}, {a}]>},
    %arg6: f32,
    %arg7: tensor<8x4xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}], partial = sum{a}>}, tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{b}, {}]>}) {
  %e1 = tensor.empty() : tensor<8x8xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1, %arg2 : tensor<8x8xf32>, tensor<8xf32>) outs(%e1 : tensor<8x8xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %t = arith.subf %in0, %in1 : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  %c3 = arith.constant 0 : index
  %c4 = arith.constant 1 : index
  %c5 = arith.constant 4 : index
  %v10 = scf.for %i6 = %c3 to %c5 step %c4 iter_args(%acc8 = %arg4) -> (tensor<8x8xf32>) {
    %s7 = tensor.extract_slice %arg3[%i6, 0, 0] [1, 8, 8] [1, 1, 1] : tensor<4x8x8xf32> to tensor<8x8xf32>
    %v9 = arith.mulf %acc8, %s7 : tensor<8x8xf32>
    scf.yield %v9 : tensor<8x8xf32>
  }
  %e12 = tensor.empty() : tensor<4x8x8xf32>
  %v11 = linalg.max ins(%arg3, %arg5 : tensor<4x8x8xf32>, tensor<4x8x8xf32>) outs(%e12 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %v13 = tensor.extract_slice %v10[7, 0] [1, 8] [1, 1] : tensor<8x8xf32> to tensor<8xf32>
  %v14 = math.tanh %v10 : tensor<8x8xf32>
  %c15 = arith.constant 0.0 : f32
  %cond16 = arith.cmpf ogt, %arg6, %c15 : f32
  %v27 = scf.if %cond16 -> (tensor<8x8xf32>) {
    %e17 = tensor.empty() : tensor<8x4xf32>
    %c18 = arith.constant 0.0 : f32
    %z19 = linalg.fill ins(%c18 : f32) outs(%e17 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %v20 = linalg.matmul ins(%arg4, %arg7 : tensor<8x8xf32>, tensor<8x4xf32>) outs(%z19 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %e21 = tensor.empty() : tensor<4x8x8xf32>
    %v22 = linalg.broadcast ins(%arg4 : tensor<8x8xf32>) outs(%e21 : tensor<4x8x8xf32>) dimensions = [0]
    %v23 = dist.annotate %v14 as <@mesh, [{b}, {a}]> : tensor<8x8xf32>
    scf.yield %v23 : tensor<8x8xf32>
  } else {
    %e24 = tensor.empty() : tensor<4x8x8xf32>
    %v25 = linalg.softmax dimension(0) ins(%v11 : tensor<4x8x8xf32>) outs(%e24 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %v26 = tensor.extract_slice %v2[0, 0] [8, 8] [1, 1] : tensor<8x8xf32> to tensor<8x8xf32>
    scf.yield %v26 : tensor<8x8xf32>
  }
  return %v27, %v2, %v10 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

