// RUN: dist-opt %s --dist-print-sharding-rules -split-input-file -verify-diagnostics -o /dev/null

// Tests that a matmul's loops are its factors and that k reduces with sum.
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-remark@+1 {{sharding rule: ([i, k], [k, j], [i, j]) -> ([i, j]) {i=8, j=32, k=16 sum}}}
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// Tests that batch_matmul has a parallel batch factor.
func.func @batch_matmul(%a: tensor<4x8x16xf32>, %b: tensor<4x16x32xf32>, %c: tensor<4x8x32xf32>) -> tensor<4x8x32xf32> {
  // expected-remark@+1 {{sharding rule: ([i, j, l], [i, l, k], [i, j, k]) -> ([i, j, k]) {i=4, j=8, k=32, l=16 sum}}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x32xf32>) outs(%c : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  return %r : tensor<4x8x32xf32>
}

// -----

// Tests that a max reduction (softmax's first step) is recognised, and that
// an init the body does not read is init-only.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @row_max(%x: tensor<8x32xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark@+1 {{sharding rule: ([i, j], [i]) -> ([i]) {i=8, j=32 max}}}
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x32xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Tests that a reduction with a combiner we cannot split (subtraction) keeps
// its loop whole.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @row_sub(%x: tensor<8x32xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark@+1 {{sharding rule: ([i, j], [i]) -> ([i]) {i=8, j=32 whole}}}
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x32xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.subf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Tests that loops in compound indexing expressions (a convolution window)
// must stay whole, and that the mixed dim has no factor.
func.func @conv1d(%x: tensor<4x34xf32>, %w: tensor<3xf32>, %o: tensor<4x32xf32>) -> tensor<4x32xf32> {
  // expected-remark@+1 {{sharding rule: ([i, _], [k], [i, j]) -> ([i, j]) {i=4, j=32 whole, k=3 whole}}}
  %r = linalg.generic {indexing_maps = [affine_map<(n, w, k) -> (n, w + k)>, affine_map<(n, w, k) -> (k)>, affine_map<(n, w, k) -> (n, w)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x34xf32>, tensor<3xf32>) outs(%o : tensor<4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// -----

// Tests transpose, broadcast, linalg.reduce and fill.
func.func @layout_ops(%x: tensor<8x16xf32>, %v: tensor<16xf32>, %f: f32) -> (tensor<16x8xf32>, tensor<8x16xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<16x8xf32>
  // expected-remark@-1 {{sharding rule: () -> ([i, j]) {i=16, j=8}}}
  // expected-remark@+1 {{sharding rule: ([j, i], [i, j]) -> ([i, j]) {i=16, j=8} init-only operands [1]}}
  %t = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e : tensor<16x8xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<8x16xf32>
  // expected-remark@-1 {{sharding rule: () -> ([i, j]) {i=8, j=16}}}
  // expected-remark@+1 {{sharding rule: ([j], [i, j]) -> ([i, j]) {i=8, j=16} init-only operands [1]}}
  %b = linalg.broadcast ins(%v : tensor<16xf32>) outs(%e2 : tensor<8x16xf32>) dimensions = [0]
  %e3 = tensor.empty() : tensor<8xf32>
  // expected-remark@-1 {{sharding rule: () -> ([i]) {i=8}}}
  // expected-remark@+1 {{sharding rule: ([], [i]) -> ([i]) {i=8} init-only operands [1]}}
  %z = linalg.fill ins(%f : f32) outs(%e3 : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark@+1 {{sharding rule: ([i, j], [i]) -> ([i]) {i=8, j=16 sum}}}
  %s = linalg.reduce ins(%x : tensor<8x16xf32>) outs(%z : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %t, %b, %s : tensor<16x8xf32>, tensor<8x16xf32>, tensor<8xf32>
}

// -----

// Tests that arith and math ops on tensors are elementwise, that scalar ones
// have no rule to report, and that dynamic sizes print as '?'.
func.func @elementwise(%x: tensor<?x16xf32>, %y: tensor<?x16xf32>, %s: f32) -> tensor<?x16xf32> {
  // expected-remark@+1 {{sharding rule: ([i, j], [i, j]) -> ([i, j]) {i=?, j=16}}}
  %a = arith.addf %x, %y : tensor<?x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, j]) {i=?, j=16}}}
  %e = math.exp %a : tensor<?x16xf32>
  %t = arith.mulf %s, %s : f32
  return %e : tensor<?x16xf32>
}

// -----

// Tests that ops on tensors without a rule are reported.
func.func @no_rule(%x: tensor<8x16xf32>, %shape: tensor<1xi64>) -> tensor<128xf32> {
  // expected-remark@+1 {{no sharding rule for 'tensor.reshape'}}
  %s = tensor.reshape %x(%shape) : (tensor<8x16xf32>, tensor<1xi64>) -> tensor<128xf32>
  return %s : tensor<128xf32>
}

// -----

// Tests the tensor rules: kept dims of slices are factors, cut, padded and
// concatenated dims have none; softmax keeps its dim whole.
func.func @tensor_ops(%x: tensor<8x16xf32>, %y: tensor<8x4xf32>, %f: f32) -> tensor<8x24xf32> {
  // expected-remark@+1 {{sharding rule: ([i, _]) -> ([i, _]) {i=8} partial: multilinear}}
  %s = tensor.extract_slice %x[0, 4] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  // expected-remark@+1 {{sharding rule: () -> ([i, j]) {i=8, j=8}}}
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-remark@+1 {{sharding rule: ([i, j], [i, j]) -> ([i, j]) {i=8, j=8 whole} init-only operands [1]}}
  %soft = linalg.softmax dimension(1) ins(%s : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark@+1 {{sharding rule: ([i, _], [i, _]) -> ([i, _]) {i=8} partial: additive}}
  %c = tensor.concat dim(1) %soft, %x : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x24xf32>
  // expected-remark@+1 {{sharding rule: ([i, _]) -> ([i, _]) {i=8}}}
  %p = tensor.pad %y low[0, 1] high[0, 1] { ^bb0(%i: index, %j: index): tensor.yield %f : f32 } : tensor<8x4xf32> to tensor<8x6xf32>
  // expected-remark@+1 {{sharding rule: ([i, _], [i, _]) -> ([i, _]) {i=8} partial: additive}}
  %r = tensor.insert_slice %p into %c[0, 0] [8, 6] [1, 1] : tensor<8x6xf32> into tensor<8x24xf32>
  // A full slice keeps every dim.
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, j]) {i=8, j=16} partial: multilinear}}
  %full = tensor.extract_slice %x[0, 0] [8, 16] [1, 1] : tensor<8x16xf32> to tensor<8x16xf32>
  // A rank-reducing slice drops a unit dim, which has no factor.
  // expected-remark@+1 {{sharding rule: ([_, i]) -> ([i]) {i=16} partial: multilinear}}
  %row = tensor.extract_slice %x[0, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
  return %r : tensor<8x24xf32>
}

