// RUN: dist-opt %s --dist-strip-annotations -split-input-file | FileCheck %s
// RUN: dist-opt %s --dist-strip-annotations=summary -split-input-file -verify-diagnostics -o /dev/null

// Tests that boundary shardings, annotations and meshes go, that values flow
// through where the annotations were, and that what describes no layout
// (dist.role, dist.input_range, dist.updates) stays.
// CHECK-NOT: dist.mesh
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[X:.+]]: tensor<8x16xf32>, %[[W:.+]]: tensor<16x4xf32>, %[[IDS:.+]]: tensor<8xi32> {dist.input_range = array<i64: 0, 8>})
// CHECK-SAME: -> (tensor<16x4xf32> {dist.updates = 1 : i64}, tensor<8x4xf32>)
// CHECK-NOT: dist.annotate
// CHECK-NOT: dist.sharding
// CHECK: %[[MM:.+]] = linalg.matmul {dist.role = #dist.role<forward>} ins(%[[X]], %[[W]] :
// CHECK-NOT: dist.annotate
// CHECK: return %[[W]], %[[MM]]
// expected-remark@below {{removed 2 annotation(s), 3 boundary sharding(s), 2 mesh(es)}}
module {
dist.mesh @mesh_2x2 [dp = 2, mp = 2]
dist.mesh @mesh_4 [a = 4]
func.func @step(
    %x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{dp}, {}]>},
    %w: tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{}, {mp}]>},
    %ids: tensor<8xi32> {dist.input_range = array<i64: 0, 8>})
    -> (tensor<16x4xf32> {dist.updates = 1 : i64},
        tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{dp}, {}], partial = sum{mp}>}) {
  %xa = dist.annotate %x as <@mesh_2x2, [{dp}, {}]> : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul {dist.role = #dist.role<forward>}
      ins(%xa, %w : tensor<8x16xf32>, tensor<16x4xf32>)
      outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mma = dist.annotate %mm as <@mesh_4, [{a}, {}]> : tensor<8x4xf32>
  return %w, %mma : tensor<16x4xf32>, tensor<8x4xf32>
}
}

// -----

// Tests that completed shardings on ops (dist-propagate's dist.shardings)
// go too, and a module without annotations is left as it is.
// CHECK-LABEL: func.func @completed
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<8xf32>
// CHECK-NOT: dist.
// expected-remark@below {{removed 0 annotation(s), 0 boundary sharding(s), 1 mesh(es)}}
module {
dist.mesh @mesh_2 [a = 2]
func.func @completed(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = arith.addf %x, %x {dist.shardings = [#dist.sharding<@mesh_2, [{a}]>]} : tensor<8xf32>
  return %y : tensor<8xf32>
}
}
