// End-to-end: a TOSA program partitioned by dist's TOSA sharding rules and
// lowered through tosa-to-linalg, on 2, 4 and 8 ranks against the serial run.
// The batch of x is split over dp and the Megatron MLP over mp (w1 by
// columns, w2 by rows: one sum all_reduce); a reshape merges the unit batch
// dim; the row statistics reduce over the split feature dim (sum, max, min,
// product: partial results of each kind); the scores above their row's mean
// are selected, and where they are cast to integers.

// RUN: dist-run %s --mesh 1x2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 2x2 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh 2x4 | FileCheck %s -DN=8

// CHECK: dist-run: @tosa_mlp on [[N]] rank(s)
// CHECK-COUNT-7: result #{{[0-9]}} {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 7 of 7 result(s) match the serial run
// CHECK-NOT: FAIL

dist.mesh @m [dp = 2, mp = 2]

func.func @tosa_mlp(
    %x: tensor<1x16x32xf32> {dist.sharding = #dist.sharding<@m, [{}, {dp}, {}]>},
    %w1: tensor<1x32x64xf32> {dist.sharding = #dist.sharding<@m, [{}, {}, {mp}]>},
    %w2: tensor<1x64x32xf32> {dist.sharding = #dist.sharding<@m, [{}, {mp}, {}]>},
    %bias: tensor<1x1x32xf32>)
    -> (tensor<16x32xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>,
        tensor<16x1xf32>, tensor<16x32xf32>, tensor<16x32xi32>) {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %h = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x16x32xf32>, tensor<1x32x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x64xf32>
  %s = tosa.sigmoid %h : (tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  %g = tosa.mul %h, %s, %shift : (tensor<1x16x64xf32>, tensor<1x16x64xf32>, tensor<1xi8>) -> tensor<1x16x64xf32>
  %o = tosa.matmul %g, %w2, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x32xf32>
  %n = tosa.negate %o, %zp, %zp : (tensor<1x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x32xf32>
  %a = tosa.add %n, %bias : (tensor<1x16x32xf32>, tensor<1x1x32xf32>) -> tensor<1x16x32xf32>
  %shape = tosa.const_shape {values = dense<[16, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %shape : (tensor<1x16x32xf32>, !tosa.shape<2>) -> tensor<16x32xf32>
  // Statistics over the feature dim, split over mp.
  %rs = dist.annotate %r as <@m, [{dp}, {mp}]> : tensor<16x32xf32>
  %sum = tosa.reduce_sum %rs {axis = 1 : i32} : (tensor<16x32xf32>) -> tensor<16x1xf32>
  %max = tosa.reduce_max %rs {axis = 1 : i32} : (tensor<16x32xf32>) -> tensor<16x1xf32>
  %min = tosa.reduce_min %rs {axis = 1 : i32} : (tensor<16x32xf32>) -> tensor<16x1xf32>
  %t = tosa.tanh %rs : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %one = "tosa.const"() {values = dense<1.0> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %tenth = "tosa.const"() {values = dense<0.1> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %t1 = tosa.mul %t, %tenth, %shift : (tensor<16x32xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<16x32xf32>
  %p1 = tosa.add %t1, %one : (tensor<16x32xf32>, tensor<1x1xf32>) -> tensor<16x32xf32>
  %prod = tosa.reduce_product %p1 {axis = 1 : i32} : (tensor<16x32xf32>) -> tensor<16x1xf32>
  // Above-average scores and where they are.
  %inv = "tosa.const"() {values = dense<0.03125> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %mean = tosa.mul %sum, %inv, %shift : (tensor<16x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<16x1xf32>
  %above = tosa.greater %rs, %mean : (tensor<16x32xf32>, tensor<16x1xf32>) -> tensor<16x32xi1>
  %zero = "tosa.const"() {values = dense<0.0> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %kept = tosa.select %above, %rs, %zero : (tensor<16x32xi1>, tensor<16x32xf32>, tensor<1x1xf32>) -> tensor<16x32xf32>
  %where = tosa.cast %above : (tensor<16x32xi1>) -> tensor<16x32xi32>
  return %r, %sum, %max, %min, %prod, %kept, %where
      : tensor<16x32xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>,
        tensor<16x1xf32>, tensor<16x32xf32>, tensor<16x32xi32>
}
