// RUN: dist-opt %s --dist-data-parallel --dist-sharding | FileCheck %s
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="stage=1" | FileCheck %s --check-prefix=STAGE1
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="stage=3" | FileCheck %s --check-prefix=STAGE3
// RUN: dist-opt %s --dist-data-parallel --dist-sharding --dist-auto-partition | FileCheck %s --check-prefix=PART
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="stage=1" --dist-auto-partition | FileCheck %s --check-prefix=PART1
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="stage=3" --dist-auto-partition | FileCheck %s --check-prefix=PART3
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="print-layout=true" -o /dev/null | FileCheck %s --check-prefix=PRINT
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="ownership=whole" | FileCheck %s --check-prefix=WHOLE
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="ownership=whole pack-state=false" | FileCheck %s --check-prefix=NOPACK
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="ownership=whole" --dist-auto-partition | FileCheck %s --check-prefix=WPART
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="ownership=whole stage=1" --dist-auto-partition | FileCheck %s --check-prefix=WPART1
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="ownership=whole stage=3" --dist-auto-partition | FileCheck %s --check-prefix=WPART3
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="ownership=whole print-layout=true" -o /dev/null | FileCheck %s --check-prefix=WPRINT
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="stage=3 segment-mb=32" | FileCheck %s --check-prefix=SEG
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="stage=3 segment-anchors=w2" | FileCheck %s --check-prefix=ANCHOR
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="stage=3" | FileCheck %s --check-prefix=USE
// RUN: dist-opt %s --dist-data-parallel --dist-sharding="stage=3 ownership=whole segment-mb=0.00005 print-layout=true" -o /dev/null | FileCheck %s --check-prefix=SEGPRINT

// A momentum step on dp = 2: w (4x6) and its velocity are split along their
// first dim; the bias b (3 elements) divides nowhere and stays whole.
dist.mesh @mesh [dp = 2]

// Stage 2: the velocity argument and result are split, w's gradient is
// pinned split (reduce-scattered), the updated w is pinned split where it is
// made and then replicated (gathered).
// CHECK-LABEL: func.func @momentum_step
// CHECK-SAME: %[[W:.*]]: tensor<4x6xf32> {dist.name = "w", dist.param, dist.sharding = #dist.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: %[[B:.*]]: tensor<3xf32> {dist.name = "b", dist.param, dist.sharding = #dist.sharding<@mesh, [{}]>}
// CHECK-SAME: %[[V:.*]]: tensor<4x6xf32> {dist.name = "w.velocity", dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>, dist.state_of = 0 : i64}
// CHECK-SAME: -> (tensor<4x6xf32> {dist.name = "w", dist.sharding = #dist.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: tensor<3xf32> {dist.name = "b", dist.sharding = #dist.sharding<@mesh, [{}]>}
// CHECK-SAME: tensor<4x6xf32> {dist.name = "w.velocity", dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>, dist.state_of = 0 : i64}, tensor<8x6xf32>)
// CHECK: %[[G:.*]] = linalg.matmul {dist.grad_of = 0 : i64
// CHECK-NEXT: %[[GR:.*]] = dist.annotate %[[G]] as <@mesh, [{dp}, {}]> {dist.role = #dist.role<backward>} : tensor<4x6xf32>
// CHECK: %[[GB:.*]] = linalg.generic {{.*}} attrs = {dist.grad_of = 1 : i64
// CHECK: dist.annotate %[[GB]] as <@mesh, [{}]> {dist.role = #dist.role<backward>} : tensor<3xf32>
// CHECK: %[[V2:.*]] = arith.addf %[[V]], %[[GR]]
// CHECK: %[[W2:.*]] = arith.subf %[[W]], %[[V2]]
// CHECK-NEXT: %[[W3:.*]] = dist.annotate %[[W2]] as <@mesh, [{dp}, {}]> {dist.role = #dist.role<optimizer>} : tensor<4x6xf32>
// CHECK-NEXT: %[[W4:.*]] = dist.annotate %[[W3]] as <@mesh, [{}, {}]> {dist.role = #dist.role<optimizer>} : tensor<4x6xf32>
// CHECK: %[[B2:.*]] = arith.subf %[[B]]
// CHECK-NOT: dist.annotate
// CHECK: return %[[W4]], %[[B2]], %[[V2]]

