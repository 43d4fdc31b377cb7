// End-to-end: the Megatron MLP forward written with upstream's shard dialect
// (shard.grid, and shard.shard annotations of the weights in the body, as
// upstream's tests write them) instead of dist annotations: w1 split by
// columns and w2 by rows over the grid's one axis, then relu and a bias add
// after the row-parallel matmul. dist-run imports the annotations, and the
// partitioned program must match the serial run on 2, 4 and 8 ranks.

// RUN: dist-run %s --mesh 2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh grid=8 | FileCheck %s -DN=8

// CHECK: dist-run: @megatron_mlp_shard on [[N]] rank(s), mesh @grid [a0 = [[N]]]
// CHECK-NEXT: result #0 tensor<16x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 1 of 1 result(s) match the serial run
// CHECK-NOT: FAIL

shard.grid @grid(shape = 4)

func.func @megatron_mlp_shard(%x: tensor<16x32xf32>, %w1: tensor<32x64xf32>,
                              %w2: tensor<64x32xf32>, %b: tensor<16x32xf32>)
    -> tensor<16x32xf32> {
  %s1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %w1s = shard.shard %w1 to %s1 annotate_for_users : tensor<32x64xf32>
  %s2 = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %w2s = shard.shard %w2 to %s2 annotate_for_users : tensor<64x32xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x64xf32>
  %h0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = linalg.matmul ins(%x, %w1s : tensor<16x32xf32>, tensor<32x64xf32>)
      outs(%h0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %zeros = arith.constant dense<0.0> : tensor<16x64xf32>
  %a = arith.maximumf %h, %zeros : tensor<16x64xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %o = linalg.matmul ins(%a, %w2s : tensor<16x64xf32>, tensor<64x32xf32>)
      outs(%o0 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %ob = arith.addf %o, %b : tensor<16x32xf32>
  return %ob : tensor<16x32xf32>
}