// -----

// Tests the reshape rules: the major dim of each group is the factor of the
// merged dim (which it indexes the major part of); the others stay whole.
func.func @reshapes(%x: tensor<8x32xf32>) -> tensor<256xf32> {
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, j, _]) {i=8, j=4} partial: multilinear}}
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [8, 4, 8] : tensor<8x32xf32> into tensor<8x4x8xf32>
  // expected-remark@+1 {{sharding rule: ([i, _, _]) -> ([i]) {i=8} partial: multilinear}}
  %c = tensor.collapse_shape %e [[0, 1, 2]] : tensor<8x4x8xf32> into tensor<256xf32>
  return %c : tensor<256xf32>
}

// -----

// Tests that a loop whose index the body reads (a one-hot encoding) can be
// split: the partitioner offsets the index by the rank's block.
func.func @one_hot(%ids: tensor<8xindex>, %init: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-remark@+1 {{sharding rule: ([i], [i, j]) -> ([i, j]) {i=8, j=64} init-only operands [1]}}
  %r = linalg.generic {indexing_maps = [affine_map<(b, v) -> (b)>, affine_map<(b, v) -> (b, v)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<8xindex>) outs(%init : tensor<8x64xf32>) {
  ^bb0(%id: index, %o: f32):
    %v = linalg.index 1 : index
    %eq = arith.cmpi eq, %id, %v : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %x = arith.select %eq, %one, %zero : f32
    linalg.yield %x : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// Tests the gather rule: the index batch dims and the source's other dims are
// parallel, the gathered dim a sum (split, the result is a partial sum).
func.func @gather(%ids: tensor<8x1xindex>, %table: tensor<64x16xf32>) -> tensor<8x1x16xf32> {
  // expected-remark@+1 {{sharding rule: ([j, k], [i, _]) -> ([i, _, k]) {i=8, j=64 sum, k=16} partial: multilinear}}
  %rows = tensor.gather %table[%ids] gather_dims([0]) : (tensor<64x16xf32>, tensor<8x1xindex>) -> tensor<8x1x16xf32>
  return %rows : tensor<8x1x16xf32>
}

// -----

// Tests that a loop indexing two dims of one operand (a trace) stays whole:
// splitting it would split both dims by the same axes.
func.func @trace(%x: tensor<8x8xf32>, %o: tensor<f32>) -> tensor<f32> {
  // expected-remark@+1 {{sharding rule: ([i, i], []) -> ([]) {i=8 whole}}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i, i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%x : tensor<8x8xf32>) outs(%o : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Tests that integer adds with overflow flags do not pass partial sums
// through (a partial summand may overflow where the total does not), while
// plain ones do.
func.func @overflow_flags(%a: tensor<8xi32>, %b: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  // expected-remark-re@+1 {{sharding rule: {{.*}}{i=8}{{$}}}}
  %s = arith.addi %a, %b overflow<nsw> : tensor<8xi32>
  // expected-remark@+1 {{sharding rule: ([i], [i]) -> ([i]) {i=8} partial: additive}}
  %t = arith.addi %a, %b : tensor<8xi32>
  return %s, %t : tensor<8xi32>, tensor<8xi32>
}

// -----

// Tests that a linalg.generic summing any number of its inputs is additive
// (partial sums pass through: one reduction after, not one per input), and
// that a sum with a constant term is not (it would be added once per rank).
#map0 = affine_map<() -> ()>
func.func @sum_of_inputs(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  // expected-remark@+1 {{sharding rule: () -> ([]) {}}}
  %e = tensor.empty() : tensor<f32>
  // expected-remark@+1 {{sharding rule: ([], [], [], []) -> ([]) {} init-only operands [3] partial: additive}}
  %s = linalg.generic {indexing_maps = [#map0, #map0, #map0, #map0], iterator_types = []}
      ins(%a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %xy = arith.addf %x, %y : f32
    %xyz = arith.subf %xy, %z : f32
    linalg.yield %xyz : f32
  } -> tensor<f32>
  // expected-remark-re@+1 {{sharding rule: {{.*}} init-only operands [2]{{$}}}}
  %t = linalg.generic {indexing_maps = [#map0, #map0, #map0], iterator_types = []}
      ins(%a, %b : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %xy = arith.addf %x, %y : f32
    %xy1 = arith.addf %xy, %one : f32
    linalg.yield %xy1 : f32
  } -> tensor<f32>
  return %s, %t : tensor<f32>, tensor<f32>
}
