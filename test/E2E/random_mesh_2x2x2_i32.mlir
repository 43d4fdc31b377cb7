// A random annotated program (differential testing, fourth session: one of
// 1,195 generated programs that all passed), kept as a regression test: its
// serial and partitioned runs must agree on every result.

// RUN: dist-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS: [[N:[0-9]+]] of [[N]] result(s) match the serial run

dist.mesh @mesh [a = 2, b = 2, c = 2]

func.func @main(
    %arg0: tensor<8x8xi32> {dist.input_range = array<i64: -8, 8>, dist.sharding = #dist.sharding<@mesh, [{c, b}, {}], partial = max{a}>},
    %arg1: tensor<8x16xi32> {dist.input_range = array<i64: -8, 8>, dist.sharding = #dist.sharding<@mesh, [{a, b}, {c}]>},
    %arg2: tensor<16x16xi32> {dist.input_range = array<i64: -8, 8>, dist.sharding = #dist.sharding<@mesh, [{b}, {c}]>},
    %arg3: i32 {dist.input_range = array<i64: -8, 8>},
    %arg4: tensor<8x16xi32> {dist.input_range = array<i64: -8, 8>, dist.sharding = #dist.sharding<@mesh, [{c}, {}], partial = max{a}>},
    %arg5: tensor<16x4xi32> {dist.input_range = array<i64: -8, 8>, dist.sharding = #dist.sharding<@mesh, [{c}, {a}]>},
    %arg6: tensor<8x8xi32> {dist.input_range = array<i64: -8, 8>, dist.sharding = #dist.sharding<@mesh, [{}, {b, c}], partial = sum{a}>},
    %arg7: tensor<4x4xi32> {dist.input_range = array<i64: -8, 8>, dist.sharding = #dist.sharding<@mesh, [{b}, {}]>})
    -> (tensor<8x8xi32>, tensor<16x4xi32>, tensor<16x8xi32> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>}) {
  %e1 = tensor.empty() : tensor<8x16xi32>
  %c2 = arith.constant 0 : i32
  %z3 = linalg.fill ins(%c2 : i32) outs(%e1 : tensor<8x16xi32>) -> tensor<8x16xi32>
  %v4 = linalg.matmul ins(%arg1, %arg2 : tensor<8x16xi32>, tensor<16x16xi32>) outs(%z3 : tensor<8x16xi32>) -> tensor<8x16xi32>
  %c6 = arith.constant dense<3> : tensor<8x16xi32>
  %v5 = arith.muli %v4, %c6 : tensor<8x16xi32>
  %cmp7 = arith.cmpi slt, %v4, %arg1 : tensor<8x16xi32>
  %c9 = arith.constant dense<1> : tensor<8x16xi32>
  %v8 = arith.select %cmp7, %v4, %c9 : tensor<8x16xi1>, tensor<8x16xi32>
  %c10 = arith.constant 0 : i32
  %cond11 = arith.cmpi slt, %arg3, %c10 : i32
  %v12 = arith.select %cond11, %v8, %arg4 : tensor<8x16xi32>
  %cmp13 = arith.cmpi slt, %arg5, %arg5 : tensor<16x4xi32>
  %c15 = arith.constant dense<1> : tensor<16x4xi32>
  %v14 = arith.select %cmp13, %arg5, %c15 : tensor<16x4xi1>, tensor<16x4xi32>
  %c16 = arith.constant 0 : i32
  %cond17 = arith.cmpi slt, %arg3, %c16 : i32
  %v18 = arith.select %cond17, %arg0, %arg6 : tensor<8x8xi32>
  %v19 = tensor.extract_slice %arg6[0, 4] [4, 4] [1, 1] : tensor<8x8xi32> to tensor<4x4xi32>
  %c20 = arith.constant 1 : i32
  %v21 = tensor.pad %v14 low[0, 4] high[0, 0] {
  ^bb0(%i0: index, %i1: index):
    tensor.yield %c20 : i32
  } : tensor<16x4xi32> to tensor<16x8xi32>
  %e22 = tensor.empty() : tensor<8x8xi32>
  %c23 = arith.constant 0 : i32
  %z24 = linalg.fill ins(%c23 : i32) outs(%e22 : tensor<8x8xi32>) -> tensor<8x8xi32>
  %v25 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%v5, %v5 : tensor<8x16xi32>, tensor<8x16xi32>) outs(%z24 : tensor<8x8xi32>) -> tensor<8x8xi32>
  %v26 = tensor.insert_slice %arg7 into %v25[2, 0] [4, 4] [1, 1] : tensor<4x4xi32> into tensor<8x8xi32>
  return %v26, %v14, %v21 : tensor<8x8xi32>, tensor<16x4xi32>, tensor<16x8xi32>
}

