// RUN: dist-opt %s --split-input-file --dist-decompose-aggregates -verify-diagnostics

// Tests that a gather whose result shape is dynamic is refused: the
// linalg.generic that replaces it needs its result's sizes.
func.func @dynamic_gather(%table: tensor<?x32xf32>, %ids: tensor<?x1xi32>) -> tensor<?x32xf32> {
  // expected-error@+1 {{'tensor.gather' op cannot be decomposed with a dynamic result shape}}
  %g = tensor.gather %table[%ids] gather_dims([0]) : (tensor<?x32xf32>, tensor<?x1xi32>) -> tensor<?x32xf32>
  return %g : tensor<?x32xf32>
}

// -----

// Tests that an aggregate on buffers is refused: the decompositions build
// tensor ops, so the pass runs before bufferization.
func.func @softmax_on_buffers(%x: memref<2x16xf32>, %o: memref<2x16xf32>) {
  // expected-error@+1 {{'linalg.softmax' op works on buffers; dist-decompose-aggregates decomposes aggregates on tensors (run it before bufferization)}}
  linalg.softmax dimension(1) ins(%x : memref<2x16xf32>) outs(%o : memref<2x16xf32>)
  return
}
