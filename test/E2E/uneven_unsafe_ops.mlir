// End-to-end: ops that trap or read out of bounds on some values, on padded
// blocks (whose padding holds zeros or anything computed from them). Found
// by review: each crashed a rank before the fix.
//   - integer division and remainder (arith.divsi, arith.remsi, tosa.intdiv)
//     by a divisor in padded blocks: the padding would divide by zero, so
//     these ops never compute on padded blocks (ShardingRule::padsSafely);
//   - lookups (tensor.gather, tosa.gather) whose ids are computed on padded
//     blocks (x - 999990 is -999990 in the padding): the padded ids are
//     masked to 0 before the lookup.
// Must match the serial run on 3 and 4 ranks (6 rows: blocks of 2, the last
// rank's all padding on 4 ranks).

// RUN: dist-run %s --mesh 3 | FileCheck %s -DN=3
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4

// CHECK: dist-run: @uneven_unsafe_ops on [[N]] rank(s)
// CHECK-COUNT-5: : PASS{{$}}
// CHECK-NEXT: PASS: 5 of 5 result(s) match the serial run
// CHECK-NOT: FAIL

dist.mesh @mesh [mp = 4]

func.func @uneven_unsafe_ops(
    %a: tensor<6x4xi32> {dist.input_range = array<i64: 1, 10>, dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
    %b: tensor<6x4xi32> {dist.input_range = array<i64: 1, 10>, dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
    %x: tensor<6x1xindex> {dist.input_range = array<i64: 999990, 1000000>, dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
    %xi: tensor<1x6xi32> {dist.input_range = array<i64: 999990, 1000000>, dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>},
    %table: tensor<11x8xf32>, %values: tensor<1x11x8xf32>)
    -> (tensor<6x4xi32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
        tensor<6x4xi32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
        tensor<6x4xi32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
        tensor<6x8xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
        tensor<1x6x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}, {}]>}) {
  %div = arith.divsi %a, %b : tensor<6x4xi32>
  %rem = arith.remsi %a, %b : tensor<6x4xi32>
  %tdiv = tosa.intdiv %a, %b : (tensor<6x4xi32>, tensor<6x4xi32>) -> tensor<6x4xi32>
  %s = arith.constant 999990 : index
  %e = tensor.empty() : tensor<6x1xindex>
  %c = linalg.fill ins(%s : index) outs(%e : tensor<6x1xindex>) -> tensor<6x1xindex>
  %ids = arith.subi %x, %c : tensor<6x1xindex>
  %rows = tensor.gather %table[%ids] gather_dims([0]) : (tensor<11x8xf32>, tensor<6x1xindex>) -> tensor<6x8xf32>
  %si = arith.constant 999990 : i32
  %ei = tensor.empty() : tensor<1x6xi32>
  %ci = linalg.fill ins(%si : i32) outs(%ei : tensor<1x6xi32>) -> tensor<1x6xi32>
  %idsi = arith.subi %xi, %ci : tensor<1x6xi32>
  %trows = tosa.gather %values, %idsi : (tensor<1x11x8xf32>, tensor<1x6xi32>) -> tensor<1x6x8xf32>
  return %div, %rem, %tdiv, %rows, %trows
      : tensor<6x4xi32>, tensor<6x4xi32>, tensor<6x4xi32>, tensor<6x8xf32>, tensor<1x6x8xf32>
}
