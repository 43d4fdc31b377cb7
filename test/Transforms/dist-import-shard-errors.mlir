// RUN: dist-opt %s --dist-import-shard -split-input-file -verify-diagnostics

// Tests that dynamic halo sizes are rejected.
shard.grid @grid_4(shape = 4)
func.func @halo(%x: tensor<8xf32>, %n: i64) -> tensor<8xf32> {
  // expected-error@+1 {{'shard.sharding' op has dynamic halo sizes; dist's halos are static}}
  %s = shard.sharding @grid_4 split_axes = [[0]] halo_sizes = [1, %n] : !shard.sharding
  %y = shard.shard %x to %s : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Tests that update_halo's halos must fit the tensor.
shard.grid @grid_4(shape = 4)
func.func @update_halo_too_wide(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'shard.update_halo' op has halos of 3 and 2 rows on dim 0 of 4 rows}}
  %y = shard.update_halo %x on @grid_4 split_axes = [[0]] halo_sizes = [3, 2] : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Tests that update_halo's halo sizes must come in one pair per split dim.
shard.grid @grid_4(shape = 4)
func.func @update_halo_count(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'shard.update_halo' op has 2 halo sizes for 2 split dims; expected a (lo, hi) pair per split dim}}
  %y = shard.update_halo %x on @grid_4 split_axes = [[0], [0]] halo_sizes = [1, 1] : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Tests that update_halo on memrefs is refused.
shard.grid @grid_4(shape = 4)
func.func @update_halo_memref(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  // expected-error@+1 {{'shard.update_halo' op works on memrefs; dist-import-shard imports collectives on tensors only (bufferize after import)}}
  %y = shard.update_halo %x on @grid_4 split_axes = [[0]] halo_sizes = [1, 1] : memref<4x8xf32>
  return %y : memref<4x8xf32>
}

// -----

// Tests that explicit (uneven) shard offsets are rejected.
shard.grid @grid_2(shape = 2)
func.func @offsets(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shard.sharding' op has explicit shard offsets (uneven shards), which dist rejects}}
  %s = shard.sharding @grid_2 split_axes = [[0]] sharded_dims_offsets = [0, 3, 8] : !shard.sharding
  %y = shard.shard %x to %s : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Tests that more split sub-arrays than dims are rejected.
shard.grid @grid_2x2(shape = 2x2)
func.func @too_many(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note@+1 {{sharding defined here}}
  %s = shard.sharding @grid_2x2 split_axes = [[0], [1]] : !shard.sharding
  // expected-error@+1 {{'shard.shard' op is annotated with 2 split sub-arrays for a tensor of rank 1}}
  %y = shard.shard %x to %s : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Tests that a dynamic grid is rejected.
// expected-error@+1 {{'shard.grid' op has a dynamic shape; dist meshes are static}}
shard.grid @grid_dyn(shape = ?x2)

// -----

// Tests that shard ops without a dist counterpart are refused.
shard.grid @grid_4(shape = 4)
func.func @collective(%x: tensor<8xf32>) -> tensor<32xf32> {
  // expected-error@+1 {{'shard.gather' op has no dist counterpart; dist-import-shard imports shard.grid, shard.sharding, shard.shard, the collectives all_reduce, reduce, broadcast, all_gather, reduce_scatter, all_to_all, all_slice and update_halo, and process_multi_index / process_linear_index}}
  %r = shard.gather %x on @grid_4 grid_axes = [0] gather_axis = 0 root = [0] : (tensor<8xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

// Tests that a collective on memrefs is refused (dist imports tensors).
shard.grid @grid_4(shape = 4)
func.func @on_memrefs(%x: memref<8xf32>) -> memref<8xf32> {
  // expected-error@+1 {{'shard.all_reduce' op works on memrefs; dist-import-shard imports collectives on tensors only (bufferize after import)}}
  %r = shard.all_reduce %x on @grid_4 grid_axes = [0] : memref<8xf32> -> memref<8xf32>
  return %r : memref<8xf32>
}

// -----

// Tests that a reduction dist's collectives do not have is refused.
shard.grid @grid_4(shape = 4)
func.func @bitwise(%x: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error@+1 {{'shard.all_reduce' op reduces with 'bitwise_or', which dist's collectives do not have (sum, max, min, product, average)}}
  %r = shard.all_reduce %x on @grid_4 grid_axes = [0] reduction = bitwise_or : tensor<8xi32> -> tensor<8xi32>
  return %r : tensor<8xi32>
}

// -----

// Tests that a collective that changes the element type is refused.
shard.grid @grid_4(shape = 4)
func.func @widening(%x: tensor<8xi8>) -> tensor<8xi32> {
  // expected-error@+1 {{'shard.all_reduce' op converts its element type; dist's collectives keep it (convert before or after)}}
  %r = shard.all_reduce %x on @grid_4 grid_axes = [0] : tensor<8xi8> -> tensor<8xi32>
  return %r : tensor<8xi32>
}

// -----

// Tests that a dynamic root is refused.
shard.grid @grid_4(shape = 4)
func.func @dynamic_root(%x: tensor<8xf32>, %root: index) -> tensor<8xf32> {
  // expected-error@+1 {{'shard.broadcast' op has a dynamic root; dist's roots are static}}
  %r = shard.broadcast %x on @grid_4 grid_axes = [0] root = [%root] : (tensor<8xf32>, index) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Tests that a sharding passed as a function argument is rejected.
shard.grid @grid_4(shape = 4)
func.func @sharding_arg(%x: tensor<8xf32>, %s: !shard.sharding) -> tensor<8xf32> {
  // expected-error@+1 {{'shard.shard' op takes a sharding that is not defined by a 'shard.sharding' op}}
  %y = shard.shard %x to %s : tensor<8xf32>
  return %y : tensor<8xf32>
}
