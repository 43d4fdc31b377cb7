// RUN: dist-opt %s --dist-partition -split-input-file -verify-diagnostics

// Tests that a layout change between meshes is rejected with both layouts.
dist.mesh @mesh_2 [dp = 2]
dist.mesh @mesh_4 [mp = 4]
// expected-note@+1 {{value laid out as #dist.sharding<@mesh_2, [{dp}]>, needed as #dist.sharding<@mesh_4, [{mp}]>}}
func.func @two_meshes(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>}) -> tensor<8xf32> {
  // expected-error@+1 {{'dist.annotate' op needs an operand on mesh @mesh_4 that is laid out on mesh @mesh_2; resharding between meshes is not supported}}
  %a = dist.annotate %x as <@mesh_4, [{mp}]> : tensor<8xf32>
  return %a : tensor<8xf32>
}

// -----

// Tests that splitting a dynamic dim is rejected.
dist.mesh @mesh_4 [mp = 4]
func.func @dynamic(%x: tensor<?x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {}]>}) -> tensor<?x8xf32> {
  // expected-error@+2 {{'dist.annotate' op needs dim 0 of an operand split, but its size is dynamic (splitting a dynamic dim is not supported)}}
  // expected-note@-2 {{value laid out as #dist.sharding<@mesh_4, [{}, {}]>, needed as #dist.sharding<@mesh_4, [{mp}, {}]>}}
  %a = dist.annotate %x as <@mesh_4, [{mp}, {}]> : tensor<?x8xf32>
  return %a : tensor<?x8xf32>
}

// -----

// Tests that an op whose regions make tensors and that has neither a sharding
// rule nor a data-flow model is rejected (scalar bodies run whole).
dist.mesh @mesh_4 [mp = 4]
func.func @region(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}]>}) -> tensor<8xf32> {
  // expected-error@+1 {{'scf.forall' op has regions that make tensors but neither a sharding rule nor a data-flow model; partitioning it is not supported yet}}
  %r = scf.forall (%i) in (2) shared_outs(%o = %x) -> (tensor<8xf32>) {
    %s = tensor.extract_slice %o[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i] [4] [1] : tensor<4xf32> into tensor<8xf32>
    }
  } {dist.shardings = [#dist.sharding<@mesh_4, [{}]>]}
  return %r : tensor<8xf32>
}

// -----

// Tests that a function with unstructured control flow is rejected.
dist.mesh @mesh_2 [dp = 2]
// expected-error@+1 {{'func.func' op has 2 blocks; dist-partition handles functions with one block (structured control flow)}}
func.func @two_blocks(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>}) -> tensor<8xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<8xf32>
}

// -----

// Tests that a tensor whose elements are neither integers nor floats cannot
// be made partial (no identity to mask with).
dist.mesh @mesh_4 [mp = 4]
func.func @complex(%x: tensor<4xcomplex<f32>> {dist.sharding = #dist.sharding<@mesh_4, [{}]>})
    -> (tensor<4xcomplex<f32>> {dist.sharding = #dist.sharding<@mesh_4, [{}], partial = sum{mp}>}) {
  // expected-error@+2 {{'func.return' op cannot make an operand of element type 'complex<f32>' partial}}
  // expected-note@-3 {{value laid out as #dist.sharding<@mesh_4, [{}]>, needed as #dist.sharding<@mesh_4, [{}], partial = sum{mp}>}}
  return %x : tensor<4xcomplex<f32>>
}

// -----

// Tests that tensor.empty refuses to split a dynamic dim (its model's
// buildLocalOp): its size operand may be the global or the local size.
dist.mesh @mesh_2 [dp = 2]
func.func @empty_split_dynamic(%n: index) -> (tensor<?x8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>}) {
  // expected-error@+1 {{'tensor.empty' op cannot split dynamic dim 0 of 'tensor<?x8xf32>' over mesh axes [dp] (its size operand does not say whether it is the global or the local size)}}
  %e = tensor.empty(%n) {dist.shardings = [#dist.sharding<@mesh_2, [{dp}, {}]>]} : tensor<?x8xf32>
  return %e : tensor<?x8xf32>
}

// -----

// Tests that a partitioned function used as a value is reported: its
// signature becomes local, and the indirect call cannot follow.
dist.mesh @mesh_2 [dp = 2]
func.func @callee(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func @indirect(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'func.constant' op refers to @callee, whose signature dist-partition changed to '(tensor<4xf32>) -> tensor<8xf32>'; functions used as values (func.call_indirect) cannot be partitioned}}
  %fn = func.constant @callee : (tensor<8xf32>) -> tensor<8xf32>
  %y = func.call_indirect %fn(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
