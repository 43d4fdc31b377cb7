// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-local-sgd
// RUN: not dist-opt %s -split-input-file --dist-local-sgd="k=0" 2>&1 | FileCheck %s --check-prefix=K

// K: error: dist-local-sgd: k must be at least 1, got 0

// Tests that a global program is rejected.
dist.mesh @mesh [dp = 2]
// expected-error@+1 {{'func.func' op is a global program (no argument is partitioned); dist-local-sgd takes a per-rank program}}
func.func @global(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a module without a training step is rejected.
// expected-error@+1 {{dist-local-sgd: no training step (no function argument is marked 'dist.param')}}
module {
func.func @not_a_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
}

// -----

// Tests that a step whose gradients are not reduced over the axis is
// rejected.
dist.mesh @mesh [dp = 2]
// expected-error@+1 {{'func.func' op reduces no gradient over 'dp': dist-local-sgd takes a data-parallel step (run dist-data-parallel before partitioning)}}
func.func @not_data_parallel(%w: tensor<4xf32> {dist.param, dist.partitioned_as = #dist.sharding<@mesh, [{}]>}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that an async gradient reduction is rejected.
dist.mesh @mesh [dp = 2]
func.func @async(%w: tensor<4xf32> {dist.param, dist.partitioned_as = #dist.sharding<@mesh, [{}]>}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  // expected-error@+1 {{'dist.all_reduce' op is async; run dist-local-sgd before dist-make-async}}
  %r, %t = dist.all_reduce async %g on @mesh [dp] sum : tensor<4xf32>
  %r2 = dist.wait %t, %r : tensor<4xf32>
  %w2 = arith.subf %w, %r2 : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a gradient reduction by max is rejected.
dist.mesh @mesh [dp = 2]
func.func @max(%w: tensor<4xf32> {dist.param, dist.partitioned_as = #dist.sharding<@mesh, [{}]>}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  // expected-error@+1 {{'dist.all_reduce' op reduces gradients by max; dist-local-sgd replaces sums and averages}}
  %r = dist.all_reduce %g on @mesh [dp] max : tensor<4xf32>
  %w2 = arith.subf %w, %r : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a step that updates no parameter is rejected.
dist.mesh @mesh [dp = 2]
// expected-error@+1 {{'func.func' op returns no updated parameter ('dist.param' argument with a result that updates it)}}
func.func @no_update(%w: tensor<4xf32> {dist.param, dist.partitioned_as = #dist.sharding<@mesh, [{}]>}, %x: tensor<4xf32>) -> tensor<4xf32> {
  %g = arith.mulf %x, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %r = dist.all_reduce %g on @mesh [dp] sum : tensor<4xf32>
  return %r : tensor<4xf32>
}
