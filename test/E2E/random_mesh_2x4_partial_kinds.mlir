// A random annotated program (differential testing, fourth session: one of
// 1,195 generated programs that all passed), kept as a regression test: its
// serial and partitioned runs must agree on every result.

// RUN: dist-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS: [[N:[0-9]+]] of [[N]] result(s) match the serial run

dist.mesh @mesh [a = 2, b = 4]

func.func @main(
    %arg0: tensor<8x4x16xf32>,
    %arg1: tensor<4x8xf32> {dist.sharding = #dist.sharding<@mesh, [{b}, {}]>},
    %arg2: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh, [{a}]>},
    %arg3: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {b}]>},
    %arg4: tensor<8x4x8xf32>,
    %arg5: tensor<8x4x8xf32>,
    %arg6: tensor<4x8xf32>,
    %arg7: tensor<8x4xf32>)
    -> (tensor<8x8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}, {b}]>}, tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {a, b}]>}) {
  %v1 = arith.addf %arg1, %arg1 : tensor<4x8xf32>
  %c2 = arith.constant 1 : index
  %el3 = tensor.extract %arg2[%c2] : tensor<4xf32>
  %v4 = tensor.splat %el3 : tensor<4x8xf32>
  %v5 = arith.mulf %v1, %v4 : tensor<4x8xf32>
  %c6 = arith.constant 1.0 : f32
  %v7 = tensor.pad %v5 low[0, 0] high[0, 8] {
  ^bb0(%i0: index, %i1: index):
    tensor.yield %c6 : f32
  } : tensor<4x8xf32> to tensor<4x16xf32>
  %e8 = tensor.empty() : tensor<8x4xf32>
  %v9 = linalg.map { math.absf } ins(%arg3 : tensor<8x4xf32>) outs(%e8 : tensor<8x4xf32>)
  %e10 = tensor.empty() : tensor<8x4x8xf32>
  %v11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg4 : tensor<8x4x8xf32>) outs(%e10 : tensor<8x4x8xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %p = linalg.index 0 : index
    %q = linalg.index 1 : index
    %pq = arith.subi %p, %q : index
    %pi = arith.index_cast %pq : index to i64
    %pf = arith.sitofp %pi : i64 to f32
    %t = arith.addf %in0, %pf : f32
    linalg.yield %t : f32
  } -> tensor<8x4x8xf32>
  %v12 = arith.negf %arg3 : tensor<8x4xf32>
  %v13 = arith.addf %v11, %arg5 : tensor<8x4x8xf32>
  %c14 = arith.constant 0 : index
  %c15 = arith.constant 1 : index
  %c16 = arith.constant 4 : index
  %e45 = tensor.empty() : tensor<4x8xf32>
  %c46 = arith.constant 0.0 : f32
  %z47 = linalg.fill ins(%c46 : f32) outs(%e45 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %v50 = scf.for %i17 = %c14 to %c16 step %c15 iter_args(%acc48 = %z47) -> (tensor<4x8xf32>) {
    %s18 = tensor.extract_slice %v5[%i17, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
    %c19 = arith.constant 0 : index
    %c20 = arith.constant 1 : index
    %c21 = arith.constant 4 : index
    %e30 = tensor.empty() : tensor<8x8xf32>
    %c31 = arith.constant 0.0 : f32
    %z32 = linalg.fill ins(%c31 : f32) outs(%e30 : tensor<8x8xf32>) -> tensor<8x8xf32>
    %v36 = scf.for %i22 = %c19 to %c21 step %c20 iter_args(%acc33 = %z32) -> (tensor<8x8xf32>) {
      %s23 = tensor.extract_slice %v1[%i22, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
      %e24 = tensor.empty() : tensor<4x8xf32>
      %c25 = arith.constant 0.0 : f32
      %z26 = linalg.fill ins(%c25 : f32) outs(%e24 : tensor<4x8xf32>) -> tensor<4x8xf32>
      %v27 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterator_types = ["reduction", "parallel", "parallel"]} ins(%arg4 : tensor<8x4x8xf32>) outs(%z26 : tensor<4x8xf32>) {
      ^bb0(%in0: f32, %acc: f32):
        %j = linalg.index 0 : index
        %ji = arith.index_cast %j : index to i64
        %jf = arith.sitofp %ji : i64 to f32
        %m = arith.mulf %in0, %jf : f32
        %t = arith.addf %acc, %m : f32
        linalg.yield %t : f32
      } -> tensor<4x8xf32>
      %e28 = tensor.empty() : tensor<8x8xf32>
      %v29 = linalg.broadcast ins(%s18 : tensor<8xf32>) outs(%e28 : tensor<8x8xf32>) dimensions = [0]
      %v35 = math.tanh %acc33 : tensor<8x8xf32>
      %v34 = arith.addf %v35, %v29 : tensor<8x8xf32>
      scf.yield %v34 : tensor<8x8xf32>
    }
    %e37 = tensor.empty() : tensor<4x8x8xf32>
    %v38 = linalg.transpose ins(%arg4 : tensor<8x4x8xf32>) outs(%e37 : tensor<4x8x8xf32>) permutation = [1, 2, 0]
    %v39 = tensor.expand_shape %v11 [[0], [1], [2, 3]] output_shape [8, 4, 2, 4] : tensor<8x4x8xf32> into tensor<8x4x2x4xf32>
    %e40 = tensor.empty() : tensor<8x8x4xf32>
    %v41 = linalg.transpose ins(%arg5 : tensor<8x4x8xf32>) outs(%e40 : tensor<8x8x4xf32>) permutation = [2, 0, 1]
    %e43 = tensor.empty() : tensor<8x4x2x4xf32>
    %v42 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v39 : tensor<8x4x2x4xf32>) outs(%e43 : tensor<8x4x2x4xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %t = arith.negf %in0 : f32
      linalg.yield %t : f32
    } -> tensor<8x4x2x4xf32>
    %v44 = arith.addf %s18, %s18 : tensor<8xf32>
    %v49 = tensor.insert_slice %v44 into %acc48[%i17, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
    scf.yield %v49 : tensor<4x8xf32>
  }
  %e51 = tensor.empty() : tensor<8x8xf32>
  %c52 = arith.constant 0.0 : f32
  %z53 = linalg.fill ins(%c52 : f32) outs(%e51 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %v54 = linalg.matmul ins(%arg3, %arg6 : tensor<8x4xf32>, tensor<4x8xf32>) outs(%z53 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e55 = tensor.empty() : tensor<8x8x4xf32>
  %v56 = linalg.broadcast ins(%arg7 : tensor<8x4xf32>) outs(%e55 : tensor<8x8x4xf32>) dimensions = [1]
  return %v56, %v54 : tensor<8x8x4xf32>, tensor<8x8xf32>
}

