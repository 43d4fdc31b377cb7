// End-to-end: embedding lookups in TOSA (tosa.gather) with the batch of ids
// split over dp. @tosa_gather: the table's channels split over mp, each rank
// looks up its ids in its columns (no communication), then a sum over the
// split channels (a partial sum, reduced). @tosa_vocab_parallel: the table's
// rows (the vocabulary of 100) split over mp: each rank looks up the ids in
// its rows and yields zeros for the others, one all_reduce. On 2, 4 and 8
// ranks against the serial run.

// RUN: dist-run %s --entry tosa_gather --mesh 1x2 | FileCheck %s -DN=2
// RUN: dist-run %s --entry tosa_gather --mesh 2x2 | FileCheck %s -DN=4
// RUN: dist-run %s --entry tosa_gather --mesh 2x4 | FileCheck %s -DN=8
// RUN: dist-run %s --entry tosa_vocab_parallel --mesh 1x2 | FileCheck %s --check-prefix=VOCAB -DN=2
// RUN: dist-run %s --entry tosa_vocab_parallel --mesh 2x2 | FileCheck %s --check-prefix=VOCAB -DN=4
// RUN: dist-run %s --entry tosa_vocab_parallel --mesh 2x4 | FileCheck %s --check-prefix=VOCAB -DN=8
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @tosa_gather on [[N]] rank(s)
// CHECK-NEXT: result #0 {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 2 of 2 result(s) match the serial run
// CHECK-NOT: FAIL

// VOCAB: dist-run: @tosa_vocab_parallel on [[N]] rank(s)
// VOCAB-NEXT: result #0 {{.*}}: PASS{{$}}
// VOCAB-NEXT: PASS: 1 of 1 result(s) match the serial run

// IR-LABEL: func.func @tosa_vocab_parallel
// IR-SAME: tensor<4x50x16xf32>
// IR: arith.subi
// IR: arith.cmpi ult
// IR: %[[ROWS:.*]] = tosa.gather {{.*}} : (tensor<2x50x16xf32>, tensor<2x8xi32>) -> tensor<2x8x16xf32>
// IR: %[[MASKED:.*]] = tosa.select {{.*}}, %[[ROWS]]
// IR: dist.all_reduce %[[MASKED]] on @m [mp] sum

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

func.func @tosa_vocab_parallel(
    %table: tensor<4x100x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {mp}, {}]>},
    %ids: tensor<4x8xi32> {dist.input_range = array<i64: 0, 100>,
                           dist.sharding = #dist.sharding<@m, [{dp}, {}]>})
    -> tensor<4x8x16xf32> {
  %rows = tosa.gather %table, %ids : (tensor<4x100x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
  return %rows : tensor<4x8x16xf32>
}
