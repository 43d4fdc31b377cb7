// RUN: dist-opt %s --dist-place-buckets --split-input-file -verify-diagnostics

// A bucket on tensors: the pass runs after bufferization.
dist.mesh @mesh [dp = 4]
func.func @tensors(%a: tensor<8xf32>, %b: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op is a bucket on tensors; dist-place-buckets runs after bufferization and buffer deallocation}}
  %r:2 = dist.all_reduce %a, %b on @mesh [dp] sum : tensor<8xf32>, tensor<4xf32>
  return %r#0, %r#1 : tensor<8xf32>, tensor<4xf32>
}

// -----

dist.mesh @mesh [dp = 4]
func.func @dynamic(%a: memref<?xf32>, %b: memref<4xf32>) {
  // expected-error@+1 {{'dist.buffer.all_reduce' op has a buffer of dynamic shape; a bucket's slots need static sizes}}
  dist.buffer.all_reduce %a, %b on @mesh [dp] sum : memref<?xf32>, memref<4xf32>
  return
}

// -----

// The bucket marking belongs on an allocation of bytes.
func.func @marking() {
  // expected-error@+1 {{'memref.alloc' op 'dist.bucket_buffer' is a unit attribute of an allocation of a static 1-D i8 buffer (a bucket's bytes)}}
  %a = memref.alloc() {dist.bucket_buffer} : memref<8xf32>
  memref.dealloc %a : memref<8xf32>
  return
}
