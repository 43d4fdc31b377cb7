// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-fuse-gradients
// RUN: not dist-opt %s -split-input-file --dist-fuse-gradients="bucket-mb=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not dist-opt %s -split-input-file --dist-fuse-gradients="bucket-mb=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// ZERO: error: dist-fuse-gradients: bucket-mb must be positive, got 0
// NEGATIVE: error: dist-fuse-gradients: bucket-mb must be positive, got -1

// Tests that a module without gradients is rejected.
// expected-error@+1 {{dist-fuse-gradients: no gradients in the module (no op is marked 'dist.grad_of')}}
module {
dist.mesh @mesh [dp = 2]
func.func @no_gradients(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = dist.all_reduce %x on @mesh [dp] sum : tensor<4xf32>
  return %r : tensor<4xf32>
}
}
