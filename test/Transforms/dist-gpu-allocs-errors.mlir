// RUN: dist-opt %s --dist-gpu-allocs -split-input-file -verify-diagnostics

// Tests that host code reading one element of a buffer is refused: on the
// GPU the buffer is device memory.
func.func @host_load(%buf: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'memref.load' op reads or writes one element of a buffer in host code; on the GPU every buffer is device memory (dist-lower-to-nvvm does not move single elements to the host yet)}}
  %x = memref.load %buf[%c0] : memref<4xf32>
  return %x : f32
}

// -----

// Tests that a buffer already placed in another memory space is refused.
func.func @memory_space() {
  // expected-error@+1 {{'memref.alloc' op allocates in memory space 3 : i64; dist-gpu-allocs places only buffers of the default memory space on the GPU}}
  %buf = memref.alloc() : memref<4xf32, 3>
  memref.dealloc %buf : memref<4xf32, 3>
  return
}
