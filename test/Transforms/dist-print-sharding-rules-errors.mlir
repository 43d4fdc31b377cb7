// RUN: dist-opt %s --dist-print-sharding-rules -verify-diagnostics

// Rules that contradict their op are errors. Upstream ops' rules never do;
// the test_dist ops (test/lib) carry deliberately broken ones.

// Tests a rule with one dim too few for its result.
func.func @missing_dim(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'test_dist.rule_with_missing_dim' op sharding rule gives 1 dims for result 0 of rank 2}}
  %y = "test_dist.rule_with_missing_dim"(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// Tests a rule whose factor size does not divide the dim it indexes.
func.func @bad_factor(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'test_dist.rule_with_bad_factor' op sharding rule: operand 0 dim 0 has size 8, which is no multiple of its factor's size 3}}
  %y = "test_dist.rule_with_bad_factor"(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// Tests that ops with a valid rule beside them still get their remark.
func.func @fine(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, j]) {i=8, j=4}}}
  %y = math.exp %x : tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
