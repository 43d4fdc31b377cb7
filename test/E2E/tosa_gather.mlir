// End-to-end: an embedding lookup in TOSA (tosa.gather) with the batch of ids
// split over dp and the table's channels over mp: each rank looks up its ids
// in its columns of the table, no communication until the result is
// returned. Then a sum over the channels (split: a partial sum, reduced).
// On 2, 4 and 8 ranks against the serial run.

// RUN: dist-run %s --mesh 1x2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 2x2 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh 2x4 | FileCheck %s -DN=8

// CHECK: dist-run: @tosa_gather on [[N]] rank(s)
// CHECK-NEXT: result #0 {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 2 of 2 result(s) match the serial run
// CHECK-NOT: FAIL

dist.mesh @m [dp = 2, mp = 2]

func.func @tosa_gather(
    %table: tensor<4x100x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {}, {mp}]>},
    %ids: tensor<4x8xi32> {dist.input_range = array<i64: 0, 100>,
                           dist.sharding = #dist.sharding<@m, [{dp}, {}]>})
    -> (tensor<4x8x16xf32>, tensor<4x8x1xf32>) {
  %rows = tosa.gather %table, %ids : (tensor<4x100x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
  %sum = tosa.reduce_sum %rows {axis = 2 : i32} : (tensor<4x8x16xf32>) -> tensor<4x8x1xf32>
  return %rows, %sum : tensor<4x8x16xf32>, tensor<4x8x1xf32>
}
