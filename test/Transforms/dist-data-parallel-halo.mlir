// RUN: dist-opt %s --dist-data-parallel | FileCheck %s

// Tests that a batch argument whose other dim carries a halo keeps it when
// the batch dim takes the data-parallel axis.
// CHECK-LABEL: func.func @halo_batch
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {x} halo [1, 1]]>}
dist.mesh @mesh [dp = 2, x = 2]
func.func @halo_batch(%w: tensor<8xf32> {dist.param},
                      %b: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {x} halo [1, 1]]>})
    -> (tensor<8xf32> {dist.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %g = linalg.reduce ins(%b : tensor<8x8xf32>) outs(%z : tensor<8xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %gm = arith.mulf %g, %w {dist.grad_of = 0 : i64} : tensor<8xf32>
  %w2 = arith.subf %w, %gm : tensor<8xf32>
  return %w2 : tensor<8xf32>
}
