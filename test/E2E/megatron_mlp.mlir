// End-to-end: the Megatron MLP forward, y = relu(x @ w1 + b1) @ w2 + b2, with
// w1 (and b1) split by columns and w2 by rows over mp (column- then
// row-parallel matmul). The partitioned program on 2, 4 and 8 ranks must
// match the serial run: one all_reduce after the row-parallel matmul, and
// the replicated bias b2 added once after it.

// RUN: dist-run %s --mesh 2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh mesh=8 | FileCheck %s -DN=8
// Without a BLAS: the matmuls are dist-vectorize-matmul's register tiles.
// RUN: dist-run %s --mesh 4 --blas=false | FileCheck %s -DN=4

// CHECK: dist-run: @megatron_mlp on [[N]] rank(s), mesh @mesh [mp = [[N]]]
// CHECK-NEXT: result #0 tensor<16x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 1 of 1 result(s) match the serial run
// CHECK-NOT: FAIL

dist.mesh @mesh [mp = 4]

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

func.func @megatron_mlp(
    %x: tensor<16x32xf32>,
    %w1: tensor<32x64xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>},
    %b1: tensor<64xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}]>},
    %w2: tensor<64x32xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
    %b2: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  // Column-parallel: each rank computes its columns of the hidden layer.
  %e1 = tensor.empty() : tensor<16x64xf32>
  %h0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x32xf32>, tensor<32x64xf32>)
      outs(%h0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  // Bias add and relu on the local columns.
  %a = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<16x64xf32>, tensor<64xf32>) outs(%e1 : tensor<16x64xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x64xf32>
  // Row-parallel: a partial sum over the split hidden dim.
  %e2 = tensor.empty() : tensor<16x32xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %o = linalg.matmul ins(%a, %w2 : tensor<16x64xf32>, tensor<64x32xf32>)
      outs(%o0 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %ob = arith.addf %o, %b2 : tensor<16x32xf32>
  return %ob : tensor<16x32xf32>
}
