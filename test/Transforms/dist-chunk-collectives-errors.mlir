// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-chunk-collectives
// RUN: not dist-opt %s --dist-chunk-collectives=max-mb=0 2>&1 | FileCheck %s --check-prefix=OPTION

// Tests that a chunk size that is not positive is reported (on an unknown
// location, from initialize()).
// OPTION: error: dist-chunk-collectives: max-mb must be positive, got 0

// Tests that a collective on buffers is rejected: the pass tiles tensors,
// before bufferization.
dist.mesh @mesh_4 [dp = 4]
func.func @f(%a: memref<8xf32>, %b: memref<2xf32>) {
  // expected-error@+1 {{'dist.buffer.reduce_scatter' op is a collective on buffers; dist-chunk-collectives works on tensors (run it before bufferization)}}
  dist.buffer.reduce_scatter %a into %b on @mesh_4 [dp] sum dim = 0 : memref<8xf32>, memref<2xf32>
  return
}
