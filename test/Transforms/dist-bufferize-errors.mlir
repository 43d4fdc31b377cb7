// RUN: dist-opt %s --one-shot-bufferize="bufferize-function-boundaries" -verify-diagnostics

// Tests that a collective whose result has a dynamic shape cannot be given a
// buffer (its size is known only to the runtime).
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<?x4xf32>) -> tensor<?x16xf32> {
  // expected-error@+2 {{failed to bufferize op}}
  // expected-error@+1 {{'dist.all_gather' op cannot bufferize a result of dynamic shape 'tensor<?x16xf32>'}}
  %g = dist.all_gather %x on @mesh_4 [mp] dim = 1 : tensor<?x4xf32> -> tensor<?x16xf32>
  return %g : tensor<?x16xf32>
}
