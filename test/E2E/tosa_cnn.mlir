// End-to-end: a small convolutional network in TOSA (conv2d, clamp,
// depthwise_conv2d, max_pool2d, avg_pool2d, reshape, slice, pad, tile,
// concat, argmax), data parallel over dp (the batch of x) and with the
// convolution's output channels split over mp (w by rows): batch and
// channels stay split through the depthwise convolution (its channels, with
// its multiplier whole) and the poolings, and the flattening reshape
// (channels are its minor dims) gathers them. On 2, 4 and 8 ranks against the serial run.

// RUN: dist-run %s --mesh 1x2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 2x2 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh 4x2 | FileCheck %s -DN=8

// CHECK: dist-run: @cnn on [[N]] rank(s)
// CHECK-NEXT: result #0 {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 2 of 2 result(s) match the serial run
// CHECK-NOT: FAIL

dist.mesh @m [dp = 2, mp = 2]
func.func @cnn(%x: tensor<4x8x8x3xf32> {dist.sharding = #dist.sharding<@m, [{dp}, {}, {}, {}]>},
               %w: tensor<8x3x3x3xf32> {dist.sharding = #dist.sharding<@m, [{mp}, {}, {}, {}]>},
               %b: tensor<8xf32>, %wd: tensor<3x3x8x2xf32>, %bd: tensor<16xf32>)
    -> (tensor<4x10xf32>, tensor<4xi32>) {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<4x8x8x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8x8xf32>
  %r = tosa.clamp %c {max_val = 3.4e38 : f32, min_val = 0.0 : f32} : (tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  %d = tosa.depthwise_conv2d %r, %wd, %bd, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<4x8x8x8xf32>, tensor<3x3x8x2xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8x16xf32>
  %p = tosa.max_pool2d %d {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<4x8x8x16xf32>) -> tensor<4x4x4x16xf32>
  %a = tosa.avg_pool2d %p, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<4x4x4x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x2x2x16xf32>
  %s1 = tosa.const_shape {values = dense<[4, 64]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %f = tosa.reshape %a, %s1 : (tensor<4x2x2x16xf32>, !tosa.shape<2>) -> tensor<4x64xf32>
  %st = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sz = tosa.const_shape {values = dense<[4, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %head = tosa.slice %f, %st, %sz : (tensor<4x64xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<4x8xf32>
  %pads = tosa.const_shape {values = dense<[0, 0, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %pc = "tosa.const"() {values = dense<0.5> : tensor<1xf32>} : () -> tensor<1xf32>
  %padded = tosa.pad %head, %pads, %pc : (tensor<4x8xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<4x10xf32>
  %mult = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %t = tosa.tile %head, %mult : (tensor<4x8xf32>, !tosa.shape<2>) -> tensor<4x16xf32>
  %cat = tosa.concat %padded, %head {axis = 1 : i32} : (tensor<4x10xf32>, tensor<4x8xf32>) -> tensor<4x18xf32>
  %am = tosa.argmax %t {axis = 1 : i32} : (tensor<4x16xf32>) -> tensor<4xi32>
  %s2 = tosa.const_shape {values = dense<[0, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sz2 = tosa.const_shape {values = dense<[4, 10]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %out = tosa.slice %cat, %s2, %sz2 : (tensor<4x18xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<4x10xf32>
  return %out, %am : tensor<4x10xf32>, tensor<4xi32>
}
