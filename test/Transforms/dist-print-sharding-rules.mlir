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
  // expected-remark@+1 {{sharding rule: ([i, j], [i]) -> ([i]) {i=8, j=32 max} padding: local form}}
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

// Tests that a convolution window (`w + k`, k a reduction loop) indexes its
// input's dim by `w` with an overlap of the window size - 1 (k stays whole),
// and that a loop in another compound expression (a strided window) must
// stay whole with the mixed dim unindexed.
func.func @conv1d(%x: tensor<4x34xf32>, %w: tensor<3xf32>, %o: tensor<4x32xf32>) -> tensor<4x32xf32> {
  // expected-remark@+1 {{sharding rule: ([i, j overlap 2], [k], [i, j]) -> ([i, j]) {i=4, j=32, k=3 whole}}}
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

func.func @strided(%x: tensor<4x65xf32>, %w: tensor<3xf32>, %o: tensor<4x32xf32>) -> tensor<4x32xf32> {
  // expected-remark@+1 {{sharding rule: ([i, _], [k], [i, j]) -> ([i, j]) {i=4, j=32 whole, k=3 whole}}}
  %r = linalg.generic {indexing_maps = [affine_map<(n, w, k) -> (n, 2 * w + k)>, affine_map<(n, w, k) -> (k)>, affine_map<(n, w, k) -> (n, w)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x65xf32>, tensor<3xf32>) outs(%o : tensor<4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// Tests tensor.pad: a dim padded with zeros is split with a halo of the
// padding on the source and an overlap on the result; a dim padded with
// another value stays whole.
func.func @pads(%x: tensor<8x6xf32>) -> (tensor<11x6xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  // expected-remark@+1 {{sharding rule: ([i halo [1, 2], j]) -> ([i overlap 3, j]) {i=8, j=6}}}
  %a = tensor.pad %x low[1, 0] high[2, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x6xf32> to tensor<11x6xf32>
  // expected-remark@+1 {{sharding rule: ([i, _]) -> ([i, _]) {i=8}}}
  %b = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %one : f32
  } : tensor<8x6xf32> to tensor<8x8xf32>
  return %a, %b : tensor<11x6xf32>, tensor<8x8xf32>
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
  // expected-remark@+1 {{sharding rule: ([i, j], [i]) -> ([i]) {i=8, j=16 sum} partial: multilinear in 0 padding: masked operands}}
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
// concatenated dims have none; softmax keeps its dim whole. The cut dims of
// slices are ranged: read (or written) in a static range only.
func.func @tensor_ops(%x: tensor<8x16xf32>, %y: tensor<8x4xf32>, %f: f32) -> tensor<8x24xf32> {
  // expected-remark@+1 {{sharding rule: ([i, _]) -> ([i, _]) {i=8} partial: multilinear reads operand 0 dim 1 [4, 12)}}
  %s = tensor.extract_slice %x[0, 4] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  // expected-remark@+1 {{sharding rule: () -> ([i, j]) {i=8, j=8}}}
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-remark@+1 {{sharding rule: ([i, j], [i, j]) -> ([i, j]) {i=8, j=8 whole} init-only operands [1]}}
  %soft = linalg.softmax dimension(1) ins(%s : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark@+1 {{sharding rule: ([i, _], [i, _]) -> ([i, _]) {i=8} partial: additive}}
  %c = tensor.concat dim(1) %soft, %x : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x24xf32>
  // expected-remark@+1 {{sharding rule: ([i, _]) -> ([i, _]) {i=8}}}
  %p = tensor.pad %y low[0, 1] high[0, 1] { ^bb0(%i: index, %j: index): tensor.yield %f : f32 } : tensor<8x4xf32> to tensor<8x6xf32>
  // expected-remark@+1 {{sharding rule: ([i, _], [i, _]) -> ([i, _]) {i=8} partial: additive writes operand 1 dim 1 [0, 6)}}
  %r = tensor.insert_slice %p into %c[0, 0] [8, 6] [1, 1] : tensor<8x6xf32> into tensor<8x24xf32>
  // A full slice keeps every dim.
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, j]) {i=8, j=16} partial: multilinear}}
  %full = tensor.extract_slice %x[0, 0] [8, 16] [1, 1] : tensor<8x16xf32> to tensor<8x16xf32>
  // A rank-reducing slice drops a unit dim, which has no factor.
  // expected-remark@+1 {{sharding rule: ([_, i]) -> ([i]) {i=16} partial: multilinear reads operand 0 dim 0 [0, 1)}}
  %row = tensor.extract_slice %x[0, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
  return %r : tensor<8x24xf32>
}

// -----

// Tests the reshape rules: the major dim of each group is the factor of the
// merged dim (which it indexes the major part of); the others stay whole.
func.func @reshapes(%x: tensor<8x32xf32>) -> tensor<256xf32> {
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, j, _]) {i=8, j=4 part} partial: multilinear}}
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [8, 4, 8] : tensor<8x32xf32> into tensor<8x4x8xf32>
  // expected-remark@+1 {{sharding rule: ([i, _, _]) -> ([i]) {i=8 part} partial: multilinear}}
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
  // expected-remark@+1 {{sharding rule: ([j, k], [i, _]) -> ([i, _, k]) {i=8, j=64 sum, k=16} partial: multilinear in 0 padding: local form}}
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

