// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-make-async
// RUN: not dist-opt %s --dist-make-async=wait=later 2>&1 | FileCheck %s --check-prefix=OPTION

// Tests that an unknown wait placement is reported (on an unknown location,
// from initialize()).
// OPTION: error: dist-make-async: unknown wait placement 'later'; expected 'first-use' or 'immediate'

// Tests that a blocking collective on buffers is rejected: the pass runs
// before bufferization.
dist.mesh @mesh_4 [dp = 4]
func.func @f(%b: memref<8xf32>) {
  // expected-error@+1 {{'dist.buffer.all_reduce' op is a collective on buffers; dist-make-async works on tensors (run it before bufferization)}}
  dist.buffer.all_reduce %b on @mesh_4 [dp] sum : memref<8xf32>
  return
}
