// RUN: dist-opt %s --dist-propagate -split-input-file -verify-diagnostics

// Tests that a function with unstructured control flow is rejected.
dist.mesh @mesh_2 [dp = 2]
// expected-error@+1 {{'func.func' op has 2 blocks; dist-propagate handles functions with one block (structured control flow)}}
func.func @two_blocks(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>}) -> tensor<8xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<8xf32>
}

// -----

// Tests that one function may not use two meshes.
dist.mesh @mesh_2 [dp = 2]
dist.mesh @mesh_4 [mp = 4]
func.func @two_meshes(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>}) -> tensor<8xf32> {
  // expected-error@+1 {{sharding on mesh @mesh_4 in a function whose other shardings use @mesh_2; one function must use one mesh}}
  %a = dist.annotate %x as <@mesh_4, [{mp}]> : tensor<8xf32>
  return %a : tensor<8xf32>
}

// -----

// Tests that a completed sharding must fit its result (what dist-propagate
// writes is checked like any user annotation).
dist.mesh @mesh_4 [mp = 4]
func.func @bad_completed(%x: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error@+1 {{'math.exp' op result 0: sharding has 2 dims but the type 'tensor<6xf32>' has rank 1}}
  %r = math.exp %x {dist.shardings = [#dist.sharding<@mesh_4, [{mp}, {}]>]} : tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

// Tests that recursion is rejected (callees are completed before callers).
dist.mesh @mesh_2 [dp = 2]
// expected-error@+1 {{'func.func' op is called recursively; dist-propagate needs an acyclic call graph}}
func.func @rec(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>}) -> tensor<8xf32> {
  %r = func.call @rec(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Tests that a call into a function on another mesh is rejected.
dist.mesh @mesh_2 [dp = 2]
dist.mesh @mesh_4 [mp = 4]
// expected-note@+1 {{layout given here}}
func.func @other(%x: tensor<8xf32>) -> (tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}]>}) {
  return %x : tensor<8xf32>
}
func.func @caller(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>}) -> tensor<8xf32> {
  // expected-error@+1 {{'func.call' op operand 0 is laid out on mesh @mesh_4 in a function on @mesh_2; one function must use one mesh}}
  %r = func.call @other(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Tests that a rule contradicting its op (a test_dist op, test/lib) stops
// propagation with the rule's error.
dist.mesh @mesh_4 [mp = 4]
func.func @broken_rule(%x: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}]>}) -> tensor<8x4xf32> {
  // expected-error@+1 {{'test_dist.rule_with_missing_dim' op sharding rule gives 1 dims for result 0 of rank 2}}
  %y = "test_dist.rule_with_missing_dim"(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// Tests that a region op whose region has several blocks is refused with the
// reason (edges through branches inside a region are not modelled).
dist.mesh @mesh_2 [dp = 2]
func.func @multi_block_region(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>}) -> tensor<8xf32> {
  // expected-error@+1 {{'scf.execute_region' op has a region with 2 blocks; dist partitions region ops whose regions have one block}}
  %r = scf.execute_region -> tensor<8xf32> {
    cf.br ^bb1(%x : tensor<8xf32>)
  ^bb1(%y: tensor<8xf32>):
    scf.yield %y : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
