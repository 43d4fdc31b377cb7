// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-schedule
// RUN: not dist-opt %s -split-input-file --dist-schedule="max-in-flight=-1" 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: not dist-opt %s -split-input-file --dist-schedule="max-mb-in-flight=-2" 2>&1 | FileCheck %s --check-prefix=MB

// BOUND: error: dist-schedule: max-in-flight and max-mb-in-flight must be at least 0 (0: no bound), got -1 and 0
// MB: error: dist-schedule: max-in-flight and max-mb-in-flight must be at least 0 (0: no bound), got 0 and -2

// Tests that a collective on buffers is rejected.
dist.mesh @mesh_4 [dp = 4]
func.func @buffers(%b: memref<16xf32>) {
  // expected-error@+1 {{'dist.buffer.all_reduce' op is a collective on buffers; dist-schedule works on tensors (run it before bufferization)}}
  dist.buffer.all_reduce %b on @mesh_4 [dp] sum : memref<16xf32>
  return
}

// -----

// Tests that a program without async collectives is left as it is.
dist.mesh @mesh_4 [dp = 4]
func.func @blocking(%x: tensor<64xf32>) -> tensor<64xf32> {
  %g = dist.all_reduce %x on @mesh_4 [dp] sum : tensor<64xf32>
  return %g : tensor<64xf32>
}
