// RUN: dist-opt %s --split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s

// The bufferization models of the collectives (BufferizableOpInterface).

// Tests that an all_reduce runs in place on the buffer its operand lives in:
// no allocation, no copy.
// CHECK-LABEL: func.func @in_place
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<8x16xf32>
// CHECK: linalg.matmul {{.*}} outs(%[[ACC]] : memref<8x16xf32>)
// CHECK-NEXT: dist.buffer.all_reduce %[[ACC]] on @mesh_4 [mp] sum : memref<8x16xf32>
// CHECK-NEXT: return %[[ACC]]
dist.mesh @mesh_4 [mp = 4]
func.func @in_place(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %c = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = dist.all_reduce %y on @mesh_4 [mp] sum : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// Tests that an in-place collective whose operand is still read afterwards
// works on a copy (reduce and broadcast alike).
// CHECK-LABEL: func.func @read_later
// CHECK-SAME: (%[[X:.*]]: memref<8xf32>)
// CHECK: %[[COPY:.*]] = memref.alloc()
// CHECK: memref.copy %[[X]], %[[COPY]]
// CHECK: dist.buffer.broadcast %[[COPY]] on @mesh_4 [mp] root = 0 : memref<8xf32>
// CHECK: linalg.add ins(%[[COPY]], %[[X]] : memref<8xf32>, memref<8xf32>)
// CHECK: %[[COPY2:.*]] = memref.alloc()
// CHECK: memref.copy %[[X]], %[[COPY2]]
// CHECK: dist.buffer.reduce %[[COPY2]] on @mesh_4 [mp] sum root = 2 : memref<8xf32>
dist.mesh @mesh_4 [mp = 4]
func.func @read_later(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %r = dist.broadcast %x on @mesh_4 [mp] root = 0 : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.add ins(%r, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %t = dist.reduce %x on @mesh_4 [mp] sum root = 2 : tensor<8xf32>
  %u = linalg.add ins(%t, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %r, %s, %u : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests that the other collectives read their operand's buffer and write a
// new one of the result type.
// CHECK-LABEL: func.func @out_of_place
// CHECK-SAME: (%[[X:.*]]: memref<8x4xf32>, %[[Y:.*]]: memref<8x16xf32>)
// CHECK: %[[G:.*]] = memref.alloc() {{.*}} : memref<8x16xf32>
// CHECK: dist.buffer.all_gather %[[X]] into %[[G]] on @mesh_4 [mp] dim = 1 : memref<8x4xf32>, memref<8x16xf32>
// CHECK: %[[S:.*]] = memref.alloc() {{.*}} : memref<2x16xf32>
// CHECK: dist.buffer.reduce_scatter %[[Y]] into %[[S]] on @mesh_4 [mp] sum dim = 0 : memref<8x16xf32>, memref<2x16xf32>
// CHECK: %[[T:.*]] = memref.alloc() {{.*}} : memref<32x1xf32>
// CHECK: dist.buffer.all_to_all %[[X]] into %[[T]] on @mesh_4 [mp] split_dim = 1 concat_dim = 0 : memref<8x4xf32>, memref<32x1xf32>
// CHECK: %[[P:.*]] = memref.alloc() {{.*}} : memref<8x4xf32>
// CHECK: dist.buffer.permute %[[X]] into %[[P]] on @mesh_4 [mp] pairs = [0 -> 1, 1 -> 0] : memref<8x4xf32>, memref<8x4xf32>
// CHECK: return %[[G]], %[[S]], %[[T]], %[[P]]
dist.mesh @mesh_4 [mp = 4]
func.func @out_of_place(%x: tensor<8x4xf32>, %y: tensor<8x16xf32>)
    -> (tensor<8x16xf32>, tensor<2x16xf32>, tensor<32x1xf32>, tensor<8x4xf32>) {
  %g = dist.all_gather %x on @mesh_4 [mp] dim = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
  %s = dist.reduce_scatter %y on @mesh_4 [mp] sum dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  %t = dist.all_to_all %x on @mesh_4 [mp] split_dim = 1 concat_dim = 0 : tensor<8x4xf32> -> tensor<32x1xf32>
  %p = dist.permute %x on @mesh_4 [mp] pairs = [0 -> 1, 1 -> 0] : tensor<8x4xf32>
  return %g, %s, %t, %p : tensor<8x16xf32>, tensor<2x16xf32>, tensor<32x1xf32>, tensor<8x4xf32>
}

// -----

// Tests that a collective on a slice reads the slice's strided view in place.
// CHECK-LABEL: func.func @slice
// CHECK: %[[V:.*]] = memref.subview %{{.*}}[0, 4] [8, 4] [1, 1] : memref<8x16xf32> to memref<8x4xf32, strided<[16, 1], offset: 4>>
// CHECK: dist.buffer.all_gather %[[V]] into %{{.*}} : memref<8x4xf32, strided<[16, 1], offset: 4>>, memref<8x16xf32>
dist.mesh @mesh_4 [mp = 4]
func.func @slice(%y: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %v = tensor.extract_slice %y[0, 4] [8, 4] [1, 1] : tensor<8x16xf32> to tensor<8x4xf32>
  %g = dist.all_gather %v on @mesh_4 [mp] dim = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

// Tests an async bucket: the collective updates both buffers in place and
// returns its token; the wait names both buffers (they stay allocated until
// it) and its results are those buffers.
// CHECK-LABEL: func.func @async_bucket
// CHECK-SAME: (%[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<4xf32>)
// CHECK: %[[T:.*]] = dist.buffer.all_reduce async %[[A]], %[[B]] on @mesh_4 [mp] comm = 2 sum : memref<8xf32>, memref<4xf32>
// CHECK-NEXT: dist.wait %[[T]], %[[A]], %[[B]] : memref<8xf32>, memref<4xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
dist.mesh @mesh_4 [mp = 4]
func.func @async_bucket(%a: tensor<8xf32>, %b: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %r:2, %t = dist.all_reduce async %a, %b on @mesh_4 [mp] comm = 2 sum : tensor<8xf32>, tensor<4xf32>
  %w:2 = dist.wait %t, %r#0, %r#1 : tensor<8xf32>, tensor<4xf32>
  return %w#0, %w#1 : tensor<8xf32>, tensor<4xf32>
}

// -----

// Tests an async all_gather: a new output buffer, and a wait on the input
// and the output.
// CHECK-LABEL: func.func @async_gather
// CHECK-SAME: (%[[X:.*]]: memref<2x8xf32>)
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<8x8xf32>
// CHECK: %[[T:.*]] = dist.buffer.all_gather async %[[X]] into %[[OUT]] on @mesh_4 [mp] dim = 0
// CHECK: dist.wait %[[T]], %[[X]], %[[OUT]] : memref<2x8xf32>, memref<8x8xf32>
// CHECK: return %[[OUT]]
dist.mesh @mesh_4 [mp = 4]
func.func @async_gather(%x: tensor<2x8xf32>) -> tensor<8x8xf32> {
  %g, %t = dist.all_gather async %x on @mesh_4 [mp] dim = 0 : tensor<2x8xf32> -> tensor<8x8xf32>
  %w = dist.wait %t, %g : tensor<8x8xf32>
  return %w : tensor<8x8xf32>
}
