// RUN: dist-opt %s --dist-data-parallel | FileCheck %s
// RUN: dist-opt %s --dist-data-parallel="axis=dp num-comms=2" | FileCheck %s --check-prefix=COMMS
// RUN: dist-opt %s --dist-data-parallel --dist-auto-partition | FileCheck %s --check-prefix=PART

// A momentum step on a 2-D mesh whose weight is already split over mp
// (Megatron): the batch (x, dy) is split over dp, the weight, its velocity
// and the learning rate stay as they are (replicated over dp), and each
// gradient is pinned to its parameter's layout where backward makes it.
dist.mesh @mesh [dp = 2, mp = 2]

// CHECK-LABEL: func.func @momentum_step
// CHECK-SAME: %[[W:.*]]: tensor<4x4xf32> {dist.name = "w", dist.param, dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>}
// CHECK-SAME: %[[B:.*]]: tensor<4xf32> {dist.name = "b", dist.param, dist.sharding = #dist.sharding<@mesh, [{}]>}
// CHECK-SAME: %[[V:.*]]: tensor<4x4xf32> {dist.name = "w.velocity", dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>, dist.state_of = 0 : i64}
// CHECK-SAME: %[[X:.*]]: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>}
// CHECK-SAME: %[[DY:.*]]: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {mp}]>}
// CHECK-SAME: %[[LR:.*]]: f32)
// CHECK-SAME: -> (tensor<4x4xf32> {dist.name = "w", dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>}
// CHECK-SAME: tensor<4xf32> {dist.name = "b", dist.sharding = #dist.sharding<@mesh, [{}]>}
// CHECK-SAME: tensor<4x4xf32> {dist.name = "w.velocity", dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>, dist.state_of = 0 : i64})
// CHECK: %[[G:.*]] = linalg.matmul {dist.grad_of = 0 : i64, dist.role = #dist.role<backward>}
// CHECK-NEXT: %[[GR:.*]] = dist.annotate %[[G]] as <@mesh, [{}, {mp}]> {dist.role = #dist.role<backward>} : tensor<4x4xf32>
// CHECK: %[[GB:.*]] = linalg.generic {{.*}} attrs = {dist.grad_of = 1 : i64, dist.role = #dist.role<backward>}
// CHECK: %[[GBR:.*]] = dist.annotate %[[GB]] as <@mesh, [{}]> {dist.role = #dist.role<backward>} : tensor<4xf32>
// CHECK: arith.addf %[[V]], %[[GR]]
// CHECK: %[[LRB:.*]] = tensor.splat %[[LR]]
// CHECK: arith.mulf %[[LRB]], %[[GBR]]

// The second gradient's reduction takes the second communicator.
// COMMS: dist.annotate %{{.*}} as <@mesh, [{}, {mp}]> {dist.role
// COMMS: dist.annotate %{{.*}} as <@mesh, [{}]> comm = 1 {dist.role

// One reduction per gradient, over dp, right after backward makes it.
// PART-LABEL: func.func @momentum_step
// PART: linalg.matmul {dist.grad_of = 0 : i64
// PART-NEXT: dist.all_reduce %{{.*}} on @mesh [dp] sum {dist.role = #dist.role<backward>, origin = #dist.origin<partial>} : tensor<4x2xf32>
// The bias gradient is split over mp like dy: reduced over dp, then gathered
// over mp to the bias's replicated layout.
// PART: dist.all_reduce %{{.*}} on @mesh [dp] sum {dist.role = #dist.role<backward>, origin = #dist.origin<partial>} : tensor<2xf32>
// PART-NEXT: dist.all_gather
// PART-NOT: dist.all_reduce
// PART: return
func.func @momentum_step(
    %w: tensor<4x4xf32> {dist.param, dist.name = "w", dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>},
    %b: tensor<4xf32> {dist.param, dist.name = "b"},
    %v: tensor<4x4xf32> {dist.state_of = 0 : i64, dist.name = "w.velocity", dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>},
    %x: tensor<8x4xf32>,
    %dy: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>},
    %lr: f32)
    -> (tensor<4x4xf32> {dist.name = "w"}, tensor<4xf32> {dist.name = "b"},
        tensor<4x4xf32> {dist.state_of = 0 : i64, dist.name = "w.velocity"}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %xt = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) permutation = [1, 0]
  %g = linalg.matmul {dist.grad_of = 0 : i64, dist.role = #dist.role<backward>}
      ins(%xt, %dy : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %gb = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                        iterator_types = ["reduction", "parallel"]}
      ins(%dy : tensor<8x4xf32>) outs(%z4 : tensor<4xf32>)
      attrs = {dist.grad_of = 1 : i64, dist.role = #dist.role<backward>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %v2 = arith.addf %v, %g {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  %w2 = arith.subf %w, %v2 {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  %lrs = tensor.splat %lr : tensor<4xf32>
  %step = arith.mulf %lrs, %gb {dist.role = #dist.role<optimizer>} : tensor<4xf32>
  %b2 = arith.subf %b, %step {dist.role = #dist.role<optimizer>} : tensor<4xf32>
  return %w2, %b2, %v2 : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>
}

