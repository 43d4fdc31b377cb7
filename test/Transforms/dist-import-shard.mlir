// RUN: dist-opt %s --dist-import-shard -split-input-file | FileCheck %s

// Tests that a grid becomes a mesh with axes a0, a1, ... and that a
// user-side annotation of an argument becomes a dist.annotate of it.
// CHECK: dist.mesh @grid_2x4 [a0 = 2, a1 = 4]
// CHECK-NOT: shard.
// CHECK-LABEL: func.func @arg_annotated_in_body
// CHECK-SAME: (%[[X:.+]]: tensor<8x16xf32>)
// CHECK: %[[A:.+]] = dist.annotate %[[X]] as <@grid_2x4, [{a0}, {a1}]> : tensor<8x16xf32>
// CHECK: return %[[A]]
shard.grid @grid_2x4(shape = 2x4)
func.func @arg_annotated_in_body(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid_2x4 split_axes = [[0], [1]] : !shard.sharding
  %y = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// Tests a result-side and a user-side annotation of one value (a reshard
// upstream): two chained annotations; fewer split sub-arrays than dims leave
// the rest whole; several axes on one dim keep their order.
// CHECK: dist.mesh @grid_2x2x2 [a0 = 2, a1 = 2, a2 = 2]
// CHECK-LABEL: func.func @reshard
// CHECK: %[[E:.+]] = math.exp
// CHECK: %[[R:.+]] = dist.annotate %[[E]] as <@grid_2x2x2, [{a2, a0}, {}, {}]> : tensor<8x4x2xf32>
// CHECK: %[[U:.+]] = dist.annotate %[[R]] as <@grid_2x2x2, [{}, {a1}, {}]> : tensor<8x4x2xf32>
// CHECK: return %[[U]]
shard.grid @grid_2x2x2(shape = 2x2x2)
func.func @reshard(%x: tensor<8x4x2xf32>) -> tensor<8x4x2xf32> {
  %e = math.exp %x : tensor<8x4x2xf32>
  %s0 = shard.sharding @grid_2x2x2 split_axes = [[2, 0]] : !shard.sharding
  %r = shard.shard %e to %s0 : tensor<8x4x2xf32>
  %s1 = shard.sharding @grid_2x2x2 split_axes = [[], [1]] : !shard.sharding
  %u = shard.shard %r to %s1 annotate_for_users : tensor<8x4x2xf32>
  return %u : tensor<8x4x2xf32>
}

// -----

// Tests that the replicated form `[[]]` imports as replicated.
// CHECK-LABEL: func.func @replicated
// CHECK: dist.annotate %{{.*}} as <@grid_4, [{}, {}]> : tensor<8x8xf32>
shard.grid @grid_4(shape = 4)
func.func @replicated(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = shard.sharding @grid_4 split_axes = [[]] : !shard.sharding
  %y = shard.shard %x to %s : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// Tests that empty split sub-arrays past a tensor's rank split nothing: a
// scalar annotated `split_axes = [[]]` (as upstream writes a replicated
// scalar) and a vector with a trailing empty sub-array are replicated.
// CHECK-LABEL: func.func @empty_splits_past_rank
// CHECK: dist.annotate %{{.+}} as <@grid_4, []> : tensor<f32>
// CHECK: dist.annotate %{{.+}} as <@grid_4, [{a0}]> : tensor<8xf32>
shard.grid @grid_4(shape = 4)
func.func @empty_splits_past_rank(%s: tensor<f32>, %v: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %r = shard.sharding @grid_4 split_axes = [[]] : !shard.sharding
  %sr = shard.shard %s to %r annotate_for_users : tensor<f32>
  %p = shard.sharding @grid_4 split_axes = [[0], []] : !shard.sharding
  %vp = shard.shard %v to %p annotate_for_users : tensor<8xf32>
  return %sr, %vp : tensor<f32>, tensor<8xf32>
}

// -----

// Tests the collectives and process queries of a program upstream has
// already partitioned: each becomes its dist counterpart on the axes a<i>;
// a root's multi-index [1, 0] on a 2x2 grid is index 2 of the group;
// all_slice is the rank's block (no communication).
// CHECK-LABEL: func.func @partitioned
// CHECK: dist.all_reduce %arg0 on @grid_2x2 [a1] max : tensor<4x8xf32>
// CHECK: dist.all_gather %arg0 on @grid_2x2 [a0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK: dist.reduce_scatter %arg0 on @grid_2x2 [a1] sum dim = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK: dist.all_to_all %arg0 on @grid_2x2 [a0] split_dim = 1 concat_dim = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK: dist.broadcast %arg1 on @grid_2x2 [a0, a1] root = 2 : tensor<4x8xf32>
// CHECK: dist.reduce %arg1 on @grid_2x2 [a1] sum root = 1 : tensor<4x8xf32>
// CHECK: %[[I:.+]] = dist.process_index on @grid_2x2 [a1] : index
// CHECK: %[[OFF:.+]] = arith.muli %[[I]], %c2
// CHECK: tensor.extract_slice %arg1[%[[OFF]], 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
// CHECK: dist.process_index on @grid_2x2 [a0] : index
// CHECK: dist.process_index on @grid_2x2 [a1] : index
// CHECK: dist.process_index on @grid_2x2 [a0, a1] : index
// CHECK-NOT: shard.
shard.grid @grid_2x2(shape = 2x2)
func.func @partitioned(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x8xf32>, index, index, index) {
  %s = shard.all_reduce %x on @grid_2x2 grid_axes = [1] reduction = max : tensor<4x8xf32> -> tensor<4x8xf32>
  %g = shard.all_gather %x on @grid_2x2 grid_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %r = shard.reduce_scatter %x on @grid_2x2 grid_axes = [1] scatter_axis = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
  %t = shard.all_to_all %x on @grid_2x2 grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  %b = shard.broadcast %y on @grid_2x2 grid_axes = [0, 1] root = [1, 0] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = shard.reduce %y on @grid_2x2 grid_axes = [1] root = [1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %sl = shard.all_slice %y on @grid_2x2 grid_axes = [1] slice_axis = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
  %i:2 = shard.process_multi_index on @grid_2x2 : index, index
  %l = shard.process_linear_index on @grid_2x2 : index
  return %s, %g, %r, %t, %b, %d, %sl, %i#0, %i#1, %l : tensor<4x8xf32>, tensor<8x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x8xf32>, index, index, index
}

// -----

// Tests halo sizes: one (lo, hi) pair per split dim, in order.
// CHECK-LABEL: func.func @halos
// CHECK: dist.annotate %arg0 as <@grid_2x2, [{a1} halo [1, 2], {}, {a0} halo [0, 3]]>
shard.grid @grid_2x2(shape = 2x2)
func.func @halos(%x: tensor<8x4x12xf32>) -> tensor<8x4x12xf32> {
  %s = shard.sharding @grid_2x2 split_axes = [[1], [], [0]] halo_sizes = [1, 2, 0, 3] : !shard.sharding
  %y = shard.shard %x to %s : tensor<8x4x12xf32>
  return %y : tensor<8x4x12xf32>
}

// -----

// Tests update_halo of a program upstream has already partitioned: per
// split dim, the lo rows come from the previous rank's last block rows and
// the hi rows from the next rank's first ones (a shift each way); the ends
// keep what the destination holds.
// CHECK-LABEL: func.func @update_halo
// CHECK-SAME: (%[[X:.*]]: tensor<7x8xf32>)
// CHECK: %[[I:.*]] = dist.process_index on @grid_4 [a0] : index
// CHECK: %[[LAST:.*]] = tensor.extract_slice %[[X]][4, 0] [1, 8] [1, 1]
// CHECK: %[[FROM_PREV:.*]] = dist.permute %[[LAST]] on @grid_4 [a0] pairs = [0 -> 1, 1 -> 2, 2 -> 3] : tensor<1x8xf32>
// CHECK: %[[HEAD:.*]] = tensor.extract_slice %[[X]][1, 0] [2, 8] [1, 1]
// CHECK: %[[FROM_NEXT:.*]] = dist.permute %[[HEAD]] on @grid_4 [a0] pairs = [1 -> 0, 2 -> 1, 3 -> 2] : tensor<2x8xf32>
// CHECK: %[[FIRST_RANK:.*]] = arith.cmpi eq, %[[I]], %c0
// CHECK: %[[OWN_LO:.*]] = tensor.extract_slice %[[X]][0, 0] [1, 8] [1, 1]
// CHECK: %[[LO:.*]] = arith.select %[[FIRST_RANK]], %[[OWN_LO]], %[[FROM_PREV]]
// CHECK: %[[WITH_LO:.*]] = tensor.insert_slice %[[LO]] into %[[X]][0, 0] [1, 8] [1, 1]
// CHECK: %[[LAST_RANK:.*]] = arith.cmpi eq, %[[I]], %c3
// CHECK: %[[OWN_HI:.*]] = tensor.extract_slice %[[WITH_LO]][5, 0] [2, 8] [1, 1]
// CHECK: %[[HI:.*]] = arith.select %[[LAST_RANK]], %[[OWN_HI]], %[[FROM_NEXT]]
// CHECK: %[[R:.*]] = tensor.insert_slice %[[HI]] into %[[WITH_LO]][5, 0] [2, 8] [1, 1]
// CHECK: return %[[R]]
shard.grid @grid_4(shape = 4)
func.func @update_halo(%x: tensor<7x8xf32>) -> tensor<7x8xf32> {
  %y = shard.update_halo %x on @grid_4 split_axes = [[0]] halo_sizes = [1, 2] : tensor<7x8xf32>
  return %y : tensor<7x8xf32>
}

// -----

// Tests update_halo on two split dims, as upstream's lowering orders them:
// the last dim first, its slabs over the first dim's block rows only (1..4
// of 6); then the first dim, its slabs over every column (the corners come
// with them). The ends keep the destination's rows, corners included.
// CHECK-LABEL: func.func @update_halo_2d
// CHECK: dist.process_index on @grid_2x2 [a1]
// CHECK: tensor.extract_slice %arg0[1, 4] [4, 2] [1, 1]
// CHECK: dist.permute {{.*}} on @grid_2x2 [a1] pairs = [0 -> 1] : tensor<4x2xf32>
// CHECK: tensor.extract_slice %arg0[1, 2] [4, 1] [1, 1]
// CHECK: dist.permute {{.*}} on @grid_2x2 [a1] pairs = [1 -> 0] : tensor<4x1xf32>
// CHECK: tensor.insert_slice {{.*}}[1, 0] [4, 2] [1, 1]
// CHECK: tensor.insert_slice {{.*}}[1, 6] [4, 1] [1, 1]
// CHECK: dist.process_index on @grid_2x2 [a0]
// CHECK: tensor.extract_slice {{.*}}[4, 0] [1, 7] [1, 1]
// CHECK: dist.permute {{.*}} on @grid_2x2 [a0] pairs = [0 -> 1] : tensor<1x7xf32>
// CHECK: tensor.extract_slice {{.*}}[1, 0] [1, 7] [1, 1]
// CHECK: dist.permute {{.*}} on @grid_2x2 [a0] pairs = [1 -> 0] : tensor<1x7xf32>
// CHECK: tensor.insert_slice {{.*}}[0, 0] [1, 7] [1, 1]
// CHECK: tensor.insert_slice {{.*}}[5, 0] [1, 7] [1, 1]
shard.grid @grid_2x2(shape = 2x2)
func.func @update_halo_2d(%x: tensor<6x7xf32>) -> tensor<6x7xf32> {
  %y = shard.update_halo %x on @grid_2x2 split_axes = [[0], [1]] halo_sizes = [1, 1, 2, 1] : tensor<6x7xf32>
  return %y : tensor<6x7xf32>
}
