// RUN: dist-opt %s --dist-auto-partition -split-input-file | FileCheck %s
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-auto-partition{import-shard=true cleanup=false})' -split-input-file | FileCheck %s --check-prefix=NOCLEAN
// RUN: dist-opt %s --dist-auto-partition="chunk-mb=0.004 async-collectives=true" -split-input-file | FileCheck %s --check-prefix=CHUNKED

// Tests the pipeline on a Megatron MLP written with upstream's shard dialect
// (annotations of arguments in the body, as upstream's tests write them):
// local weight shards and exactly one all_reduce.
// CHECK: dist.mesh @grid_4 [a0 = 4]
// CHECK-LABEL: func.func @megatron_from_shard
// CHECK-SAME: tensor<16x8xf32> {dist.partitioned_as = #dist.sharding<@grid_4, [{}, {a0}]>}
// CHECK-SAME: tensor<8x16xf32> {dist.partitioned_as = #dist.sharding<@grid_4, [{a0}, {}]>}
// CHECK-COUNT-1: dist.all_reduce
// CHECK-NOT: dist.all_reduce
// CHECK-NOT: dist.annotate
// CHECK: return
// NOCLEAN-LABEL: func.func @megatron_from_shard
// NOCLEAN: dist.all_reduce
shard.grid @grid_4(shape = 4)
func.func @megatron_from_shard(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %s1 = shard.sharding @grid_4 split_axes = [[], [0]] : !shard.sharding
  %w1s = shard.shard %w1 to %s1 annotate_for_users : tensor<16x32xf32>
  %s2 = shard.sharding @grid_4 split_axes = [[0]] : !shard.sharding
  %w2s = shard.shard %w2 to %s2 annotate_for_users : tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %h0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1s : tensor<8x16xf32>, tensor<16x32xf32>) outs(%h0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = linalg.matmul ins(%h, %w2s : tensor<8x32xf32>, tensor<32x16xf32>) outs(%o0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// -----

// Tests the pipeline on a module annotated with dist: the hybrid dp x mp
// forward and weight-gradient steps: one forward all_reduce over mp and one
// over dp for the weight gradient.
// CHECK-LABEL: func.func @hybrid
// CHECK: dist.all_reduce %{{.*}} on @mesh_2x2 [mp] sum {origin = #dist.origin<partial>} : tensor<4x4xf32>
// CHECK: dist.all_reduce %{{.*}} on @mesh_2x2 [dp] sum {origin = #dist.origin<partial>} : tensor<16x4xf32>
// CHECK-NOT: dist.all_reduce
// CHECK: return
dist.mesh @mesh_2x2 [dp = 2, mp = 2]
func.func @hybrid(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{dp}, {}]>},
                  %w1: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{}, {mp}]>},
                  %w2: tensor<32x4xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{mp}, {}]>},
                  %dy: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{dp}, {}]>})
    -> (tensor<8x4xf32>, tensor<32x4xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{mp}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %h0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%h0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %o = linalg.matmul ins(%h, %w2 : tensor<8x32xf32>, tensor<32x4xf32>) outs(%o0 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e3 = tensor.empty() : tensor<32x8xf32>
  %ht = linalg.transpose ins(%h : tensor<8x32xf32>) outs(%e3 : tensor<32x8xf32>) permutation = [1, 0]
  %e4 = tensor.empty() : tensor<32x4xf32>
  %g0 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<32x4xf32>) -> tensor<32x4xf32>
  %dw2 = linalg.matmul ins(%ht, %dy : tensor<32x8xf32>, tensor<8x4xf32>) outs(%g0 : tensor<32x4xf32>) -> tensor<32x4xf32>
  return %o, %dw2 : tensor<8x4xf32>, tensor<32x4xf32>
}

// -----

// Tests the optional steps after cleanup: a weight gradient's reduce-scatter
// (an 8 KB input) in chunks of at most 4 KB (chunk-mb), each chunk started
// async where its matmul is and waited for where the chunks are put
// together (async-collectives). The default pipeline makes one blocking
// reduce-scatter.
// CHECK-LABEL: func.func @weight_gradient
// CHECK-COUNT-1: dist.reduce_scatter %{{.*}} : tensor<64x32xf32> -> tensor<16x32xf32>
// CHECK-NOT: dist.reduce_scatter
// CHUNKED-LABEL: func.func @weight_gradient
// CHUNKED: linalg.matmul {{.*}} outs(%{{.*}} : tensor<64x16xf32>)
// CHUNKED-NEXT: %[[R0:.*]], %[[T0:.*]] = dist.reduce_scatter async {{.*}} : tensor<64x16xf32> -> tensor<16x16xf32>
// CHUNKED: linalg.matmul {{.*}} outs(%{{.*}} : tensor<64x16xf32>)
// CHUNKED-NEXT: %[[R1:.*]], %[[T1:.*]] = dist.reduce_scatter async {{.*}} : tensor<64x16xf32> -> tensor<16x16xf32>
// CHUNKED: dist.wait %[[T0]], %[[R0]]
// CHUNKED: dist.wait %[[T1]], %[[R1]]
dist.mesh @mesh [dp = 4]
func.func @weight_gradient(%x: tensor<16x64xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>}, %dy: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>}) -> (tensor<64x32xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %xt = linalg.transpose ins(%x : tensor<16x64xf32>) outs(%e : tensor<64x16xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<64x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %g = linalg.matmul ins(%xt, %dy : tensor<64x16xf32>, tensor<16x32xf32>) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
  %s = dist.annotate %g as <@mesh, [{dp}, {}]> : tensor<64x32xf32>
  return %s : tensor<64x32xf32>
}