// Stage 1: the full gradient stays until its first use, the update, where it
// is pinned split (reduce-scattered there, not where backward makes it).
// STAGE1-LABEL: func.func @momentum_step
// STAGE1-SAME: dist.name = "w.velocity", dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>
// STAGE1: %[[G:.*]] = linalg.matmul {dist.grad_of = 0 : i64
// STAGE1: %[[GS:.*]] = dist.annotate %[[G]] as <@mesh, [{dp}, {}]> {dist.role = #dist.role<backward>} : tensor<4x6xf32>
// STAGE1-NEXT: arith.addf %{{.*}}, %[[GS]] {dist.role = #dist.role<optimizer>}
// STAGE1: dist.annotate %{{.*}} as <@mesh, [{dp}, {}]> {dist.role = #dist.role<optimizer>} : tensor<4x6xf32>
// STAGE1-NEXT: dist.annotate %{{.*}} as <@mesh, [{}, {}]> {dist.role = #dist.role<optimizer>} : tensor<4x6xf32>

// Stage 3: w is split between steps and gathered before its forward use;
// the update reads its block.
// STAGE3-LABEL: func.func @momentum_step
// STAGE3-SAME: %[[W:.*]]: tensor<4x6xf32> {dist.name = "w", dist.param, dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>}
// STAGE3-SAME: -> (tensor<4x6xf32> {dist.name = "w", dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>}
// STAGE3: %[[WG:.*]] = dist.annotate %[[W]] as <@mesh, [{}, {}]> {dist.fetch = 0 : i64, dist.role = #dist.role<forward>} : tensor<4x6xf32>
// STAGE3-NEXT: linalg.matmul {dist.role = #dist.role<forward>} ins(%{{.*}}, %[[WG]] :
// STAGE3: %[[W2:.*]] = arith.subf %[[W]], %{{.*}} {dist.role = #dist.role<optimizer>}
// STAGE3-NEXT: %[[W3:.*]] = dist.annotate %[[W2]] as <@mesh, [{dp}, {}]> {dist.role = #dist.role<optimizer>}
// STAGE3-NOT: dist.annotate
// STAGE3: return %[[W3]]

// Partitioned, stage 2: w's gradient is reduce-scattered, the velocity and
// the update are 2x6 blocks, the updated w is gathered; b is all-reduced.
// PART-LABEL: func.func @momentum_step
// PART-SAME: tensor<2x6xf32> {dist.name = "w.velocity"
// PART: linalg.matmul {dist.grad_of = 0 : i64
// PART-NEXT: dist.reduce_scatter %{{.*}} on @mesh [dp] sum dim = 0
// PART: dist.all_reduce %{{.*}} on @mesh [dp] sum {{.*}} : tensor<3xf32>
// PART: arith.addf %{{.*}} : tensor<2x6xf32>
// PART: arith.subf %{{.*}} : tensor<2x6xf32>
// PART: dist.all_gather %{{.*}} on @mesh [dp] dim = 0
// PART-NOT: dist.all_reduce
// PART: return

// Partitioned, stage 1: w's gradient is reduce-scattered before the update
// (after b's gradient is made and all-reduced), the update is a block.
// PART1-LABEL: func.func @momentum_step
// PART1: linalg.matmul {dist.grad_of = 0 : i64
// PART1-NOT: dist.all_reduce %{{.*}} : tensor<4x6xf32>
// PART1: dist.all_reduce %{{.*}} on @mesh [dp] sum {{.*}} : tensor<3xf32>
// PART1-NEXT: dist.reduce_scatter %{{.*}} on @mesh [dp] sum dim = 0 {{.*}} : tensor<4x6xf32> -> tensor<2x6xf32>
// PART1: arith.subf %{{.*}} : tensor<2x6xf32>
// PART1: dist.all_gather %{{.*}} on @mesh [dp] dim = 0

