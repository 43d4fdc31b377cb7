// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-sharding
// RUN: not dist-opt %s -split-input-file --dist-sharding="stage=4" 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: not dist-opt %s -split-input-file --dist-sharding="stage=0" 2>&1 | FileCheck %s --check-prefix=STAGE0
// RUN: not dist-opt %s -split-input-file --dist-sharding="ownership=owner" 2>&1 | FileCheck %s --check-prefix=OWNERSHIP
// RUN: not dist-opt %s -split-input-file --dist-sharding="stage=3 segment-mb=-1" 2>&1 | FileCheck %s --check-prefix=SEGMB
// RUN: not dist-opt %s -split-input-file --dist-sharding="stage=2 segment-mb=32" 2>&1 | FileCheck %s --check-prefix=SEGSTAGE
// RUN: not dist-opt %s -split-input-file --dist-sharding="stage=3 segment-anchors=nothing" 2>&1 | FileCheck %s --check-prefix=ANCHOR

// STAGE: error: dist-sharding: stage must be 1, 2 or 3, got 4
// STAGE0: error: dist-sharding: stage must be 1, 2 or 3, got 0
// OWNERSHIP: error: dist-sharding: ownership must be 'split' or 'whole', got 'owner'
// SEGMB: error: dist-sharding: segment-mb must be >= 0, got -1
// SEGSTAGE: error: dist-sharding: segments (segment-mb, segment-anchors) place the gathers of stage 3 parameters; stage is 2
// ANCHOR: error: dist-sharding: segment anchor 'nothing' names no parameter (an anchor is a parameter's dist.name)

// Tests that an axis the mesh does not have is rejected.
// expected-error@+1 {{dist-sharding: axis 'dp' is not an axis of this mesh}}
dist.mesh @mesh [mp = 2]
func.func @step(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}]>}) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a module with two meshes and no 'mesh' option is rejected.
// expected-error@+1 {{dist-sharding: the module has 2 meshes; name one with the 'mesh' option}}
module {
dist.mesh @a [dp = 2]
dist.mesh @b [dp = 4]
}

// -----

// Tests that a step that is not data parallel over the axis is rejected.
dist.mesh @mesh [dp = 2]
// expected-error@+1 {{'func.func' op splits no argument over 'dp': dist-sharding shards the state of a data-parallel step; run dist-data-parallel{axis=dp} first}}
func.func @not_data_parallel(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a gradient dist-data-parallel did not pin is rejected.
dist.mesh @mesh [dp = 2]
func.func @unpinned(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}]>}) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  // expected-error@+1 {{'arith.mulf' op makes the gradient of argument 0, which is not pinned to its parameter's layout: run dist-data-parallel{axis=dp} before dist-sharding}}
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a step without gradients is rejected.
dist.mesh @mesh [dp = 2]
// expected-error@+1 {{'func.func' op has parameters but no gradients (no op marked 'dist.grad_of'): dist-sharding needs the backward pass of a step}}
func.func @no_gradients(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}]>}) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %w2 = arith.subf %w, %x : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a parameter already split over the axis is rejected.
dist.mesh @mesh [dp = 2]
func.func @split_parameter(
    // expected-error@+1 {{parameter 0 is already laid out over 'dp'; dist-sharding splits replicated state over it}}
    %w: tensor<4xf32> {dist.param, dist.sharding = #dist.sharding<@mesh, [{dp}]>},
    %x: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}]>}) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %g1 = dist.annotate %g as <@mesh, [{}]> : tensor<4xf32>
  %w2 = arith.subf %w, %g1 : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a per-rank program is rejected.
dist.mesh @mesh [dp = 2]
// expected-error@+1 {{'func.func' op is a per-rank program (argument 0 is partitioned); dist-sharding takes a global program}}
func.func @per_rank(%w: tensor<4xf32> {dist.param, dist.partitioned_as = #dist.sharding<@mesh, [{}]>}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}

// -----

// Tests that a module without a training step is rejected.
// expected-error@+1 {{dist-sharding: no training step (no function argument is marked 'dist.param')}}
module {
dist.mesh @mesh [dp = 2]
}
