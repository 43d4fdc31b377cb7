// End-to-end: a per-channel tosa.rescale (i32 -> i8, a multiplier and a
// shift per channel) with the batch split over dp and the channels over mp:
// each rank rescales its channels with its slice of the multipliers and
// shifts (the halves differ, so a wrong slice fails). TOSA's apply_scale is
// lowered by tosa-to-arith. On 2, 4 and 8 ranks against the serial run.

// RUN: dist-run %s --mesh 1x2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 2x2 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh 2x4 | FileCheck %s -DN=8

// CHECK: dist-run: @rescale on [[N]] rank(s)
// CHECK-NEXT: result #0 tensor<8x16xi8> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 1 of 1 result(s) match the serial run
// CHECK-NOT: FAIL

dist.mesh @m [dp = 2, mp = 2]
func.func @rescale(%x: tensor<8x16xi32> {dist.input_range = array<i64: -1000, 1000>,
                                          dist.sharding = #dist.sharding<@m, [{dp}, {mp}]>})
    -> tensor<8x16xi8> {
  %mult = "tosa.const"() {values = dense<[1073741824, 1073741824, 536870912, 536870912, 1073741824, 1073741824, 536870912, 536870912, 1073741824, 1073741824, 536870912, 536870912, 1073741824, 1073741824, 536870912, 536870912]> : tensor<16xi32>} : () -> tensor<16xi32>
  %shift = "tosa.const"() {values = dense<[33, 34, 35, 36, 37, 38, 39, 40, 33, 33, 34, 34, 35, 35, 36, 36]> : tensor<16xi8>} : () -> tensor<16xi8>
  %izp = "tosa.const"() {values = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %ozp = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %r = tosa.rescale %x, %mult, %shift, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<8x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<8x16xi8>
  return %r : tensor<8x16xi8>
}