// Partitioned, stage 3: w comes in and leaves as a 2x6 block, gathered
// before the forward matmul; no gather after the update.
// PART3-LABEL: func.func @momentum_step
// PART3-SAME: tensor<2x6xf32> {dist.name = "w"
// PART3: dist.all_gather %{{.*}} on @mesh [dp] dim = 0
// PART3-NEXT: linalg.matmul
// PART3: dist.reduce_scatter
// PART3: arith.subf %{{.*}} : tensor<2x6xf32>
// PART3-NOT: dist.all_gather
// PART3: return

// PRINT: dist-sharding @momentum_step: stage 2 over 'dp' (2 ranks), 1 of 2 parameters split
// PRINT-NEXT: per rank: parameters 108 B, gradients 60 B, optimizer state 48 B
// PRINT-NEXT: whole on every rank (no dim divisible by 2): b
// Whole ownership (the seeds' style), stage 2: w (96 B) is owned by rank 0,
// b (12 B) by rank 1, each with its gradient and state; each update is
// pinned owned where it is made, then replicated. The owned state is packed
// into one argument with a row per rank (w's velocity in row 0; row 1 is
// empty), read from its row just before its update and written back right
// after it.
// WHOLE-LABEL: func.func @momentum_step
// WHOLE-SAME: %[[W:[^:]*]]: tensor<4x6xf32> {dist.name = "w", dist.param, dist.sharding = #dist.sharding<@mesh, [{}, {}]>}
// WHOLE-SAME: %[[POOL:[^:]*]]: tensor<2x24xf32> {dist.name = "owned_state.f32", dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>, dist.state_pool = [{name = "w.velocity", offset = 0 : i64, owner = 0 : i64, param = "w", shape = array<i64: 4, 6>}]})
// WHOLE-SAME: -> (tensor<4x6xf32> {dist.name = "w", {{.*}}}, tensor<3xf32> {dist.name = "b", {{.*}}}, tensor<8x6xf32>, tensor<2x24xf32> {dist.name = "owned_state.f32", dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>})
// WHOLE: %[[GR:.*]] = dist.annotate %{{.*}} as <@mesh, [{}, {}], owner = 0 {dp}> {dist.role = #dist.role<backward>} : tensor<4x6xf32>
// WHOLE: %[[GBR:.*]] = dist.annotate %{{.*}} as <@mesh, [{}], owner = 1 {dp}> {dist.role = #dist.role<backward>} : tensor<3xf32>
// WHOLE: %[[VS:.*]] = tensor.extract_slice %[[POOL]][0, 0] [1, 24] [1, 1] {dist.role = #dist.role<optimizer>} : tensor<2x24xf32> to tensor<24xf32>
// WHOLE-NEXT: %[[V:.*]] = tensor.expand_shape %[[VS]] {{\[\[}}0, 1]] output_shape [4, 6]
// WHOLE-NEXT: %[[V2:.*]] = arith.addf %[[V]], %[[GR]]
// WHOLE-NEXT: %[[VF:.*]] = tensor.collapse_shape %[[V2]]
// WHOLE-NEXT: %[[P1:.*]] = tensor.insert_slice %[[VF]] into %[[POOL]][0, 0] [1, 24] [1, 1] {dist.role = #dist.role<optimizer>} : tensor<24xf32> into tensor<2x24xf32>
// WHOLE-NEXT: %[[P2:.*]] = dist.annotate %[[P1]] as <@mesh, [{dp}, {}]>
// WHOLE-NEXT: %[[W2:.*]] = arith.subf %[[W]], %[[V2]]
// WHOLE-NEXT: %[[W3:.*]] = dist.annotate %[[W2]] as <@mesh, [{}, {}], owner = 0 {dp}> {dist.role = #dist.role<optimizer>}
// WHOLE-NEXT: %[[W4:.*]] = dist.annotate %[[W3]] as <@mesh, [{}, {}]> {dist.role = #dist.role<optimizer>}
// WHOLE: %[[B2:.*]] = arith.subf %{{.*}}, %[[GBR]]
// WHOLE-NEXT: %[[B3:.*]] = dist.annotate %[[B2]] as <@mesh, [{}], owner = 1 {dp}>
// WHOLE-NEXT: %[[B4:.*]] = dist.annotate %[[B3]] as <@mesh, [{}]>
// WHOLE: return %[[W4]], %[[B4]], %{{.*}}, %[[P2]]

