// RUN: dist-opt %s --dist-gradient-merge | FileCheck %s
// RUN: dist-opt %s --dist-gradient-merge="k=2 avg=false" | FileCheck %s --check-prefix=SUM
// RUN: dist-opt %s --dist-gradient-merge --dist-data-parallel | FileCheck %s --check-prefix=DP
// RUN: dist-opt %s --dist-gradient-merge --dist-data-parallel --dist-auto-partition --dist-comm-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// An SGD step with a learning-rate schedule that reads a step counter:
// the gradient is accumulated every call; the update (the schedule, the
// counter's increment and the parameter's) runs on every 4th call on the
// mean of the 4 gradients.
dist.mesh @mesh [dp = 2]

// CHECK-LABEL: func.func @sgd_step
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x4xf32> {dist.name = "w", dist.param}
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<f32> {dist.name = "step"}
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x4xf32>
// CHECK-SAME: %[[ACC:[^:]*]]: tensor<4x4xf32> {dist.grad_accumulator_of = 0 : i64, dist.input_fill = 0.000000e+00 : f64, dist.name = "w.grad_accumulator"}
// CHECK-SAME: %[[COUNT:[^:]*]]: tensor<i64> {dist.input_range = array<i64: 0, 1>, dist.name = "gradient_merge.micro_step"}
// CHECK-SAME: -> (tensor<4x4xf32> {dist.name = "w"}, tensor<f32> {dist.name = "step"}, tensor<f32> {dist.name = "loss"},
// CHECK-SAME: tensor<4x4xf32> {dist.grad_accumulator_of = 0 : i64, dist.name = "w.grad_accumulator"}, tensor<i64> {dist.name = "gradient_merge.micro_step"})
// The loss is computed on every call.
// CHECK: %[[LOSS:.*]] = linalg.generic
// CHECK: %[[G:.*]] = linalg.matmul {dist.role = #dist.role<backward>}
// CHECK-NEXT: %[[ACCUMULATED:.*]] = arith.addf %[[ACC]], %[[G]] {dist.role = #dist.role<backward>} : tensor<4x4xf32>
// CHECK: %[[NEXT:.*]] = arith.addi %[[COUNT]], %{{.*}} : tensor<i64>
// CHECK: %[[N:.*]] = tensor.extract %[[NEXT]][] : tensor<i64>
// CHECK: %[[REM:.*]] = arith.remsi %[[N]], %c4_i64 : i64
// CHECK: %[[UPDATE:.*]] = arith.cmpi eq, %[[REM]], %c0_i64 {dist.true_once_every = 4 : i64} : i64
// CHECK: %[[R:.*]]:3 = scf.if %[[UPDATE]] -> (tensor<4x4xf32>, tensor<f32>, tensor<4x4xf32>) {
// The schedule and the counter's increment moved in with the update.
// CHECK: linalg.generic {{.*}} ins(%[[STEP]]
// CHECK: %[[QUARTER:.*]] = arith.constant dense<2.500000e-01> : tensor<4x4xf32>
// CHECK: %[[MERGED:.*]] = arith.mulf %[[ACCUMULATED]], %[[QUARTER]] {dist.grad_of = 0 : i64, dist.role = #dist.role<backward>} : tensor<4x4xf32>
// CHECK: %[[NEWW:.*]] = arith.subf %[[W]], %{{.*}}
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<4x4xf32>
// CHECK: scf.yield %[[NEWW]], %{{.*}}, %[[ZEROS]] : tensor<4x4xf32>, tensor<f32>, tensor<4x4xf32>
// CHECK: } else {
// CHECK: scf.yield %[[W]], %[[STEP]], %[[ACCUMULATED]] : tensor<4x4xf32>, tensor<f32>, tensor<4x4xf32>
// CHECK: }
// CHECK: return %[[R]]#0, %[[R]]#1, %[[LOSS]], %[[R]]#2, %[[NEXT]]

// SUM: arith.remsi %{{.*}}, %c2_i64
// SUM: {dist.true_once_every = 2 : i64}
// SUM: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<4x4xf32>
// SUM: arith.mulf %{{.*}}, %[[ONE]] {dist.grad_of = 0 : i64

// Data parallel: the accumulator is partial over dp (each rank adds its own
// gradients), the merged gradient is pinned (reduced) inside the update.
// DP: dist.name = "w.grad_accumulator", dist.sharding = #dist.sharding<@mesh, [{}, {}], partial = sum{dp}>}, %{{[^:]*}}: tensor<i64> {dist.input_range = array<i64: 0, 1>, dist.name = "gradient_merge.micro_step", dist.sharding = #dist.sharding<@mesh, []>}
// DP: scf.if
// DP: %[[MERGED:.*]] = arith.mulf {{.*}}dist.grad_of = 0
// DP-NEXT: dist.annotate %[[MERGED]] as <@mesh, [{}, {}]>

// The gradient's reduction runs once every 4 calls, the loss's every call.
// REPORT: remark: dist.all_reduce over [dp] (2 ranks): 16 x f32 = 64 B; each rank sends 64 B once every 4 calls
// REPORT: remark: dist.all_reduce over [dp] (2 ranks): 1 x f32 = 4 B; each rank sends 4 B{{$}}
// REPORT: remark: dist-comm-report: 2 collectives; each rank sends 80 B per 4 calls (20.00 B per call); [dp]: 2 collectives, 80 B
#id = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> ()>
#scalar = affine_map<() -> ()>
func.func @sgd_step(%w: tensor<4x4xf32> {dist.param, dist.name = "w"},
                    %step: tensor<f32> {dist.name = "step"},
                    %x: tensor<8x4xf32>)
    -> (tensor<4x4xf32> {dist.name = "w"}, tensor<f32> {dist.name = "step"},
        tensor<f32> {dist.name = "loss"}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul {dist.role = #dist.role<forward>}
      ins(%x, %w : tensor<8x4xf32>, tensor<4x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<8x4xf32>) outs(%z0 : tensor<f32>) attrs = {dist.role = #dist.role<loss>} {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %et = tensor.empty() : tensor<4x8xf32>
  %xt = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) permutation = [1, 0]
  %ones = arith.constant dense<1.0> : tensor<8x4xf32>
  %e4 = tensor.empty() : tensor<4x4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %g = linalg.matmul {dist.grad_of = 0 : i64, dist.role = #dist.role<backward>}
      ins(%xt, %ones : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  // lr = 0.1 / (1 + step)
  %es = tensor.empty() : tensor<f32>
  %lr = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%step : tensor<f32>) outs(%es : tensor<f32>) attrs = {dist.role = #dist.role<lr_sched>} {
  ^bb0(%s: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %base = arith.constant 0.1 : f32
    %d = arith.addf %s, %one : f32
    %r = arith.divf %base, %d : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %lrv = tensor.extract %lr[] : tensor<f32>
  %lrs = tensor.splat %lrv : tensor<4x4xf32>
  %upd = arith.mulf %lrs, %g {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  %w2 = arith.subf %w, %upd {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  %onef = arith.constant dense<1.0> : tensor<f32>
  %step2 = arith.addf %step, %onef {dist.role = #dist.role<optimizer>} : tensor<f32>
  return %w2, %step2, %loss : tensor<4x4xf32>, tensor<f32>, tensor<f32>
}