// -----

// Tests TOSA's elementwise ops: a broadcast dim (size 1 against a larger one)
// has no factor; sums are additive, a product with a zero shift and a float
// negation are linear in their tensor inputs (not in the shift or the zero
// points); a square, an integer product with a shift and other ops take no
// partial inputs.
func.func @tosa_elementwise(%x: tensor<8x16xf32>, %b: tensor<1x16xf32>,
                            %c: tensor<8x1xf32>, %i: tensor<8x16xi32>) -> tensor<8x16xf32> {
  // expected-remark@+1 {{no sharding rule for 'tosa.const'}}
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-remark@+1 {{no sharding rule for 'tosa.const'}}
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-remark@+1 {{no sharding rule for 'tosa.const'}}
  %shift3 = "tosa.const"() {values = dense<3> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-remark@+1 {{sharding rule: ([i, j], [_, j]) -> ([i, j]) {i=8, j=16} partial: additive}}
  %a = tosa.add %x, %b : (tensor<8x16xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j], [i, _]) -> ([i, j]) {i=8, j=16} partial: additive}}
  %s = tosa.sub %a, %c : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j], [_, j], [_]) -> ([i, j]) {i=8, j=16} partial: multilinear in 0, 1}}
  %m = tosa.mul %s, %b, %shift : (tensor<8x16xf32>, tensor<1x16xf32>, tensor<1xi8>) -> tensor<8x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j], [i, j], [_]) -> ([i, j]) {i=8, j=16}}}
  %sq = tosa.mul %m, %m, %shift : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<1xi8>) -> tensor<8x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j], [i, j], [_]) -> ([i, j]) {i=8, j=16}}}
  %ishift = tosa.mul %i, %i, %shift3 : (tensor<8x16xi32>, tensor<8x16xi32>, tensor<1xi8>) -> tensor<8x16xi32>
  // expected-remark@+1 {{sharding rule: ([i, j], [_], [_]) -> ([i, j]) {i=8, j=16} partial: multilinear in 0}}
  %n = tosa.negate %sq, %zp, %zp : (tensor<8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, j]) {i=8, j=16}}}
  %e = tosa.exp %n : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, j]) {i=8, j=16}}}
  %f = tosa.cast %ishift : (tensor<8x16xi32>) -> tensor<8x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j], [i, j]) -> ([i, j]) {i=8, j=16}}}
  %g = tosa.greater %e, %f : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  // expected-remark@+1 {{sharding rule: ([i, j], [i, j], [i, j]) -> ([i, j]) {i=8, j=16}}}
  %r = tosa.select %g, %e, %f : (tensor<8x16xi1>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// Tests tosa.matmul: a batch factor, a sum factor over the shared dim; linear
// in both inputs only when the zero points are zero.
func.func @tosa_matmul(%a: tensor<2x8x16xf32>, %b: tensor<2x16x32xf32>,
                       %ai: tensor<2x8x16xi8>, %bi: tensor<2x16x32xi8>) -> (tensor<2x8x32xf32>, tensor<2x8x32xi32>) {
  // expected-remark@+1 {{no sharding rule for 'tosa.const'}}
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-remark@+1 {{no sharding rule for 'tosa.const'}}
  %izp = "tosa.const"() {values = dense<5> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-remark@+1 {{sharding rule: ([i, j, k], [i, k, l], [_], [_]) -> ([i, j, l]) {i=2, j=8, k=16 sum, l=32} partial: multilinear in 0, 1 padding: masked operands}}
  %r = tosa.matmul %a, %b, %zp, %zp : (tensor<2x8x16xf32>, tensor<2x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x32xf32>
  // expected-remark@+1 {{sharding rule: ([i, j, k], [i, k, l], [_], [_]) -> ([i, j, l]) {i=2, j=8, k=16 sum, l=32}}}
  %ri = tosa.matmul %ai, %bi, %izp, %izp : (tensor<2x8x16xi8>, tensor<2x16x32xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x8x32xi32>
  return %r, %ri : tensor<2x8x32xf32>, tensor<2x8x32xi32>
}

// -----

// Tests TOSA's reductions: the reduced dim keeps size 1 with no factor; the
// input's dim there reduces with the op's combiner (reduce_all / reduce_any
// keep it whole); a sum is linear in its input.
func.func @tosa_reductions(%x: tensor<8x16xf32>, %p: tensor<8x16xi1>) {
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, _]) {i=8, j=16 sum} partial: multilinear padding: masked operands}}
  %s = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([_, j]) {i=8 max, j=16} padding: masked operands}}
  %mx = tosa.reduce_max %x {axis = 0 : i32} : (tensor<8x16xf32>) -> tensor<1x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, _]) {i=8, j=16 min}}}
  %mn = tosa.reduce_min %x {axis = 1 : i32} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, _]) {i=8, j=16 prod}}}
  %pr = tosa.reduce_product %x {axis = 1 : i32} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i, _]) {i=8, j=16 whole}}}
  %al = tosa.reduce_all %p {axis = 1 : i32} : (tensor<8x16xi1>) -> tensor<8x1xi1>
  return
}

