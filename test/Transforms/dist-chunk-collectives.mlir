// RUN: dist-opt %s --split-input-file --dist-chunk-collectives=max-mb=0.5 | FileCheck %s

// Tests a 1 MB gradient (256x1024 f32) reduce-scattered along dim 0, with
// chunks of at most 0.5 MB: two column chunks, each a tile of the matmul
// with its own zero fill (the full-size init is gone), reduce-scattered
// where the matmul was; the outputs are put together before the first use.
// CHECK-LABEL: func.func @weight_gradient
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[DY0:.*]] = tensor.extract_slice %arg1[0, 0] [64, 512] [1, 1] : tensor<64x1024xf32> to tensor<64x512xf32>
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<256x512xf32>
// CHECK: %[[Z0:.*]] = linalg.fill {dist.role = #dist.role<backward>} ins(%[[ZERO]] : f32) outs(%[[E0]] : tensor<256x512xf32>)
// CHECK: %[[G0:.*]] = linalg.matmul {dist.grad_of = 0 : i64, dist.role = #dist.role<backward>} ins(%arg0, %[[DY0]] : tensor<256x64xf32>, tensor<64x512xf32>) outs(%[[Z0]] : tensor<256x512xf32>)
// CHECK: %[[S0:.*]] = dist.reduce_scatter %[[G0]] on @mesh [dp] sum dim = 0 {origin = #dist.origin<partial>} : tensor<256x512xf32> -> tensor<64x512xf32>
// CHECK: %[[DY1:.*]] = tensor.extract_slice %arg1[0, 512] [64, 512] [1, 1]
// CHECK: linalg.fill
// CHECK: %[[G1:.*]] = linalg.matmul
// CHECK-SAME: ins(%arg0, %[[DY1]]
// CHECK: %[[S1:.*]] = dist.reduce_scatter %[[G1]] {{.*}} : tensor<256x512xf32> -> tensor<64x512xf32>
// CHECK: %[[A:.*]] = arith.mulf %arg2, %arg2
// CHECK: %[[O:.*]] = tensor.empty() : tensor<64x1024xf32>
// CHECK: %[[O0:.*]] = tensor.insert_slice %[[S0]] into %[[O]][0, 0] [64, 512] [1, 1]
// CHECK: %[[O1:.*]] = tensor.insert_slice %[[S1]] into %[[O0]][0, 512] [64, 512] [1, 1]
// CHECK: arith.addf %[[O1]], %[[A]]
// CHECK-NOT: 256x1024
dist.mesh @mesh [dp = 4]
func.func @weight_gradient(%xt: tensor<256x64xf32>, %dy: tensor<64x1024xf32>, %w: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1024xf32>
  %z = linalg.fill {dist.role = #dist.role<backward>} ins(%c0 : f32) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %g = linalg.matmul {dist.grad_of = 0 : i64, dist.role = #dist.role<backward>} ins(%xt, %dy : tensor<256x64xf32>, tensor<64x1024xf32>) outs(%z : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %s = dist.reduce_scatter %g on @mesh [dp] sum dim = 0 {origin = #dist.origin<partial>} : tensor<256x1024xf32> -> tensor<64x1024xf32>
  %a = arith.mulf %w, %w : tensor<64x1024xf32>
  %u = arith.addf %s, %a : tensor<64x1024xf32>
  return %u : tensor<64x1024xf32>
}

// -----

// Tests the chunk count: a 1.5 MB input needs 3 chunks of 0.5 MB, and 3 does
// not divide 512, so it is the next divisor, 4; the free dim is the largest
// one the collective does not cut (dim 1 of 3: dim 2 is the block dim). A
// generic reading a transposed operand is tiled through its maps, and a
// zero fill shared with another op (CSE) is made again per chunk; the
// shared one stays for the other op.
// CHECK-LABEL: func.func @divisor_and_shared_fill
// CHECK-COUNT-4: dist.reduce_scatter {{.*}} dim = 2 : tensor<6x128x128xf32> -> tensor<6x128x32xf32>
// CHECK-NOT: dist.reduce_scatter
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<6x512x128xf32>)
// CHECK: %[[O:.*]] = tensor.empty() : tensor<6x512x32xf32>
// CHECK-COUNT-4: tensor.insert_slice
#in = affine_map<(a, b, c) -> (a, c, b)>
#out = affine_map<(a, b, c) -> (a, b, c)>
dist.mesh @mesh [dp = 4]
func.func @divisor_and_shared_fill(%x: tensor<6x128x512xf32>) -> (tensor<6x512x32xf32>, tensor<6x512x128xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x512x128xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<6x512x128xf32>) -> tensor<6x512x128xf32>
  %t = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<6x128x512xf32>) outs(%z : tensor<6x512x128xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6x512x128xf32>
  %r = dist.reduce_scatter %t on @mesh [dp] sum dim = 2 : tensor<6x512x128xf32> -> tensor<6x512x32xf32>
  %other = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<6x128x512xf32>) outs(%z : tensor<6x512x128xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.mulf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6x512x128xf32>
  return %r, %other : tensor<6x512x32xf32>, tensor<6x512x128xf32>
}

