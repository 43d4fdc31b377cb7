// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-memory-report

// Tests that a program on tensors is rejected.
// expected-error@+1 {{function @tensors takes tensors (argument 0): dist-memory-report reads a bufferized program; run it after bufferization (dist-lower-to-llvm{memory-report=true})}}
func.func @tensors(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Tests that a declaration is skipped and a bufferized function is reported.
func.func private @external(tensor<4xf32>)
// expected-remark@+1 {{dist-memory-report: peak 16 B live per rank: parameters 0 B, gradients 0 B, optimizer state 0 B, activations 16 B, communication buffers 0 B}}
func.func @buffers(%x: memref<4xf32>) {
  return
}
