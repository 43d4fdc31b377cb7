// RUN: dist-opt %s --dist-strip-annotations -split-input-file -verify-diagnostics

// Tests that a collective (a per-rank program) is refused.
dist.mesh @mesh_4 [mp = 4]
func.func @collective(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'dist.all_reduce' op is a collective: a per-rank program has no serial form; dist-strip-annotations takes a global program}}
  %y = dist.all_reduce %x on @mesh_4 [mp] sum : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Tests that a process index is refused.
dist.mesh @mesh_4 [mp = 4]
func.func @index() -> index {
  // expected-error@+1 {{'dist.process_index' op asks for a process index: a per-rank program has no serial form}}
  %i = dist.process_index on @mesh_4 [mp] : index
  return %i : index
}

// -----

// Tests that partitioned boundaries are refused, naming the argument.
dist.mesh @mesh_4 [mp = 4]
// expected-error@+1 {{'func.func' op argument 0 is 'dist.partitioned_as': a per-rank program has no serial form}}
func.func @local(%x: tensor<2xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}]>}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// Tests that a partitioned result is refused too.
dist.mesh @mesh_4 [mp = 4]
// expected-error@+1 {{'func.func' op result 0 is 'dist.partitioned_as'}}
func.func @local_result(%x: tensor<8xf32>) -> (tensor<2xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}]>}) {
  %y = tensor.extract_slice %x[0] [2] [1] : tensor<8xf32> to tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// Tests that upstream shard annotations must be imported first.
// expected-error@+1 {{'shard.grid' op is an upstream shard op; run dist-import-shard before dist-strip-annotations}}
shard.grid @grid_4(shape = 4)
func.func @upstream(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid_4 split_axes = [[0]] : !shard.sharding
  %y = shard.shard %x to %s : tensor<8xf32>
  return %y : tensor<8xf32>
}