// Without packing the state keeps its argument, owned.
// NOPACK-LABEL: func.func @momentum_step
// NOPACK-SAME: tensor<4x6xf32> {dist.name = "w.velocity", dist.sharding = #dist.sharding<@mesh, [{}, {}], owner = 0 {dp}>, dist.state_of = 0 : i64}
// NOPACK-NOT: dist.state_pool

// Partitioned: each gradient is reduced onto its owner, the owner's update
// is broadcast from it; nothing is all-reduced. Each rank holds its row of
// the packed state (1x24); rank 0 alone reads w's velocity from it,
// updates both and writes the row back (the other ranks keep their row
// and hold an empty w until the broadcast); rank 1 alone updates b.
// WPART-LABEL: func.func @momentum_step
// WPART-SAME: %[[POOL:[^:]*]]: tensor<1x24xf32> {dist.name = "owned_state.f32", dist.partitioned_as = #dist.sharding<@mesh, [{dp}, {}]>, dist.state_pool = [{name = "w.velocity", offset = 0 : i64, owner = 0 : i64, param = "w", shape = array<i64: 4, 6>}]}
// WPART: linalg.matmul {dist.grad_of = 0 : i64
// WPART-NEXT: dist.reduce %{{.*}} on @mesh [dp] sum root = 0 {{.*}} : tensor<4x6xf32>
// WPART: dist.reduce %{{.*}} on @mesh [dp] sum root = 1 {{.*}} : tensor<3xf32>
// WPART-NEXT: %[[R:.*]] = dist.process_index on @mesh [dp] : index
// WPART-NEXT: %[[IS0:.*]] = arith.cmpi eq, %[[R]], %c0 : index
// WPART-NEXT: %[[U:.*]]:2 = scf.if %[[IS0]] -> (tensor<1x24xf32>, tensor<4x6xf32>) {
// WPART-NEXT: tensor.extract_slice %[[POOL]][0, 0] [1, 24] [1, 1] {{.*}} : tensor<1x24xf32> to tensor<24xf32>
// WPART-NEXT: tensor.expand_shape
// WPART-NEXT: arith.addf
// WPART-NEXT: tensor.collapse_shape
// WPART-NEXT: %[[ROW:.*]] = tensor.insert_slice %{{.*}} into %[[POOL]][0, 0] [1, 24] [1, 1] {{.*}} : tensor<24xf32> into tensor<1x24xf32>
// WPART-NEXT: %[[NEW:.*]] = arith.subf
// WPART-NEXT: scf.yield %[[ROW]], %[[NEW]] : tensor<1x24xf32>, tensor<4x6xf32>
// WPART-NEXT: } else {
// WPART-NEXT: scf.yield %[[POOL]], %{{.*}} : tensor<1x24xf32>, tensor<4x6xf32>
// WPART: dist.broadcast %[[U]]#1 on @mesh [dp] root = 0 {{.*}} : tensor<4x6xf32>
// WPART-NEXT: %[[IS1:.*]] = arith.cmpi eq, %[[R]], %c1 : index
// WPART-NEXT: scf.if %[[IS1]] -> (tensor<3xf32>) {
// WPART-NEXT: arith.subf
// WPART: dist.broadcast %{{.*}} on @mesh [dp] root = 1 {{.*}} : tensor<3xf32>
// WPART-NOT: dist.all_reduce
// WPART: return %{{.*}}, %{{.*}}, %{{.*}}, %[[U]]#0

// Stage 1: each gradient is reduced onto its owner at its first use (the
// update), not where backward makes it; the state and update stay owned.
// WPART1-LABEL: func.func @momentum_step
// WPART1: dist.reduce %{{.*}} on @mesh [dp] sum root = 0 {{.*}} : tensor<4x6xf32>
// WPART1: dist.broadcast %{{.*}} on @mesh [dp] root = 0 {{.*}} : tensor<4x6xf32>
// WPART1-NOT: dist.all_reduce

