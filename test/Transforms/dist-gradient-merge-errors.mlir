// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-gradient-merge
// RUN: not dist-opt %s -split-input-file --dist-gradient-merge="k=0" 2>&1 | FileCheck %s --check-prefix=K

// K: error: dist-gradient-merge: k must be at least 1, got 0

// Tests that a step without gradients is rejected.
// expected-error@+1 {{'func.func' op has parameters but no gradients (no op marked 'dist.grad_of'): dist-gradient-merge needs the backward pass of a step}}
func.func @no_gradients(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %w2 = arith.subf %w, %x : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a module without a training step is rejected.
// expected-error@+1 {{dist-gradient-merge: no training step (no function argument is marked 'dist.param')}}
module {
func.func @not_a_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
}

// -----

// Tests that two gradients of one parameter are rejected.
func.func @two_gradients(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  // expected-note@+1 {{the first}}
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  // expected-error@+1 {{'arith.addf' op is a second gradient of argument 0; dist-gradient-merge accumulates one}}
  %h = arith.addf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w1 = arith.subf %w, %g : tensor<4xf32>
  %w2 = arith.subf %w1, %h : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a gradient that is no float tensor is rejected.
func.func @integer_gradient(%w: tensor<4xi32> {dist.param}, %x: tensor<4xi32>) -> (tensor<4xi32> {dist.updates = 0 : i64}) {
  // expected-error@+1 {{'arith.muli' op is marked the gradient of argument 0 but its result is no float tensor}}
  %g = arith.muli %x, %x {dist.grad_of = 0 : i64} : tensor<4xi32>
  %w2 = arith.subi %w, %g : tensor<4xi32>
  return %w2 : tensor<4xi32>
}

// -----

// Tests that a gradient naming no argument is rejected.
func.func @bad_index(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  // expected-error@+1 {{'arith.mulf' op is marked the gradient of argument 7, but the function has 2 argument(s)}}
  %g = arith.mulf %x, %x {dist.grad_of = 7 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a gradient made inside a region is rejected.
// expected-error@+1 {{'func.func' op makes a gradient inside a region; dist-gradient-merge needs them at the top level of the step}}
func.func @nested_gradient(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>, %c: i1) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = scf.if %c -> tensor<4xf32> {
    %a = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a step merged already is rejected.
func.func @merged_twice(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>,
    // expected-error@+1 {{argument 2 is already a gradient accumulator: the step's gradients are merged already}}
    %acc: tensor<4xf32> {dist.grad_accumulator_of = 0 : i64}) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a per-rank program is rejected.
dist.mesh @mesh [dp = 2]
// expected-error@+1 {{'func.func' op is a per-rank program (argument 0 is partitioned); dist-gradient-merge takes a global program}}
func.func @per_rank(%w: tensor<4xf32> {dist.param, dist.partitioned_as = #dist.sharding<@mesh, [{}]>}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}

// -----

// Tests that a gradient-dependent result that is no tensor is rejected.
func.func @scalar_result(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}, f32) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %s = tensor.extract %g[%c0] : tensor<4xf32>
  // expected-error@+1 {{'func.return' op returns value 1, which depends on a gradient but is no tensor; dist-gradient-merge returns zeros for it on micro-steps without an update}}
  return %w2, %s : tensor<4xf32>, f32
}
