// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-data-parallel="axis=dp"
// RUN: not dist-opt %s -split-input-file --dist-data-parallel="num-comms=0" 2>&1 | FileCheck %s --check-prefix=COMMS

// COMMS: error: dist-data-parallel: num-comms must be at least 1, got 0

// Tests that an axis the mesh does not have is rejected.
// expected-error@+1 {{dist-data-parallel: axis 'dp' is not an axis of this mesh}}
dist.mesh @mesh [mp = 2]
func.func @step(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a module without a mesh is rejected.
// expected-error@+1 {{dist-data-parallel: the module has 0 meshes; name one with the 'mesh' option}}
module {
func.func @step(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
}

// -----

// Tests that a step without gradients is rejected.
dist.mesh @mesh [dp = 2]
// expected-error@+1 {{'func.func' op has parameters but no gradients (no op marked 'dist.grad_of'): dist-data-parallel needs the backward pass of a step}}
func.func @no_gradients(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %w2 = arith.subf %w, %x : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a module without a training step is rejected.
// expected-error@+1 {{dist-data-parallel: no training step (no function argument is marked 'dist.param')}}
module {
dist.mesh @mesh [dp = 2]
func.func @not_a_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
}

// -----

// Tests that a parameter laid out over the data-parallel axis is rejected.
dist.mesh @mesh [dp = 2]
func.func @split_param(
    // expected-error@+1 {{argument 0 is state (a parameter, optimizer state or an updated value) laid out over 'dp'; data parallelism keeps state replicated over it}}
    %w: tensor<4xf32> {dist.param, dist.sharding = #dist.sharding<@mesh, [{dp}]>},
    %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a batch argument split over the axis along another dimension is
// rejected.
dist.mesh @mesh [dp = 2]
func.func @batch_split_elsewhere(%w: tensor<4xf32> {dist.param},
    // expected-error@+1 {{argument 1 is already laid out over 'dp' along another dimension than its first (the batch)}}
    %x: tensor<2x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {dp}]>}) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %e = tensor.empty() : tensor<4xf32>
  %c = tensor.extract_slice %x[0, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
  %g = arith.mulf %c, %w {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a per-rank program is rejected.
dist.mesh @mesh [dp = 2]
// expected-error@+1 {{'func.func' op is a per-rank program (argument 1 is partitioned); dist-data-parallel takes a global program}}
func.func @per_rank(%w: tensor<4xf32> {dist.param},
    %x: tensor<2xf32> {dist.partitioned_as = #dist.sharding<@mesh, [{dp}]>}) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  return %w : tensor<4xf32>
}