// -----

// Tests tosa.transpose (result dim j is input dim perms[j]) and tosa.reshape
// (merged or split dims as tensor reshapes: a leading unit dim does not stop
// the next dim from being split; a reshape that is neither has no rule).
func.func @tosa_layout(%x: tensor<2x8x16xf32>, %y: tensor<1x8x16xf32>) {
  // expected-remark@+1 {{sharding rule: ([i, j, k]) -> ([k, i, j]) {i=2, j=8, k=16} partial: multilinear}}
  %t = tosa.transpose %x {perms = array<i32: 2, 0, 1>} : (tensor<2x8x16xf32>) -> tensor<16x2x8xf32>
  %s1 = tosa.const_shape {values = dense<[16, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-remark@+1 {{sharding rule: ([i, _, j], []) -> ([i, j]) {i=2 part, j=16} partial: multilinear}}
  %c = tosa.reshape %x, %s1 : (tensor<2x8x16xf32>, !tosa.shape<2>) -> tensor<16x16xf32>
  %s2 = tosa.const_shape {values = dense<[8, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-remark@+1 {{sharding rule: ([_, i, j], []) -> ([i, j]) {i=8, j=16} partial: multilinear}}
  %u = tosa.reshape %y, %s2 : (tensor<1x8x16xf32>, !tosa.shape<2>) -> tensor<8x16xf32>
  %s3 = tosa.const_shape {values = dense<[2, 4, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  // expected-remark@+1 {{sharding rule: ([i, j], []) -> ([i, _, j]) {i=2 part, j=16} partial: multilinear}}
  %e = tosa.reshape %u, %s3 : (tensor<8x16xf32>, !tosa.shape<3>) -> tensor<2x4x16xf32>
  %s4 = tosa.const_shape {values = dense<[16, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-remark@+1 {{no sharding rule for this form of 'tosa.reshape'}}
  %n = tosa.reshape %u, %s4 : (tensor<8x16xf32>, !tosa.shape<2>) -> tensor<16x8xf32>
  return
}

// -----

// Tests TOSA's convolutional and layout ops: conv2d's batch and output
// channels are parallel, its input channels whole (the bias is added after
// the channel sum), and its "same" spatial dims (padded by the window - 1,
// stride 1) split with a halo of the padding; poolings keep batch and
// channels, and an unpadded window of stride 1 splits with an overlap of the
// window - 1 (one of stride 2 stays whole); the dims a
// pad pads, a slice cuts, a tile repeats, a concat joins or an argmax
// reduces have no factor; a table is elementwise with the table whole; a
// concat of partial sums is a partial sum (additive).
func.func @tosa_cnn(%x: tensor<4x8x8x3xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>,
                    %y: tensor<4x8xf32>, %i: tensor<4x8xi8>, %tab: tensor<256xi8>) {
  // expected-remark@+1 {{no sharding rule for 'tosa.const'}}
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-remark@+1 {{sharding rule: ([i, l halo [1, 1], m halo [1, 1], k], [j, _, _, k], [j], [_], [_]) -> ([i, l, m, j]) {i=4, j=8, k=3 whole, l=8, m=8}}}
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<4x8x8x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8x8xf32>
  // expected-remark@+1 {{sharding rule: ([i, _, _, j]) -> ([i, _, _, j]) {i=4, j=8}}}
  %p = tosa.max_pool2d %c {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<4x8x8x8xf32>) -> tensor<4x4x4x8xf32>
  // expected-remark@+1 {{sharding rule: ([i, k overlap 2, l overlap 2, j], [_], [_]) -> ([i, k, l, j]) {i=4, j=8, k=2, l=2}}}
  %a = tosa.avg_pool2d %p, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<4x4x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x2x2x8xf32>
  %st = tosa.const_shape {values = dense<[0, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sz = tosa.const_shape {values = dense<[4, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-remark@+1 {{sharding rule: ([i, _], [], []) -> ([i, _]) {i=4}}}
  %s = tosa.slice %y, %st, %sz : (tensor<4x8xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<4x4xf32>
  %pads = tosa.const_shape {values = dense<[0, 0, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  // expected-remark@+1 {{sharding rule: ([i, _], [], [_]) -> ([i, _]) {i=4}}}
  %pd = tosa.pad %y, %pads, %zp : (tensor<4x8xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<4x10xf32>
  %mult = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-remark@+1 {{sharding rule: ([i, _], []) -> ([i, _]) {i=4}}}
  %t = tosa.tile %y, %mult : (tensor<4x8xf32>, !tosa.shape<2>) -> tensor<4x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, _], [i, _]) -> ([i, _]) {i=4} partial: additive}}
  %cat = tosa.concat %y, %pd {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x10xf32>) -> tensor<4x18xf32>
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([i]) {i=4, j=8 whole}}}
  %am = tosa.argmax %y {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4xi32>
  // expected-remark@+1 {{sharding rule: ([i, j], [_]) -> ([i, j]) {i=4, j=8}}}
  %tb = tosa.table %i, %tab : (tensor<4x8xi8>, tensor<256xi8>) -> tensor<4x8xi8>
  return
}

// -----

// Tests tosa.gather (an embedding lookup): batch, lookups and channels are
// parallel, the looked-up dim of the table a sum factor (vocabulary
// parallel); linear in the table, not in the ids.
func.func @tosa_gather(%table: tensor<2x100x16xf32>, %ids: tensor<2x8xi32>) -> tensor<2x8x16xf32> {
  // expected-remark@+1 {{sharding rule: ([i, k, l], [i, j]) -> ([i, j, l]) {i=2, j=8, k=100 sum, l=16} partial: multilinear in 0 padding: local form}}
  %r = tosa.gather %table, %ids : (tensor<2x100x16xf32>, tensor<2x8xi32>) -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}

// -----

// Tests that TOSA ops on unranked tensors have no rule (they compute
// replicated values) instead of a rule that ignores the unranked operand.
func.func @tosa_unranked(%a: tensor<8x4xf32>, %b: tensor<*xf32>, %z: tensor<*xf32>) {
  // expected-remark@+1 {{no sharding rule for this form of 'tosa.add'}}
  %r = tosa.add %a, %b : (tensor<8x4xf32>, tensor<*xf32>) -> tensor<8x4xf32>
  return
}

// -----

// Tests the other convolutions: conv3d as conv2d (its depth window of 1 is a
// plain factor), transpose_conv2d with whole spatial dims; depthwise_conv2d
// splits its channels c, and with them the output's (c major, the
// multiplier m minor) and the bias, and its same spatial dims with halos.
func.func @tosa_convs(%x3: tensor<2x4x8x8x3xf32>, %w3: tensor<8x1x3x3x3xf32>, %b8: tensor<8xf32>,
                      %x: tensor<2x8x8x3xf32>, %wt: tensor<8x3x3x3xf32>,
                      %wd: tensor<3x3x3x2xf32>, %bd: tensor<6xf32>) {
  // expected-remark@+1 {{no sharding rule for 'tosa.const'}}
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-remark@+1 {{sharding rule: ([i, l, m halo [1, 1], n halo [1, 1], k], [j, _, _, _, k], [j], [_], [_]) -> ([i, l, m, n, j]) {i=2, j=8, k=3 whole, l=4, m=8, n=8}}}
  %c3 = tosa.conv3d %x3, %w3, %b8, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 1, 1, 1, 1>, stride = array<i64: 1, 1, 1>} : (tensor<2x4x8x8x3xf32>, tensor<8x1x3x3x3xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8x8x8xf32>
  // expected-remark@+1 {{sharding rule: ([i, _, _, k], [j, _, _, k], [j], [_], [_]) -> ([i, _, _, j]) {i=2, j=8, k=3 whole}}}
  %ct = tosa.transpose_conv2d %x, %wt, %b8, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x8x8x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x10x10x8xf32>
  // expected-remark@+1 {{sharding rule: ([i, k halo [1, 1], l halo [1, 1], j], [_, _, j, _], [j], [_], [_]) -> ([i, k, l, j]) {i=2, j=3 part, k=8, l=8}}}
  %cd = tosa.depthwise_conv2d %x, %wd, %bd, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x8x3xf32>, tensor<3x3x3x2xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8x6xf32>
  return
}

// -----

// Tests tosa.rescale: elementwise; per channel, the multiplier and the shift
// are indexed by the last dim's factor, per tensor they are whole.
func.func @tosa_rescale(%x: tensor<8x16xi32>, %m: tensor<16xi32>, %s: tensor<16xi8>,
                        %m1: tensor<1xi32>, %s1: tensor<1xi8>, %izp: tensor<1xi32>, %ozp: tensor<1xi8>) {
  // expected-remark@+1 {{sharding rule: ([i, j], [j], [j], [_], [_]) -> ([i, j]) {i=8, j=16}}}
  %a = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<8x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<8x16xi8>
  // expected-remark@+1 {{sharding rule: ([i, j], [_], [_], [_], [_]) -> ([i, j]) {i=8, j=16}}}
  %b = tosa.rescale %x, %m1, %s1, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<8x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<8x16xi8>
  return
}

// -----

// Tests that a leading unit dim does not keep the next dim of its
// reassociation group whole: in 1x8x16 <-> 8x16 the 8 is the factor of the
// merged dim, for collapse_shape and expand_shape alike.
func.func @reshape_leading_unit(%x: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
  // expected-remark@+1 {{sharding rule: ([_, i, j]) -> ([i, j]) {i=8, j=16} partial: multilinear}}
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x8x16xf32> into tensor<8x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j]) -> ([_, i, j]) {i=8, j=16} partial: multilinear}}
  %e = tensor.expand_shape %c [[0, 1], [2]] output_shape [1, 8, 16] : tensor<8x16xf32> into tensor<1x8x16xf32>
  return %e : tensor<1x8x16xf32>
}

// -----

// Tests a float conversion: partial sums do not flow through it (a sum of
// rounded shares is not the rounded sum) unless the op allows rounding them
// (dist.round_partials: mixed precision's bf16 gradient reduction).
#id = affine_map<(i, j) -> (i, j)>
func.func @conversions(%x: tensor<8x16xf32>, %h: tensor<8x16xbf16>) -> (tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xf32>) {
  // expected-remark@+1 {{sharding rule: () -> ([i, j]) {i=8, j=16}}}
  %e = tensor.empty() : tensor<8x16xbf16>
  // expected-remark@+1 {{sharding rule: ([i, j], [i, j]) -> ([i, j]) {i=8, j=16} init-only operands [1]}}
  %exact = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x16xbf16>
  // expected-remark@+1 {{sharding rule: ([i, j], [i, j]) -> ([i, j]) {i=8, j=16} init-only operands [1] partial: multilinear in 0}}
  %rounded = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xbf16>) attrs = {dist.round_partials} {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x16xbf16>
  // expected-remark@+1 {{sharding rule: () -> ([i, j]) {i=8, j=16}}}
  %f = tensor.empty() : tensor<8x16xf32>
  // expected-remark@+1 {{sharding rule: ([i, j], [i, j]) -> ([i, j]) {i=8, j=16} init-only operands [1] partial: multilinear in 0}}
  %widened = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<8x16xbf16>) outs(%f : tensor<8x16xf32>) attrs = {dist.round_partials} {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %exact, %rounded, %widened : tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xf32>
}