// -----

// Tests what is left whole: an input of at most max-mb; a collective whose
// output is as large as its input (all_reduce: the full size lives on
// anyway); a producer whose result has another use; an input that is an
// argument (nothing to tile); an async collective.
// CHECK-LABEL: func.func @left_alone
// CHECK: dist.reduce_scatter %{{.*}} : tensor<256x256xf32> -> tensor<64x256xf32>
// CHECK: dist.all_reduce %{{.*}} : tensor<256x1024xf32>
// CHECK: dist.reduce_scatter %{{.*}} : tensor<256x1024xf32> -> tensor<64x1024xf32>
// CHECK: dist.reduce_scatter %arg1 {{.*}} : tensor<256x1024xf32> -> tensor<64x1024xf32>
// CHECK: dist.reduce_scatter async %{{.*}} : tensor<256x1024xf32> -> tensor<64x1024xf32>
// CHECK-NOT: tensor.insert_slice
dist.mesh @mesh [dp = 4]
func.func @left_alone(%x: tensor<256x1024xf32>, %y: tensor<256x1024xf32>) -> (tensor<64x256xf32>, tensor<256x1024xf32>, tensor<64x1024xf32>, tensor<256x1024xf32>, tensor<64x1024xf32>, tensor<64x1024xf32>) {
  %small = tensor.extract_slice %x[0, 0] [256, 256] [1, 1] : tensor<256x1024xf32> to tensor<256x256xf32>
  %e = tensor.empty() : tensor<256x256xf32>
  %sq = linalg.mul ins(%small, %small : tensor<256x256xf32>, tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r0 = dist.reduce_scatter %sq on @mesh [dp] sum dim = 0 : tensor<256x256xf32> -> tensor<64x256xf32>
  %e1 = tensor.empty() : tensor<256x1024xf32>
  %m = linalg.mul ins(%x, %x : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%e1 : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %r1 = dist.all_reduce %m on @mesh [dp] sum : tensor<256x1024xf32>
  %n = linalg.add ins(%x, %y : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%e1 : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %r2 = dist.reduce_scatter %n on @mesh [dp] sum dim = 0 : tensor<256x1024xf32> -> tensor<64x1024xf32>
  %r3 = dist.reduce_scatter %y on @mesh [dp] sum dim = 0 : tensor<256x1024xf32> -> tensor<64x1024xf32>
  %p = linalg.sub ins(%x, %y : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%e1 : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %r4, %tok = dist.reduce_scatter async %p on @mesh [dp] sum dim = 0 : tensor<256x1024xf32> -> tensor<64x1024xf32>
  %r4w = dist.wait %tok, %r4 : tensor<64x1024xf32>
  return %r0, %r1, %r2, %n, %r3, %r4w : tensor<64x256xf32>, tensor<256x1024xf32>, tensor<64x1024xf32>, tensor<256x1024xf32>, tensor<64x1024xf32>, tensor<64x1024xf32>
}
