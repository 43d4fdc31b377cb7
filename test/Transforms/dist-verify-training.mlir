// RUN: dist-opt %s --dist-verify | FileCheck %s
// RUN: dist-opt %s --dist-propagate --dist-partition --dist-verify=phase=partitioned | FileCheck %s --check-prefix=PART

// Tests that the markings of a training step pass dist-verify and are kept:
// a parameter (dist.param), its gradient (dist.grad_of on the op that makes
// it, the seeds' op_role_var) and its optimizer state (dist.state_of on the
// argument and on the result that updates it), before and after
// partitioning.
dist.mesh @mesh_2 [dp = 2]
// CHECK-LABEL: func.func @momentum_step
// CHECK-SAME: dist.param
// CHECK-SAME: dist.state_of = 0 : i64
// CHECK: dist.grad_of = 0 : i64
// PART-LABEL: func.func @momentum_step
// PART: dist.grad_of = 0 : i64
// PART: dist.all_reduce
func.func @momentum_step(
    %w: tensor<4x4xf32> {dist.param, dist.name = "w"},
    %v: tensor<4x4xf32> {dist.state_of = 0 : i64, dist.name = "w.velocity"},
    %x: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
    %dy: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>})
    -> (tensor<4x4xf32> {dist.name = "w"},
        tensor<4x4xf32> {dist.state_of = 0 : i64, dist.name = "w.velocity"}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %xt = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) permutation = [1, 0]
  %g = linalg.matmul {dist.grad_of = 0 : i64, dist.role = #dist.role<backward>}
      ins(%xt, %dy : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %v2 = arith.addf %v, %g {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  %w2 = arith.subf %w, %v2 {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  return %w2, %v2 : tensor<4x4xf32>, tensor<4x4xf32>
}
