// RUN: dist-opt %s --split-input-file --dist-split-reductions | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-split-reductions='min-threads=128 min-chunk=1024' | FileCheck %s --check-prefix=FEW
// RUN: dist-opt %s --split-input-file --dist-split-reductions='block-min-extent=256 block-min-outputs=1024' | FileCheck %s --check-prefix=BLOCK

// A bias gradient: a column sum of 8192 rows into 64 outputs (64 threads).
// Split into k = 256 interleaved chunks of 32 rows (the largest divisor
// with 64 x k <= 65536 and 8192 / k >= 32; partial sum p of a column adds
// rows p, p + 256, ..., so consecutive threads read consecutive elements):
// 16384 partial sums in parallel, then 256 per output; the gradient
// marking moves to the combining op.
// CHECK-LABEL: func.func @bias_grad
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [32, 256, 64] : tensor<8192x64xf32> into tensor<32x256x64xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<256x64xf32>)
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[X]] : tensor<32x256x64xf32>) outs(%[[ZERO]] : tensor<256x64xf32>) {
// CHECK-NOT: dist.grad_of
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[PARTIAL]] : tensor<256x64xf32>) outs(%{{.*}} : tensor<64xf32>) attrs = {dist.grad_of = 0 : i64}
// With chunks of at least 1024 rows and at most 128 threads: k = 2.
// FEW-LABEL: func.func @bias_grad
// FEW: tensor.expand_shape {{.*}} output_shape [4096, 2, 64]
#x = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @bias_grad(%x: tensor<8192x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [#x, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8192x64xf32>) outs(%init : tensor<64xf32>) attrs = {dist.grad_of = 0 : i64} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A loss: a sum of 4096 values to a scalar (one thread) becomes 128 chunks
// of 32 (the extent bounds it), then their sum.
// CHECK-LABEL: func.func @loss
// CHECK: tensor.expand_shape {{.*}} output_shape [32, 128] : tensor<4096xf32> into tensor<32x128xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]}
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]}
#v = affine_map<(i) -> (i)>
#s = affine_map<(i) -> ()>
func.func @loss(%x: tensor<4096xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]}
      ins(%x : tensor<4096xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A sum of 2^21 values to a scalar: 65536 chunks of 32, whose combination
// (65536 long, more than min-chunk^2) is split again into 2048 chunks, and
// that one again into 64: a tree of reductions, each thread's chain short.
// CHECK-LABEL: func.func @long_sum
// CHECK: tensor.expand_shape {{.*}} output_shape [32, 65536] : tensor<2097152xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [32, 2048] : tensor<65536xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [32, 64] : tensor<2048xf32>
// CHECK-NOT: tensor.expand_shape
// CHECK: return
#v = affine_map<(i) -> (i)>
#s = affine_map<(i) -> ()>
func.func @long_sum(%x: tensor<2097152xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]}
      ins(%x : tensor<2097152xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Several adjacent reductions become one over their product first (upstream
// splits one reduction loop): a loss summed over a 256x256 matrix (one
// thread for 65536 values) is a sum of 65536, split as above; a bias
// gradient over batch x sequence (4 x 1024 rows, 64 outputs) is one of
// 4096 rows, split into 128 chunks of 32. Markings follow.
// CHECK-LABEL: func.func @matrix_loss
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<256x256xf32> into tensor<65536xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{.*}} output_shape [32, 2048] : tensor<65536xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [32, 64] : tensor<2048xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} {{.*}} attrs = {dist.grad_of = 3 : i64, dist.role = #dist.role<loss>}
// CHECK-LABEL: func.func @bias_grad_3d
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<4x1024x64xf32> into tensor<4096x64xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [32, 128, 64] : tensor<4096x64xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]}
#x = affine_map<(i, j) -> (i, j)>
#scalar = affine_map<(i, j) -> ()>
func.func @matrix_loss(%x: tensor<256x256xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#x, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<256x256xf32>) outs(%init : tensor<f32>)
      attrs = {dist.grad_of = 3 : i64, dist.role = #dist.role<loss>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
#rows = affine_map<(b, s, h) -> (b, s, h)>
#column = affine_map<(b, s, h) -> (h)>
func.func @bias_grad_3d(%x: tensor<4x1024x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [#rows, #column], iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%x : tensor<4x1024x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// Reductions that are not adjacent in the iteration space (rows and
// columns of each 2-D slice summed, the middle dimension kept) stay whole.
// CHECK-LABEL: func.func @not_adjacent
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: return
#cube = affine_map<(i, j, k) -> (i, j, k)>
#middle = affine_map<(i, j, k) -> (j)>
func.func @not_adjacent(%x: tensor<64x4x64xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#cube, #middle], iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x : tensor<64x4x64xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Left whole: a row reduction with enough rows (65536 threads already)
// whose rows are one 32-byte sector (8 f32: nothing to interleave), an
// extent with no divisor in range (4099 is prime), a sum whose adds promise no
// signed overflow (a chunk's partial sum could overflow), a max promising
// no NaNs (the neutral element is one), a map that is not plain dimensions
// (a constant index), and a matmul (for the BLAS).
// CHECK-LABEL: func.func @left
// CHECK-NOT: tensor.expand_shape
// CHECK: return
#x = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#v = affine_map<(i) -> (i)>
#s = affine_map<(i) -> ()>
func.func @left(%rows: tensor<65536x8xf32>, %rinit: tensor<65536xf32>,
                %prime: tensor<4099xf32>, %sinit: tensor<f32>,
                %logits: tensor<4096xf32>) -> (tensor<65536xf32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<f32>, tensor<8x8xf32>) {
  %r = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%rows : tensor<65536x8xf32>) outs(%rinit : tensor<65536xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<65536xf32>
  %p = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]}
      ins(%prime : tensor<4099xf32>) outs(%sinit : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %ints = arith.constant dense<1> : tensor<4096xi32>
  %iinit = arith.constant dense<0> : tensor<i32>
  %isum = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]}
      ins(%ints : tensor<4096xi32>) outs(%iinit : tensor<i32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %a, %acc overflow<nsw> : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  %max = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]}
      ins(%logits : tensor<4096xf32>) outs(%sinit : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maxnumf %a, %acc fastmath<nnan> : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %scale = arith.constant dense<2.0> : tensor<4096x1xf32>
  %first = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i, 0)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%logits, %scale : tensor<4096xf32>, tensor<4096x1xf32>) outs(%sinit : tensor<f32>) {
  ^bb0(%a: f32, %w: f32, %acc: f32):
    %prod = arith.mulf %a, %w : f32
    %s = arith.addf %prod, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %a = arith.constant dense<1.0> : tensor<8x4096xf32>
  %b = arith.constant dense<1.0> : tensor<4096x8xf32>
  %c = arith.constant dense<0.0> : tensor<8x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x4096xf32>, tensor<4096x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r, %p, %isum, %max, %first, %mm : tensor<65536xf32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<f32>, tensor<8x8xf32>
}

// -----

// A layernorm gain's gradient: a column sum of products over 8192 rows into
// 1024 outputs is a contraction to upstream (a batch loop j and a k loop i)
// but no GEMM (no m or n loop), so no BLAS call takes it: split like a
// column sum (k = 64 chunks of 128 rows), the product inside the partials.
// CHECK-LABEL: func.func @gain_grad
// CHECK: tensor.expand_shape %{{.*}} output_shape [128, 64, 1024] : tensor<8192x1024xf32> into tensor<128x64x1024xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<128x64x1024xf32>, tensor<128x64x1024xf32>) outs(%{{.*}} : tensor<64x1024xf32>)
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<64x1024xf32>) outs(%{{.*}} : tensor<1024xf32>)
#xg = affine_map<(i, j) -> (i, j)>
#colg = affine_map<(i, j) -> (j)>
func.func @gain_grad(%x: tensor<8192x1024xf32>, %dy: tensor<8192x1024xf32>, %init: tensor<1024xf32>) -> tensor<1024xf32> {
  %r = linalg.generic {indexing_maps = [#xg, #xg, #colg], iterator_types = ["reduction", "parallel"]}
      ins(%x, %dy : tensor<8192x1024xf32>, tensor<8192x1024xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// -----

// A row sum of products over the rows' contiguous dimension with 131072
// outputs (softmax's backward): enough threads, but each would read its own
// row, consecutive threads 4 KB apart. Split into 8 interleaved partial sums
// per row (8 f32 = a 32-byte sector), the partials last: consecutive
// threads read consecutive elements; then the 8 of each row are summed.
// CHECK-LABEL: func.func @softmax_row_sum
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [8, 16384, 128, 8] : tensor<8x16384x1024xf32> into tensor<8x16384x128x8xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<8x16384x128x8xf32>, tensor<8x16384x128x8xf32>) outs(%{{.*}} : tensor<8x16384x8xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<8x16384x8xf32>) outs(%{{.*}} : tensor<8x16384xf32>)
// bf16 rows: 16 partial sums (16 bf16 = 32 bytes).
// CHECK-LABEL: func.func @bf16_row_max
// CHECK: output_shape [131072, 64, 16] : tensor<131072x1024xbf16> into tensor<131072x64x16xbf16>
// A reduction along a dimension that is not contiguous stays whole.
// CHECK-LABEL: func.func @strided_row_sum
// CHECK-NOT: tensor.expand_shape
// With block-min-extent, the f32 rows dist-gpu-block-reductions takes are
// left whole; the bf16 one (16-bit result) is still split.
// BLOCK-LABEL: func.func @softmax_row_sum
// BLOCK-NOT: tensor.expand_shape
// BLOCK-LABEL: func.func @bf16_row_max
// BLOCK: output_shape [131072, 64, 16]
#xr = affine_map<(b, r, j) -> (b, r, j)>
#or = affine_map<(b, r, j) -> (b, r)>
func.func @softmax_row_sum(%x: tensor<8x16384x1024xf32>, %y: tensor<8x16384x1024xf32>, %init: tensor<8x16384xf32>) -> tensor<8x16384xf32> {
  %r = linalg.generic {indexing_maps = [#xr, #xr, #or], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : tensor<8x16384x1024xf32>, tensor<8x16384x1024xf32>) outs(%init : tensor<8x16384xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16384xf32>
  return %r : tensor<8x16384xf32>
}
#x2 = affine_map<(r, j) -> (r, j)>
#o2 = affine_map<(r, j) -> (r)>
func.func @bf16_row_max(%x: tensor<131072x1024xbf16>, %init: tensor<131072xbf16>) -> tensor<131072xbf16> {
  %r = linalg.generic {indexing_maps = [#x2, #o2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<131072x1024xbf16>) outs(%init : tensor<131072xbf16>) {
  ^bb0(%a: bf16, %acc: bf16):
    %m = arith.maximumf %a, %acc : bf16
    linalg.yield %m : bf16
  } -> tensor<131072xbf16>
  return %r : tensor<131072xbf16>
}
#t2 = affine_map<(r, j) -> (j, r)>
func.func @strided_row_sum(%x: tensor<1024x131072xf32>, %init: tensor<131072xf32>) -> tensor<131072xf32> {
  %r = linalg.generic {indexing_maps = [#t2, #o2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1024x131072xf32>) outs(%init : tensor<131072xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<131072xf32>
  return %r : tensor<131072xf32>
}

// -----

// A layernorm's row mean over 8192 bf16 rows: too few outputs (8192 <
// min-threads), so 8 chunks would be the thread budget's choice (8192 x 8
// = 65536), but 8 bf16 partial sums of a row read 16 of a sector's 32
// bytes: 16, a sector's worth, the partials last as a row sum's. An f32
// row only rounded to bf16 (a mixed product's result, which
// dist-matmul-to-blas makes in bf16) counts as bf16 too; an f32 row that
// is not only rounded keeps the budget's 8, the partials first.
// CHECK-LABEL: func.func @few_bf16_rows
// CHECK: output_shape [8192, 64, 16] : tensor<8192x1024xbf16> into tensor<8192x64x16xbf16>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}} : tensor<8192x64x16xbf16>) outs(%{{.*}} : tensor<8192x16xf32>)
// CHECK-LABEL: func.func @few_rounded_rows
// CHECK: output_shape [8192, 64, 16] : tensor<8192x1024xf32> into tensor<8192x64x16xf32>
// CHECK-LABEL: func.func @few_f32_rows
// CHECK: output_shape [8192, 128, 8] : tensor<8192x1024xf32> into tensor<8192x128x8xf32>
// CHECK: outs(%{{.*}} : tensor<8x8192xf32>)
// BLOCK-LABEL: func.func @few_bf16_rows
// BLOCK-NOT: tensor.expand_shape
// BLOCK-LABEL: func.func @few_f32_rows
// BLOCK-NOT: tensor.expand_shape
// BLOCK: return
#xl = affine_map<(r, j) -> (r, j)>
#ol = affine_map<(r, j) -> (r)>
func.func @few_bf16_rows(%x: tensor<8192x1024xbf16>, %init: tensor<8192xf32>) -> tensor<8192xf32> {
  %r = linalg.generic {indexing_maps = [#xl, #ol], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8192x1024xbf16>) outs(%init : tensor<8192xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %f = arith.extf %a : bf16 to f32
    %s = arith.addf %acc, %f : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %r : tensor<8192xf32>
}
func.func @few_rounded_rows(%x: tensor<8192x1024xf32>, %init: tensor<8192xf32>) -> tensor<8192xf32> {
  %r = linalg.generic {indexing_maps = [#xl, #ol], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8192x1024xf32>) outs(%init : tensor<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.truncf %a : f32 to bf16
    %f = arith.extf %t : bf16 to f32
    %s = arith.addf %acc, %f : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %r : tensor<8192xf32>
}
func.func @few_f32_rows(%x: tensor<8192x1024xf32>, %init: tensor<8192xf32>) -> tensor<8192xf32> {
  %r = linalg.generic {indexing_maps = [#xl, #ol], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8192x1024xf32>) outs(%init : tensor<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %r : tensor<8192xf32>
}

// -----

// Reductions that read their loop indices split too, the indices
// renumbered for the split loops. A one-hot pick by label over 4096
// elements: 128 chunks of 32, the picked position chunk * 128 + partial
// (the partial loop is the inner one).
// CHECK-LABEL: func.func @one_hot_pick
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<32x128xf32>) outs(%{{.*}} : tensor<128xf32>)
// CHECK-DAG: %[[CHUNK:.*]] = linalg.index 0 : index
// CHECK-DAG: %[[PART:.*]] = linalg.index 1 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[START:.*]] = arith.muli %[[CHUNK]], %[[C128]] : index
// CHECK: %[[AT:.*]] = arith.addi %[[START]], %[[PART]] : index
// CHECK: arith.cmpi eq, %[[AT]], %{{.*}} : index
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<128xf32>)
// CHECK-NOT: linalg.index
// CHECK: return
#pv = affine_map<(i) -> (i)>
#ps = affine_map<(i) -> ()>
func.func @one_hot_pick(%logits: tensor<4096xf32>, %init: tensor<f32>, %label: index) -> tensor<f32> {
  %pick = linalg.generic {indexing_maps = [#pv, #ps], iterator_types = ["reduction"]}
      ins(%logits : tensor<4096xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 0 : index
    %hit = arith.cmpi eq, %i, %label : index
    %zero = arith.constant 0.0 : f32
    %v = arith.select %hit, %a, %zero : f32
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %pick : tensor<f32>
}

// A causal mask's row max (attention's softmax; the reduced loop j before
// the row loop i): 8 interleaved partials per row, j = chunk * 8 + partial,
// and i, the loop after the reduction, moves from 2 to 3.
// CHECK-LABEL: func.func @causal_row_max
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%{{.*}} : tensor<64x1024x128x8xf32>) outs(%{{.*}} : tensor<64x1024x8xf32>)
// CHECK-DAG: %[[CHUNK:.*]] = linalg.index 1 : index
// CHECK-DAG: %[[PART:.*]] = linalg.index 2 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[START:.*]] = arith.muli %[[CHUNK]], %[[C8]] : index
// CHECK: %[[J:.*]] = arith.addi %[[START]], %[[PART]] : index
// CHECK: %[[ROW:.*]] = linalg.index 3 : index
// CHECK: arith.cmpi ule, %[[J]], %[[ROW]] : index
#cx = affine_map<(b, j, i) -> (b, i, j)>
#co = affine_map<(b, j, i) -> (b, i)>
func.func @causal_row_max(%x: tensor<64x1024x1024xf32>, %init: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %r = linalg.generic {indexing_maps = [#cx, #co], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<64x1024x1024xf32>) outs(%init : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %j = linalg.index 1 : index
    %i = linalg.index 2 : index
    %keep = arith.cmpi ule, %j, %i : index
    %low = arith.constant 0xFF800000 : f32
    %v = arith.select %keep, %a, %low : f32
    %m = arith.maximumf %v, %acc : f32
    linalg.yield %m : f32
  } -> tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
}
