// RUN: dist-opt %s --dist-lower-to-nvvm -split-input-file -verify-diagnostics

// Tests that dist-lower-to-nvvm reports a global (annotated, unpartitioned)
// program before lowering it, like dist-lower-to-llvm.
dist.mesh @m [a = 2]
// expected-error@+1 {{'func.func' op argument 0 has a dist.sharding (a global program's annotation) in a partitioned program; partition it first (dist-auto-partition)}}
func.func @global(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@m, [{a}]>}) -> tensor<8xf32> {
  %y = math.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Tests that a buffer already placed in another memory space is refused
// where the step's buffers are put on the device.
func.func @memory_space() -> f32 {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'memref.alloc' op allocates in memory space 3 : i64; dist-gpu-allocs places only buffers of the default memory space on the GPU}}
  %buf = memref.alloc() : memref<4xf32, 3>
  linalg.fill ins(%zero : f32) outs(%buf : memref<4xf32, 3>)
  %v = memref.load %buf[%c0] : memref<4xf32, 3>
  return %v : f32
}
