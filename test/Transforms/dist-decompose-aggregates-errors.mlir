// RUN: dist-opt %s --dist-decompose-aggregates -verify-diagnostics

// Tests that a gather whose result shape is dynamic is refused: the
// linalg.generic that replaces it needs its result's sizes.
func.func @dynamic_gather(%table: tensor<?x32xf32>, %ids: tensor<?x1xi32>) -> tensor<?x32xf32> {
  // expected-error@+1 {{'tensor.gather' op cannot be decomposed with a dynamic result shape}}
  %g = tensor.gather %table[%ids] gather_dims([0]) : (tensor<?x32xf32>, tensor<?x1xi32>) -> tensor<?x32xf32>
  return %g : tensor<?x32xf32>
}
