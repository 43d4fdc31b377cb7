// End-to-end: the TOSA MLP of tosa_mlp.mlir with dims the meshes do not
// divide: a batch of 10 over dp, a hidden width of 50 over mp (the second
// matmul contracts it: its operands' padding is masked to zeros), and row
// statistics over 30 features split over mp (reduce_sum/max/min/product
// and a linalg.reduce of a max: the padding is masked with each reduction's
// identity). Must match the serial run on 1x3, 3x2 and 2x4 meshes.

// RUN: dist-run %s --mesh 1x3 | FileCheck %s -DN=3
// RUN: dist-run %s --mesh 3x2 | FileCheck %s -DN=6
// RUN: dist-run %s --mesh 2x4 | FileCheck %s -DN=8
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @tosa_uneven on [[N]] rank(s)
// CHECK-COUNT-8: result #{{[0-9]}} {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 8 of 8 result(s) match the serial run
// CHECK-NOT: FAIL

// The IR on the 2x4 mesh: 50 hidden in blocks of 13, 30 features in blocks
// of 8; the contraction's operands and each reduction's input are masked
// with the reduction's identity (0, -inf, +inf, 1), the sum of the second
// matmul is padded to 32 columns and reduce-scattered.
// IR-LABEL: func.func @tosa_uneven
// IR: tosa.matmul {{.*}} -> tensor<1x5x13xf32>
// IR: %[[MASK_H:.*]] = tensor.generate
// IR: %[[H:.*]] = arith.select %[[MASK_H]], {{.*}} : tensor<1x5x13xi1>, tensor<1x5x13xf32>
// IR: %[[MASK_W:.*]] = tensor.generate
// IR: %[[W:.*]] = arith.select %[[MASK_W]], {{.*}} : tensor<1x13x30xi1>, tensor<1x13x30xf32>
// IR-NEXT: tosa.matmul %[[H]], %[[W]]
// IR: tensor.pad {{.*}} high[0, 0, 2]
// IR: dist.reduce_scatter {{.*}} : tensor<1x5x32xf32> -> tensor<1x5x8xf32>
// IR: %[[MASK:.*]] = tensor.generate
// IR: %[[S:.*]] = arith.select %[[MASK]], %{{.*}}, %cst{{.*}} : tensor<5x8xi1>, tensor<5x8xf32>
// IR-NEXT: tosa.reduce_sum %[[S]]
// IR-NEXT: %[[M:.*]] = arith.select %[[MASK]]
// IR-NEXT: tosa.reduce_max %[[M]]
// IR: linalg.reduce ins(%[[M]]
// IR: dist.all_reduce {{.*}} max

dist.mesh @m [dp = 2, mp = 4]

func.func @tosa_uneven(
    %x: tensor<1x10x30xf32> {dist.sharding = #dist.sharding<@m, [{}, {dp}, {}]>},
    %w1: tensor<1x30x50xf32> {dist.sharding = #dist.sharding<@m, [{}, {}, {mp}]>},
    %w2: tensor<1x50x30xf32> {dist.sharding = #dist.sharding<@m, [{}, {mp}, {}]>},
    %bias: tensor<1x1x30xf32>)
    -> (tensor<10x30xf32>, tensor<10x1xf32>, tensor<10x1xf32>, tensor<10x1xf32>,
        tensor<10x1xf32>, tensor<10x30xf32>, tensor<10x30xi32>, tensor<10xf32>) {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %h = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x10x30xf32>, tensor<1x30x50xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x10x50xf32>
  %s = tosa.sigmoid %h : (tensor<1x10x50xf32>) -> tensor<1x10x50xf32>
  %g = tosa.mul %h, %s, %shift : (tensor<1x10x50xf32>, tensor<1x10x50xf32>, tensor<1xi8>) -> tensor<1x10x50xf32>
  %o = tosa.matmul %g, %w2, %zp, %zp : (tensor<1x10x50xf32>, tensor<1x50x30xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x10x30xf32>
  %n = tosa.negate %o, %zp, %zp : (tensor<1x10x30xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x10x30xf32>
  %a = tosa.add %n, %bias : (tensor<1x10x30xf32>, tensor<1x1x30xf32>) -> tensor<1x10x30xf32>
  %shape = tosa.const_shape {values = dense<[10, 30]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %shape : (tensor<1x10x30xf32>, !tosa.shape<2>) -> tensor<10x30xf32>
  // Statistics over the feature dim, split over mp.
  %rs = dist.annotate %r as <@m, [{dp}, {mp}]> : tensor<10x30xf32>
  %sum = tosa.reduce_sum %rs {axis = 1 : i32} : (tensor<10x30xf32>) -> tensor<10x1xf32>
  %max = tosa.reduce_max %rs {axis = 1 : i32} : (tensor<10x30xf32>) -> tensor<10x1xf32>
  %min = tosa.reduce_min %rs {axis = 1 : i32} : (tensor<10x30xf32>) -> tensor<10x1xf32>
  %t = tosa.tanh %rs : (tensor<10x30xf32>) -> tensor<10x30xf32>
  %one = "tosa.const"() {values = dense<1.0> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %tenth = "tosa.const"() {values = dense<0.1> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %t1 = tosa.mul %t, %tenth, %shift : (tensor<10x30xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<10x30xf32>
  %p1 = tosa.add %t1, %one : (tensor<10x30xf32>, tensor<1x1xf32>) -> tensor<10x30xf32>
  %prod = tosa.reduce_product %p1 {axis = 1 : i32} : (tensor<10x30xf32>) -> tensor<10x1xf32>
  // Above-average scores and where they are.
  %inv = "tosa.const"() {values = dense<0.0333333333> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %mean = tosa.mul %sum, %inv, %shift : (tensor<10x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<10x1xf32>
  %above = tosa.greater %rs, %mean : (tensor<10x30xf32>, tensor<10x1xf32>) -> tensor<10x30xi1>
  %zero = "tosa.const"() {values = dense<0.0> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %kept = tosa.select %above, %rs, %zero : (tensor<10x30xi1>, tensor<10x30xf32>, tensor<1x1xf32>) -> tensor<10x30xf32>
  %where = tosa.cast %above : (tensor<10x30xi1>) -> tensor<10x30xi32>
  // The same max as a linalg.reduce (a named op: its operand is masked).
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<10xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<10xf32>) -> tensor<10xf32>
  %lmax = linalg.reduce ins(%rs : tensor<10x30xf32>) outs(%init : tensor<10xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %r, %sum, %max, %min, %prod, %kept, %where, %lmax
      : tensor<10x30xf32>, tensor<10x1xf32>, tensor<10x1xf32>, tensor<10x1xf32>,
        tensor<10x1xf32>, tensor<10x30xf32>, tensor<10x30xi32>, tensor<10xf32>
}
