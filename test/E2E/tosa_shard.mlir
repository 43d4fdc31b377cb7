// End-to-end: TOSA ops annotated with upstream's shard dialect, as upstream's
// own shard tests write them (shard.grid, shard.shard of the operands for
// their users): a batched tosa.matmul split along the shared dim (a partial
// sum), then elementwise ops with a broadcast operand and a reduction. dist
// imports the annotations, partitions the TOSA ops by their rules, and the
// result must match the serial run on 2, 4 and 8 ranks.

// RUN: dist-run %s --mesh 2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh grid=8 | FileCheck %s -DN=8

// CHECK: dist-run: @tosa_shard on [[N]] rank(s), mesh @grid [a0 = [[N]]]
// CHECK-NEXT: result #0 {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 2 of 2 result(s) match the serial run
// CHECK-NOT: FAIL

shard.grid @grid(shape = 4)

func.func @tosa_shard(%a: tensor<2x8x32xf32>, %b: tensor<2x32x16xf32>,
                      %bias: tensor<1x1x16xf32>)
    -> (tensor<2x8x16xf32>, tensor<2x8x1xf32>) {
  %sa = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %a_s = shard.shard %a to %sa annotate_for_users : tensor<2x8x32xf32>
  %sb = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %b_s = shard.shard %b to %sb annotate_for_users : tensor<2x32x16xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %m = tosa.matmul %a_s, %b_s, %zp, %zp : (tensor<2x8x32xf32>, tensor<2x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x16xf32>
  %y = tosa.add %m, %bias : (tensor<2x8x16xf32>, tensor<1x1x16xf32>) -> tensor<2x8x16xf32>
  %sy = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %y_s = shard.shard %y to %sy : tensor<2x8x16xf32>
  %e = tosa.exp %y_s : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
  return %y_s, %r : tensor<2x8x16xf32>, tensor<2x8x1xf32>
}
