// RUN: dist-opt %s --dist-data-parallel --dist-auto-partition --dist-local-sgd | FileCheck %s
// RUN: dist-opt %s --dist-data-parallel --dist-auto-partition --dist-local-sgd=k=1 | FileCheck %s --check-prefix=K1

// An SGD step made data parallel on 4 ranks, then LocalSGD with k = 4: the
// gradient is no longer all-reduced (each rank scales its share by 4, its
// mean over its own batch), and every 4th call the parameter is averaged
// through its delta against the snapshot.
dist.mesh @mesh [dp = 4]

// CHECK-LABEL: func.func @sgd_step
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x4xf32> {dist.name = "w", dist.param, dist.partitioned_as = #dist.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: %[[SNAP:[^:]*]]: tensor<4x4xf32> {dist.input_fill = 0.000000e+00 : f64, dist.name = "w.local_sgd_snapshot", dist.partitioned_as = #dist.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: %[[COUNT:[^:]*]]: tensor<i64> {dist.input_range = array<i64: 0, 1>, dist.name = "local_sgd.step"}
// CHECK-SAME: -> (tensor<4x4xf32> {dist.name = "w", dist.partitioned_as = #dist.sharding<@mesh, [{}, {}]>},
// CHECK-SAME: tensor<4x4xf32> {dist.name = "w.local_sgd_snapshot", dist.partitioned_as = #dist.sharding<@mesh, [{}, {}]>}, tensor<i64> {dist.name = "local_sgd.step"})
// CHECK: %[[G:.*]] = linalg.matmul {dist.grad_of = 0 : i64
// CHECK: %[[LOCAL:.*]] = arith.mulf %[[G]], %{{.*}} {dist.role = #dist.role<backward>} : tensor<4x4xf32>
// CHECK-NOT: dist.all_reduce
// CHECK: %[[W2:.*]] = arith.subf %[[W]], %{{.*}}
// The first call takes the snapshot from the parameter.
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0_i64 : i64
// CHECK: %[[SNAPSHOT:.*]] = arith.select %[[FIRST]], %[[W]], %[[SNAP]] : tensor<4x4xf32>
// CHECK: %[[NEXT:.*]] = arith.addi %[[COUNT]]
// CHECK: %[[SYNC:.*]] = arith.cmpi eq, %{{.*}}, %c0_i64{{[_0-9]*}} {dist.true_once_every = 4 : i64} : i64
// CHECK: %[[R:.*]]:2 = scf.if %[[SYNC]] -> (tensor<4x4xf32>, tensor<4x4xf32>) {
// CHECK:   %[[DELTA:.*]] = arith.subf %[[SNAPSHOT]], %[[W2]] {dist.role = #dist.role<optimizer>}
// CHECK:   %[[SUM:.*]] = dist.all_reduce %[[DELTA]] on @mesh [dp] sum {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
// CHECK:   %[[MEAN:.*]] = arith.mulf %[[SUM]], %{{.*}} {dist.role = #dist.role<optimizer>}
// CHECK:   %[[AVG:.*]] = arith.subf %[[SNAPSHOT]], %[[MEAN]] {dist.role = #dist.role<optimizer>}
// CHECK:   scf.yield %[[AVG]], %[[AVG]]
// CHECK: } else {
// CHECK:   scf.yield %[[W2]], %[[SNAPSHOT]]
// CHECK: return %[[R]]#0, %[[R]]#1, %[[NEXT]]

// K1: arith.remsi %{{.*}}, %c1_i64
// K1: {dist.true_once_every = 1 : i64}
func.func @sgd_step(%w: tensor<4x4xf32> {dist.param, dist.name = "w"}, %x: tensor<8x4xf32>)
    -> (tensor<4x4xf32> {dist.name = "w"}) {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<4x8xf32>
  %xt = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %g = linalg.matmul {dist.grad_of = 0 : i64, dist.role = #dist.role<backward>}
      ins(%xt, %x : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %lr = arith.constant dense<0.1> : tensor<4x4xf32>
  %u = arith.mulf %g, %lr {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  %w2 = arith.subf %w, %u {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  return %w2 : tensor<4x4xf32>
}