// Stage 3: w stays owned between steps and is broadcast before its forward
// use; its update is not broadcast (the other ranks return an empty w).
// WPART3-LABEL: func.func @momentum_step
// WPART3-SAME: tensor<4x6xf32> {dist.name = "w", dist.param, dist.partitioned_as = #dist.sharding<@mesh, [{}, {}], owner = 0 {dp}>}
// WPART3: dist.broadcast %{{.*}} on @mesh [dp] root = 0 {{.*}} : tensor<4x6xf32>
// WPART3-NEXT: linalg.matmul {dist.role = #dist.role<forward>}
// WPART3: dist.reduce %{{.*}} root = 0
// WPART3: dist.reduce %{{.*}} root = 1
// WPART3-NOT: dist.broadcast
// WPART3: return

// WPRINT: dist-sharding @momentum_step: stage 2 over 'dp' (2 ranks), 2 of 2 parameters owned whole
// WPRINT-NEXT: rank 0: parameters 108 B, gradients 96 B, optimizer state 96 B; owns w
// WPRINT-NEXT: rank 1: parameters 108 B, gradients 12 B, optimizer state 0 B; owns b
func.func @momentum_step(
    %w: tensor<4x6xf32> {dist.param, dist.name = "w"},
    %b: tensor<3xf32> {dist.param, dist.name = "b"},
    %v: tensor<4x6xf32> {dist.state_of = 0 : i64, dist.name = "w.velocity"},
    %x: tensor<8x4xf32>,
    %dy: tensor<8x6xf32>)
    -> (tensor<4x6xf32> {dist.name = "w"}, tensor<3xf32> {dist.name = "b"},
        tensor<4x6xf32> {dist.state_of = 0 : i64, dist.name = "w.velocity"}, tensor<8x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<8x6xf32>
  %zy = linalg.fill ins(%zero : f32) outs(%ey : tensor<8x6xf32>) -> tensor<8x6xf32>
  %y = linalg.matmul {dist.role = #dist.role<forward>} ins(%x, %w : tensor<8x4xf32>, tensor<4x6xf32>) outs(%zy : tensor<8x6xf32>) -> tensor<8x6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %xt = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) permutation = [1, 0]
  %g = linalg.matmul {dist.grad_of = 0 : i64, dist.role = #dist.role<backward>}
      ins(%xt, %dy : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %e3 = tensor.empty() : tensor<3xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %dy3 = tensor.extract_slice %dy[0, 0] [8, 3] [1, 1] : tensor<8x6xf32> to tensor<8x3xf32>
  %gb = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                        iterator_types = ["reduction", "parallel"]}
      ins(%dy3 : tensor<8x3xf32>) outs(%z3 : tensor<3xf32>)
      attrs = {dist.grad_of = 1 : i64, dist.role = #dist.role<backward>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  %v2 = arith.addf %v, %g {dist.role = #dist.role<optimizer>} : tensor<4x6xf32>
  %w2 = arith.subf %w, %v2 {dist.role = #dist.role<optimizer>} : tensor<4x6xf32>
  %b2 = arith.subf %b, %gb {dist.role = #dist.role<optimizer>} : tensor<3xf32>
  return %w2, %b2, %v2, %y : tensor<4x6xf32>, tensor<3xf32>, tensor<4x6xf32>, tensor<8x6xf32>
}

// Stage 3 segments. w2 is used twice (forward, and backward for dh). By
// default each use gathers just before it (w2 twice); with one segment
// (segment-mb large) both parameters are gathered before the first matmul,
// w2 once for its two uses; an anchor at w2 starts a second segment at w2's
// first use.
// SEG-LABEL: func.func @two_layers
// SEG: %[[W1:.*]] = dist.annotate %arg0 as <@mesh, [{}, {}]> {dist.fetch = 0 : i64, dist.role = #dist.role<forward>}
// SEG-NEXT: %[[W2:.*]] = dist.annotate %arg1 as <@mesh, [{}, {}]> {dist.fetch = 1 : i64, dist.role = #dist.role<forward>}
// SEG-NEXT: linalg.matmul {dist.role = #dist.role<forward>} ins(%{{.*}}, %[[W1]] :
// SEG: linalg.matmul {dist.role = #dist.role<forward>} ins(%{{.*}}, %[[W2]] :
// SEG: linalg.matmul {dist.role = #dist.role<backward>} ins(%{{.*}}, %[[W2]] :
// SEG-NOT: dist.annotate %arg1
// SEG: return
// ANCHOR-LABEL: func.func @two_layers
// ANCHOR: %[[W1:.*]] = dist.annotate %arg0 as <@mesh, [{}, {}]>
// ANCHOR-NEXT: linalg.matmul {dist.role = #dist.role<forward>} ins(%{{.*}}, %[[W1]] :
// ANCHOR-NEXT: %[[W2:.*]] = dist.annotate %arg1 as <@mesh, [{}, {}]>
// ANCHOR-NEXT: linalg.matmul {dist.role = #dist.role<forward>} ins(%{{.*}}, %[[W2]] :
// ANCHOR: linalg.matmul {dist.role = #dist.role<backward>} ins(%{{.*}}, %[[W2]] :
// ANCHOR-NOT: dist.annotate %arg1
// USE-LABEL: func.func @two_layers
// USE-COUNT-2: dist.annotate %arg1 as <@mesh, [{}, {}]>
// Partitioned, w2's two fetches stay two gathers (their dist.fetch differs,
// so cleanup does not merge them): the forward copy is dead before backward
// gathers again.
// PART3-LABEL: func.func @two_layers
// PART3: dist.all_gather %arg0 on @mesh [dp] dim = 0 {dist.fetch = 0 : i64
// PART3: dist.all_gather %arg1 on @mesh [dp] dim = 0 {dist.fetch = 1 : i64
// PART3: linalg.matmul {dist.role = #dist.role<forward>}
// PART3: dist.all_gather %arg1 on @mesh [dp] dim = 0 {dist.fetch = 2 : i64
// PART3-NEXT: linalg.matmul {dist.role = #dist.role<backward>}
// SEGPRINT: dist-sharding @two_layers: stage 3
// SEGPRINT: segment 0: 64 B of parameters gathered at its start: w1
// SEGPRINT-NEXT: segment 1: 64 B of parameters gathered at its start: w2
func.func @two_layers(
    %w1: tensor<4x4xf32> {dist.param, dist.name = "w1"},
    %w2: tensor<4x4xf32> {dist.param, dist.name = "w2"},
    %v1: tensor<4x4xf32> {dist.state_of = 0 : i64, dist.name = "w1.velocity"},
    %v2: tensor<4x4xf32> {dist.state_of = 1 : i64, dist.name = "w2.velocity"},
    %x: tensor<8x4xf32>)
    -> (tensor<4x4xf32> {dist.name = "w1"}, tensor<4x4xf32> {dist.name = "w2"},
        tensor<4x4xf32> {dist.state_of = 0 : i64, dist.name = "w1.velocity"},
        tensor<4x4xf32> {dist.state_of = 1 : i64, dist.name = "w2.velocity"}) {
  %zero = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8x4xf32>
  %z8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %h = linalg.matmul {dist.role = #dist.role<forward>} ins(%x, %w1 : tensor<8x4xf32>, tensor<4x4xf32>) outs(%z8 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul {dist.role = #dist.role<forward>} ins(%h, %w2 : tensor<8x4xf32>, tensor<4x4xf32>) outs(%z8 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %dh = linalg.matmul {dist.role = #dist.role<backward>} ins(%y, %w2 : tensor<8x4xf32>, tensor<4x4xf32>) outs(%z8 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e4 = tensor.empty() : tensor<4x4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %ht = linalg.transpose ins(%h : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) permutation = [1, 0]
  %g2 = linalg.matmul {dist.grad_of = 1 : i64, dist.role = #dist.role<backward>}
      ins(%ht, %y : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %xt = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) permutation = [1, 0]
  %g1 = linalg.matmul {dist.grad_of = 0 : i64, dist.role = #dist.role<backward>}
      ins(%xt, %dh : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %v12 = arith.addf %v1, %g1 {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  %w12 = arith.subf %w1, %v12 {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  %v22 = arith.addf %v2, %g2 {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  %w22 = arith.subf %w2, %v22 {dist.role = #dist.role<optimizer>} : tensor<4x4xf32>
  return %w12, %w22, %v12, %v22 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
