// End-to-end: one data-parallel training step of a two-layer MLP (forward,
// MSE loss, backward, SGD update). The batch of x and y is split over dp and
// the weights are replicated: the weight gradients and the loss are partial
// sums over dp (all_reduce), and the updated weights must come out identical
// on every rank and equal to the serial run, on 2, 4 and 8 ranks.
//
//   h = relu(x @ w1)                 x: 32x16, w1: 16x32
//   o = h @ w2                       w2: 32x8, y: 32x8
//   loss = sum((o - y)^2) / 2B
//   w1 -= lr * dw1, w2 -= lr * dw2

// RUN: dist-run %s --mesh 2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh mesh=8 | FileCheck %s -DN=8

// Nothing on stderr either (no warning from the LLVM translation about the
// runtime declarations' markings).
// RUN: dist-run %s --mesh 2 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: warning
// QUIET: PASS: 3 of 3 result(s) match the serial run

// CHECK: dist-run: @data_parallel_mlp on [[N]] rank(s), mesh @mesh [dp = [[N]]]
// CHECK-NEXT: result #0 tensor<16x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 tensor<32x8xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #2 tensor<f32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 3 of 3 result(s) match the serial run
// CHECK-NOT: FAIL

dist.mesh @mesh [dp = 2]

#id = affine_map<(i, j) -> (i, j)>
#to_scalar = affine_map<(i, j) -> ()>

func.func @data_parallel_mlp(
    %x: tensor<32x16xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>},
    %y: tensor<32x8xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>},
    %w1: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
    %w2: tensor<32x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
    %lr: f32)
    -> (tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<32x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %inv_batch = arith.constant 0.03125 : f32
  %half = arith.constant 0.5 : f32

  // Forward.
  %e_bh = tensor.empty() : tensor<32x32xf32>
  %z_bh = linalg.fill ins(%zero : f32) outs(%e_bh : tensor<32x32xf32>) -> tensor<32x32xf32>
  %pre = linalg.matmul ins(%x, %w1 : tensor<32x16xf32>, tensor<16x32xf32>)
      outs(%z_bh : tensor<32x32xf32>) -> tensor<32x32xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%pre : tensor<32x32xf32>) outs(%e_bh : tensor<32x32xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<32x32xf32>
  %e_bo = tensor.empty() : tensor<32x8xf32>
  %z_bo = linalg.fill ins(%zero : f32) outs(%e_bo : tensor<32x8xf32>) -> tensor<32x8xf32>
  %o = linalg.matmul ins(%h, %w2 : tensor<32x32xf32>, tensor<32x8xf32>)
      outs(%z_bo : tensor<32x8xf32>) -> tensor<32x8xf32>

  // Loss and its gradient d_o = (o - y) / B.
  %diff = linalg.sub ins(%o, %y : tensor<32x8xf32>, tensor<32x8xf32>)
      outs(%e_bo : tensor<32x8xf32>) -> tensor<32x8xf32>
  %e_s = tensor.empty() : tensor<f32>
  %z_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<f32>) -> tensor<f32>
  %sq_sum = linalg.generic {indexing_maps = [#id, #to_scalar], iterator_types = ["reduction", "reduction"]}
      ins(%diff : tensor<32x8xf32>) outs(%z_s : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%sq_sum : tensor<f32>) outs(%e_s : tensor<f32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %half : f32
    %l = arith.mulf %m, %inv_batch : f32
    linalg.yield %l : f32
  } -> tensor<f32>
  %d_o = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%diff : tensor<32x8xf32>) outs(%e_bo : tensor<32x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %g = arith.mulf %a, %inv_batch : f32
    linalg.yield %g : f32
  } -> tensor<32x8xf32>

  // Backward: dw2 = h^T d_o, d_h = d_o w2^T, d_pre = d_h * (pre > 0),
  // dw1 = x^T d_pre. The contractions over the batch are partial over dp.
  %e_hb = tensor.empty() : tensor<32x32xf32>
  %h_t = linalg.transpose ins(%h : tensor<32x32xf32>) outs(%e_hb : tensor<32x32xf32>) permutation = [1, 0]
  %e_w2 = tensor.empty() : tensor<32x8xf32>
  %z_w2 = linalg.fill ins(%zero : f32) outs(%e_w2 : tensor<32x8xf32>) -> tensor<32x8xf32>
  %d_w2 = linalg.matmul ins(%h_t, %d_o : tensor<32x32xf32>, tensor<32x8xf32>)
      outs(%z_w2 : tensor<32x8xf32>) -> tensor<32x8xf32>
  %e_ob = tensor.empty() : tensor<8x32xf32>
  %w2_t = linalg.transpose ins(%w2 : tensor<32x8xf32>) outs(%e_ob : tensor<8x32xf32>) permutation = [1, 0]
  %d_h = linalg.matmul ins(%d_o, %w2_t : tensor<32x8xf32>, tensor<8x32xf32>)
      outs(%z_bh : tensor<32x32xf32>) -> tensor<32x32xf32>
  %d_pre = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d_h, %pre : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e_bh : tensor<32x32xf32>) {
  ^bb0(%g: f32, %p: f32, %out: f32):
    %pos = arith.cmpf ogt, %p, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<32x32xf32>
  %e_ib = tensor.empty() : tensor<16x32xf32>
  %x_t = linalg.transpose ins(%x : tensor<32x16xf32>) outs(%e_ib : tensor<16x32xf32>) permutation = [1, 0]
  %e_w1 = tensor.empty() : tensor<16x32xf32>
  %z_w1 = linalg.fill ins(%zero : f32) outs(%e_w1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %d_w1 = linalg.matmul ins(%x_t, %d_pre : tensor<16x32xf32>, tensor<32x32xf32>)
      outs(%z_w1 : tensor<16x32xf32>) -> tensor<16x32xf32>

  // SGD update.
  %new_w1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w1, %d_w1 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e_w1 : tensor<16x32xf32>) {
  ^bb0(%w: f32, %g: f32, %out: f32):
    %step = arith.mulf %lr, %g : f32
    %n = arith.subf %w, %step : f32
    linalg.yield %n : f32
  } -> tensor<16x32xf32>
  %new_w2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w2, %d_w2 : tensor<32x8xf32>, tensor<32x8xf32>) outs(%e_w2 : tensor<32x8xf32>) {
  ^bb0(%w: f32, %g: f32, %out: f32):
    %step = arith.mulf %lr, %g : f32
    %n = arith.subf %w, %step : f32
    linalg.yield %n : f32
  } -> tensor<32x8xf32>
  return %new_w1, %new_w2, %loss : tensor<16x32xf32>, tensor<32x8xf32>, tensor<f32>
}
