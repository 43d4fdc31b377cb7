// RUN: dist-opt %s -split-input-file -verify-diagnostics --dist-verify

// Tests that a gradient of an argument that is no parameter is rejected.
func.func @grad_of_data(%w: tensor<4xf32> {dist.param}, %x: tensor<4xf32>) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  // expected-error@+1 {{'arith.mulf' op is marked the gradient of argument 1, which is not a parameter ('dist.param')}}
  %g = arith.mulf %x, %x {dist.grad_of = 1 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a gradient of an argument that does not exist is rejected.
func.func @grad_of_missing(%w: tensor<4xf32> {dist.param}) -> (tensor<4xf32> {dist.updates = 0 : i64}) {
  // expected-error@+1 {{'arith.mulf' op is marked the gradient of argument 3, but the function has 1 argument(s)}}
  %g = arith.mulf %w, %w {dist.grad_of = 3 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that an update of a parameter without its gradient is rejected.
// expected-error@+1 {{'func.func' op result 0 updates parameter argument 0, but no op computes its gradient ('dist.grad_of = 0')}}
func.func @update_without_gradient(%w: tensor<4xf32> {dist.param, dist.name = "w"}) -> (tensor<4xf32> {dist.name = "w"}) {
  %w2 = arith.mulf %w, %w : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that a state result that updates no argument is rejected.
// expected-error@+1 {{'func.func' op result 1 is optimizer state of argument 0 but updates no argument ('dist.updates' or 'dist.name')}}
func.func @state_without_argument(%w: tensor<4xf32> {dist.param}) -> (tensor<4xf32> {dist.updates = 0 : i64}, tensor<4xf32> {dist.state_of = 0 : i64}) {
  %g = arith.mulf %w, %w {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2, %g : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that a state result that updates another argument than state of
// its parameter is rejected.
// expected-error@+1 {{'func.func' op result 1 is optimizer state of argument 0 but updates argument 2, which is not ('dist.state_of = 0')}}
func.func @state_updates_other(%w: tensor<4xf32> {dist.param}, %m: tensor<4xf32> {dist.state_of = 0 : i64}, %x: tensor<4xf32>)
    -> (tensor<4xf32> {dist.updates = 0 : i64}, tensor<4xf32> {dist.state_of = 0 : i64, dist.updates = 2 : i64}) {
  %g = arith.mulf %w, %x {dist.grad_of = 0 : i64} : tensor<4xf32>
  %m2 = arith.addf %m, %g : tensor<4xf32>
  %w2 = arith.subf %w, %m2 : tensor<4xf32>
  return %w2, %m2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that optimizer state of an argument that is no parameter is
// rejected.
// expected-error@+1 {{'func.func' op argument 1 is optimizer state of argument 0, which is not a parameter ('dist.param')}}
func.func @state_of_data(%x: tensor<4xf32>, %m: tensor<4xf32> {dist.state_of = 0 : i64}) -> tensor<4xf32> {
  return %m : tensor<4xf32>
}

// -----

// Tests the form of the markings (the dialect's verifier).
// expected-error@+1 {{'func.func' op argument 0: 'dist.param' is a unit attribute, got 1 : i64}}
func.func @param_not_unit(%w: tensor<4xf32> {dist.param = 1 : i64}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}

// -----

func.func private @sink(tensor<4xf32>)
func.func @grad_of_no_result(%w: tensor<4xf32> {dist.param}) -> tensor<4xf32> {
  // expected-error@+1 {{'func.call' op 'dist.grad_of' marks the result of a one-result op; this op has 0}}
  func.call @sink(%w) {dist.grad_of = 0 : i64} : (tensor<4xf32>) -> ()
  return %w : tensor<4xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument 1: 'dist.state_of' must be the index of an argument (an integer such as 0 : i64), got "w"}}
func.func @state_of_string(%w: tensor<4xf32> {dist.param}, %m: tensor<4xf32> {dist.state_of = "w"}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}

// -----

// Tests that a gradient accumulator of an argument that is no parameter is
// rejected.
// expected-error@+1 {{'func.func' op argument 1 accumulates the gradient of argument 0, which is not a parameter ('dist.param')}}
func.func @accumulator_of_data(%x: tensor<4xf32>, %acc: tensor<4xf32> {dist.grad_accumulator_of = 0 : i64}) -> tensor<4xf32> {
  return %acc : tensor<4xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument 0: 'dist.grad_accumulator_of' must be the index of an argument (an integer such as 0 : i64), got "w"}}
func.func @accumulator_not_index(%acc: tensor<4xf32> {dist.grad_accumulator_of = "w"}) -> tensor<4xf32> {
  return %acc : tensor<4xf32>
}

// -----

func.func @true_once_every_not_i1(%x: i64) -> i64 {
  // expected-error@+1 {{'arith.addi' op 'dist.true_once_every' belongs on an op with one i1 result}}
  %y = arith.addi %x, %x {dist.true_once_every = 4 : i64} : i64
  return %y : i64
}

// -----

func.func @true_once_every_zero(%x: i64) -> i1 {
  // expected-error@+1 {{'arith.cmpi' op 'dist.true_once_every' must be a positive integer (true once every k calls), got 0 : i64}}
  %y = arith.cmpi eq, %x, %x {dist.true_once_every = 0 : i64} : i64
  return %y : i1
}

// -----

// expected-error@+1 {{'func.func' op argument 0: 'dist.input_normal' must be a standard deviation >= 0 (a float value) on a float argument, got -1.000000e+00 : f64 on 'tensor<4xf32>'}}
func.func @negative_std(%w: tensor<4xf32> {dist.input_normal = -1.0 : f64}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}

// -----

// expected-error@+1 {{'func.func' op 'dist.input_seed' belongs on a module and is a seed (an integer >= 0), got 3 : i64}}
func.func @seed_on_function(%w: tensor<4xf32>) -> tensor<4xf32> attributes {dist.input_seed = 3 : i64} {
  return %w : tensor<4xf32>
}

// -----

// Tests that packed state whose member names no parameter is rejected.
// expected-error@+1 {{'func.func' op argument 1 packs "w.m" as optimizer state of "v", but no parameter argument has that name ('dist.name')}}
func.func @pool_of_unknown_param(%w: tensor<4xf32> {dist.param, dist.name = "w"},
    %pool: tensor<2x4xf32> {dist.state_pool = [{name = "w.m", param = "v", owner = 0 : i64, offset = 0 : i64, shape = array<i64: 4>}]})
    -> (tensor<4xf32> {dist.name = "w"}) {
  %g = arith.mulf %w, %w {dist.grad_of = 0 : i64} : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Tests that packed state in a tensor that is not 2-D is rejected.
// expected-error@+1 {{'func.func' op argument 0: 'dist.state_pool' packs state into a 2-D static tensor (a row per owner), not 'tensor<8xf32>'}}
func.func @pool_not_2d(%pool: tensor<8xf32> {dist.state_pool = []}) {
  return
}

// -----

// Tests that a member without an owner is rejected.
// expected-error@+1 {{'func.func' op argument 0: 'dist.state_pool' member 0 needs a name and a param (strings), an owner and an offset (integers) and a shape (array<i64>), got {name = "w.m", offset = 0 : i64, param = "w", shape = array<i64: 4>}}}
func.func @pool_member_without_owner(%pool: tensor<2x4xf32> {dist.state_pool = [{name = "w.m", param = "w", offset = 0 : i64, shape = array<i64: 4>}]}) {
  return
}

// -----

// Tests that a member owned by a row the tensor lacks is rejected.
// expected-error@+1 {{'func.func' op argument 0: 'dist.state_pool' member 0 ("w.m") is owned by row 2, outside the 2 rows of 'tensor<2x4xf32>'}}
func.func @pool_owner_out_of_range(%pool: tensor<2x4xf32> {dist.state_pool = [{name = "w.m", param = "w", owner = 2 : i64, offset = 0 : i64, shape = array<i64: 4>}]}) {
  return
}

// -----

// Tests that a member past the end of its row is rejected.
// expected-error@+1 {{'func.func' op argument 0: 'dist.state_pool' member 0 ("w.m") spans columns [2, 6), outside the row of 4}}
func.func @pool_member_past_row(%pool: tensor<2x4xf32> {dist.state_pool = [{name = "w.m", param = "w", owner = 0 : i64, offset = 2 : i64, shape = array<i64: 2, 2>}]}) {
  return
}

// -----

// Tests that overlapping members of one row are rejected.
// expected-error@+1 {{'func.func' op argument 0: 'dist.state_pool' member 1 ("w.v") overlaps another member of row 1}}
func.func @pool_members_overlap(%pool: tensor<2x4xf32> {dist.state_pool = [
    {name = "w.m", param = "w", owner = 1 : i64, offset = 0 : i64, shape = array<i64: 3>},
    {name = "w.v", param = "w", owner = 1 : i64, offset = 2 : i64, shape = array<i64: 2>}]}) {
  return
}
