// RUN: dist-opt %s --dist-data-parallel | FileCheck %s --check-prefix=UNEVEN
// RUN: dist-opt %s --dist-data-parallel --dist-auto-partition | FileCheck %s --check-prefix=UNEVEN-PART

// Tests that a batch the axis does not divide is split into padded blocks
// (6 rows in 4 blocks of 2): the argument takes the axis; the partitioned
// sum over the rows skips the padding and is reduced over dp.
// UNEVEN-LABEL: func.func @uneven
// UNEVEN-SAME: %{{.*}}: tensor<6x4xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>}
// UNEVEN-PART-LABEL: func.func @uneven
// UNEVEN-PART-SAME: tensor<2x4xf32> {dist.global_shape = array<i64: 6, 4>
// UNEVEN-PART: linalg.reduce
// UNEVEN-PART: dist.all_reduce {{.*}} on @mesh [dp] sum
dist.mesh @mesh [dp = 4]
func.func @uneven(%w: tensor<4xf32> {dist.param},
                  %x: tensor<6x4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %g = linalg.reduce ins(%x : tensor<6x4xf32>) outs(%z : tensor<4xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %gm = arith.mulf %g, %w {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %gm : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
