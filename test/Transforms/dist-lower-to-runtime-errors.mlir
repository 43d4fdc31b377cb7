// RUN: dist-opt %s --split-input-file --dist-lower-to-runtime -verify-diagnostics

// Tests that tensor collectives must be bufferized first.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'dist.all_reduce' op works on tensors; bufferize the module before dist-lower-to-runtime}}
  %r = dist.all_reduce %x on @mesh_4 [mp] sum : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Tests that annotations must be gone (partitioned) before lowering.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'dist.annotate' op works on tensors; bufferize the module before dist-lower-to-runtime}}
  %r = dist.annotate %x as <@mesh_4, [{mp}]> : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Tests that element types without a runtime type are rejected.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%a: memref<8xi4>) {
  // expected-error@+1 {{'dist.buffer.all_reduce' op has no runtime element type for 'i4'; supported: f32, f64, f16, bf16, i1, i8, i16, i32, i64, index}}
  dist.buffer.all_reduce %a on @mesh_4 [mp] sum : memref<8xi4>
  return
}

// -----

// Tests that the runtime needs static shapes.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%a: memref<?xf32>, %b: memref<?xf32>) {
  // expected-error@+1 {{'dist.buffer.permute' op needs a static shape to call the runtime, got 'memref<?xf32>'}}
  dist.buffer.permute %a into %b on @mesh_4 [mp] pairs = [0 -> 1] : memref<?xf32>, memref<?xf32>
  return
}

// -----

// Tests that a module function named like a runtime function, with another
// type, is reported (once, for two calls) instead of called with the wrong
// arguments.
dist.mesh @mesh_4 [mp = 4]
func.func @clash(%a: memref<8xf32>) {
  dist.buffer.all_reduce %a on @mesh_4 [mp] sum : memref<8xf32>
  dist.buffer.all_reduce %a on @mesh_4 [mp] max : memref<8xf32>
  return
}
// expected-error@+1 {{'func.func' op uses the name @dist_get_group, which the lowering calls as '(!llvm.ptr, i32, !llvm.ptr, i32, i32) -> !llvm.ptr'; rename it}}
func.func private @dist_get_group(i32)

// -----

// Tests that a permute over more ranks than its partner tables may hold is
// reported (each rank's tables hold an entry per group index).
dist.mesh @huge [x = 33554432]
func.func @huge_permute(%a: memref<8xf32>, %b: memref<8xf32>) {
  // expected-error@+1 {{'dist.buffer.permute' op has a group of 33554432 ranks; its partner tables are limited to 16777216 entries}}
  dist.buffer.permute %a into %b on @huge [x] pairs = [0 -> 1] : memref<8xf32>, memref<8xf32>
  return
}
