// End-to-end: a TOSA convolutional network split spatially (rows of the
// image over sp) as well as by batch (dp): the "same" convolutions
// (conv2d and depthwise_conv2d with padding 1, 1) take halo rows from
// their neighbours instead of gathering the image; the unpadded max pool of
// stride 1 and the valid conv2d take an overlap of their window - 1, which
// their input's plain blocks (of 8 rows, the overlapping ones of 7 + 2)
// also get from one row of each neighbour. The rows are never gathered. On
// 4 and 8 ranks against the serial run.

// RUN: dist-run %s | FileCheck %s -DN=4
// RUN: dist-run %s --mesh 2x4 | FileCheck %s -DN=8
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @spatial on [[N]] rank(s)
// CHECK-NEXT: result #0 {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 1 of 1 result(s) match the serial run

// On 2x2: 16 rows in blocks of 8; each same convolution exchanges one row
// each way and pads only the columns; no all_gather of the image.
// IR-LABEL: func.func @spatial
// IR-SAME: tensor<1x8x12x3xf32>
// IR: dist.permute {{.*}} on @m [sp] {{.*}} : tensor<1x1x12x3xf32>
// IR: dist.permute {{.*}} on @m [sp] {{.*}} : tensor<1x1x12x3xf32>
// IR-NOT: dist.all_gather
// IR: tosa.conv2d {{.*}} pad = array<i64: 0, 0, 1, 1>{{.*}} -> tensor<1x8x12x8xf32>
// IR-NOT: dist.all_gather
// IR: tosa.depthwise_conv2d {{.*}} pad = array<i64: 0, 0, 1, 1>{{.*}} -> tensor<1x8x12x8xf32>
// IR: dist.permute {{.*}} on @m [sp] {{.*}} : tensor<1x1x12x8xf32>
// IR: dist.permute {{.*}} on @m [sp] {{.*}} : tensor<1x1x12x8xf32>
// IR: tosa.max_pool2d {{.*}} : (tensor<1x9x12x8xf32>) -> tensor<1x7x10x8xf32>
// IR-NOT: dist.all_gather
// IR: tosa.conv2d {{.*}} : (tensor<1x8x10x8xf32>, {{.*}} -> tensor<1x6x8x4xf32>
// IR-NOT: dist.all_gather

dist.mesh @m [dp = 2, sp = 2]
func.func @spatial(%x: tensor<2x16x12x3xf32> {dist.sharding = #dist.sharding<@m, [{dp}, {sp}, {}, {}]>},
                   %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>,
                   %wd: tensor<3x3x8x1xf32>, %bd: tensor<8xf32>,
                   %w2: tensor<4x3x3x8xf32>, %b2: tensor<4xf32>)
    -> (tensor<2x12x8x4xf32> {dist.sharding = #dist.sharding<@m, [{dp}, {sp}, {}, {}]>}) {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x16x12x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x12x8xf32>
  %r = tosa.clamp %c {max_val = 3.4e38 : f32, min_val = 0.0 : f32} : (tensor<2x16x12x8xf32>) -> tensor<2x16x12x8xf32>
  %d = tosa.depthwise_conv2d %r, %wd, %bd, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x16x12x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x12x8xf32>
  %p = tosa.max_pool2d %d {kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x16x12x8xf32>) -> tensor<2x14x10x8xf32>
  %v = tosa.conv2d %p, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x14x10x8xf32>, tensor<4x3x3x8xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x12x8x4xf32>
  return %v : tensor<2x12x8x4xf32>
}
