// End-to-end: a 2-D heat step, u + 0.1 * laplacian(u) with zero boundaries,
// applied twice: linalg.conv_2d on the zero-padded grid, split over both
// axes of a 2x2 (and 2x4) mesh. Each step exchanges one row with the
// neighbours along a, then one column along b of the extended block (which
// carries the corners): four dist.permutes a step, no gather. Must match
// the serial run.

// RUN: dist-run %s --entry heat_2d | FileCheck %s -DN=4
// RUN: dist-run %s --entry heat_2d --mesh 2x4 | FileCheck %s -DN=8
// RUN: dist-run %s --entry padded_and_halo --mesh 4x2 | FileCheck %s --check-prefix=MIXED
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @heat_2d on [[N]] rank(s)
// CHECK-NEXT: result #0 {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 1 of 1 result(s) match the serial run

// A result with a padded dim (10 rows in 4 blocks of 3) beside a dim with a
// halo: dist.global_shape gives the global shape, and the halo's blocks
// (16 columns in 2 blocks of 8, plus 1 + 1) check against it.
// MIXED: PASS: 1 of 1 result(s) match the serial run

// IR-LABEL: func.func @heat_2d(
// IR-SAME: tensor<4x6xf32>
// IR: scf.for
// IR: dist.permute {{.*}} on @m2 [a] {{.*}} : tensor<1x6xf32>
// IR: dist.permute {{.*}} on @m2 [a] {{.*}} : tensor<1x6xf32>
// IR: tensor.concat dim(0) {{.*}} -> tensor<6x6xf32>
// IR: dist.permute {{.*}} on @m2 [b] {{.*}} : tensor<6x1xf32>
// IR: dist.permute {{.*}} on @m2 [b] {{.*}} : tensor<6x1xf32>
// IR: %[[P:.*]] = tensor.concat dim(1) {{.*}} -> tensor<6x8xf32>
// IR-NOT: dist.all_gather
// IR: linalg.conv_2d ins(%[[P]], {{.*}} : tensor<6x8xf32>, tensor<3x3xf32>) outs({{.*}} : tensor<4x6xf32>)
// IR-NOT: dist.
// IR: scf.yield

dist.mesh @m2 [a = 2, b = 2]

// u + 0.1 * laplacian(u), twice, with zero boundaries.
func.func @heat_2d(%u0: tensor<8x12xf32> {dist.sharding = #dist.sharding<@m2, [{a}, {b}]>})
    -> (tensor<8x12xf32> {dist.sharding = #dist.sharding<@m2, [{a}, {b}]>}) {
  %zero = arith.constant 0.0 : f32
  %lap = arith.constant dense<[[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]]> : tensor<3x3xf32>
  %dt = arith.constant dense<0.1> : tensor<8x12xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %u2 = scf.for %step = %c0 to %c2 step %c1 iter_args(%u = %u0) -> tensor<8x12xf32> {
    %p = tensor.pad %u low[1, 1] high[1, 1] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<8x12xf32> to tensor<10x14xf32>
    %init = tensor.empty() : tensor<8x12xf32>
    %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<8x12xf32>) -> tensor<8x12xf32>
    %l = linalg.conv_2d ins(%p, %lap : tensor<10x14xf32>, tensor<3x3xf32>)
        outs(%fill : tensor<8x12xf32>) -> tensor<8x12xf32>
    %d = arith.mulf %l, %dt : tensor<8x12xf32>
    %next = arith.addf %u, %d : tensor<8x12xf32>
    scf.yield %next : tensor<8x12xf32>
  }
  return %u2 : tensor<8x12xf32>
}

func.func @padded_and_halo(%a: tensor<10x16xf32> {dist.sharding = #dist.sharding<@m2, [{a}, {b}]>})
    -> (tensor<10x16xf32> {dist.sharding = #dist.sharding<@m2, [{a}, {b} halo [1, 1]]>}) {
  %e = math.exp %a : tensor<10x16xf32>
  return %e : tensor<10x16xf32>
}
