// One training step of a two-layer MLP (forward, backward, SGD) written for a
// single device, annotated for a 2x2 mesh: the batch is split over "dp" (data
// parallel), the first weight by columns and the second by rows over "mp"
// (Megatron column- then row-parallel). Everything else is left to dist.
//
//   h = relu(x @ w1)                 x: 8x16, w1: 16x32
//   o = h @ w2                       w2: 32x4
//   loss = sum((o - y)^2) / 2B       y: 8x4
//   w1 -= lr * dw1, w2 -= lr * dw2
//
// The `dist.role` tags say which part of the step each op belongs to.

dist.mesh @mesh_2x2 [dp = 2, mp = 2]

#map_2d = affine_map<(i, j) -> (i, j)>
#map_scalar = affine_map<(i, j) -> ()>

func.func @mlp_train_step(
    %x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{dp}, {}]>},
    %y: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{dp}, {}]>},
    %w1: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{}, {mp}]>},
    %w2: tensor<32x4xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{mp}, {}]>},
    %lr: f32)
    -> (tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{}, {mp}]>},
        tensor<32x4xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{mp}, {}]>},
        tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %inv_batch = arith.constant 0.125 : f32
  %half = arith.constant 0.5 : f32

  // Forward.
  %e_8x32 = tensor.empty() : tensor<8x32xf32>
  %z_8x32 = linalg.fill ins(%zero : f32) outs(%e_8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %pre = linalg.matmul {dist.role = #dist.role<forward>}
      ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>)
      outs(%z_8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.generic {indexing_maps = [#map_2d, #map_2d], iterator_types = ["parallel", "parallel"]}
      ins(%pre : tensor<8x32xf32>) outs(%e_8x32 : tensor<8x32xf32>)
      attrs = {dist.role = #dist.role<forward>} {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e_8x4 = tensor.empty() : tensor<8x4xf32>
  %z_8x4 = linalg.fill ins(%zero : f32) outs(%e_8x4 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %o = linalg.matmul {dist.role = #dist.role<forward>}
      ins(%h, %w2 : tensor<8x32xf32>, tensor<32x4xf32>)
      outs(%z_8x4 : tensor<8x4xf32>) -> tensor<8x4xf32>

  // Loss and its gradient: d = (o - y) / B.
  %diff = linalg.sub {dist.role = #dist.role<loss>}
      ins(%o, %y : tensor<8x4xf32>, tensor<8x4xf32>)
      outs(%e_8x4 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e_s = tensor.empty() : tensor<f32>
  %z_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<f32>) -> tensor<f32>
  %sq_sum = linalg.generic {indexing_maps = [#map_2d, #map_scalar], iterator_types = ["reduction", "reduction"]}
      ins(%diff : tensor<8x4xf32>) outs(%z_s : tensor<f32>)
      attrs = {dist.role = #dist.role<loss>} {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%sq_sum : tensor<f32>) outs(%e_s : tensor<f32>)
      attrs = {dist.role = #dist.role<loss>} {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %half : f32
    %l = arith.mulf %m, %inv_batch : f32
    linalg.yield %l : f32
  } -> tensor<f32>
  %d_o = linalg.generic {indexing_maps = [#map_2d, #map_2d], iterator_types = ["parallel", "parallel"]}
      ins(%diff : tensor<8x4xf32>) outs(%e_8x4 : tensor<8x4xf32>)
      attrs = {dist.role = #dist.role<backward>} {
  ^bb0(%a: f32, %out: f32):
    %g = arith.mulf %a, %inv_batch : f32
    linalg.yield %g : f32
  } -> tensor<8x4xf32>

  // Backward.
  %e_32x8 = tensor.empty() : tensor<32x8xf32>
  %h_t = linalg.transpose ins(%h : tensor<8x32xf32>) outs(%e_32x8 : tensor<32x8xf32>)
      permutation = [1, 0] {dist.role = #dist.role<backward>}
  %e_32x4 = tensor.empty() : tensor<32x4xf32>
  %z_32x4 = linalg.fill ins(%zero : f32) outs(%e_32x4 : tensor<32x4xf32>) -> tensor<32x4xf32>
  %d_w2 = linalg.matmul {dist.role = #dist.role<backward>}
      ins(%h_t, %d_o : tensor<32x8xf32>, tensor<8x4xf32>)
      outs(%z_32x4 : tensor<32x4xf32>) -> tensor<32x4xf32>
  %e_4x32 = tensor.empty() : tensor<4x32xf32>
  %w2_t = linalg.transpose ins(%w2 : tensor<32x4xf32>) outs(%e_4x32 : tensor<4x32xf32>)
      permutation = [1, 0] {dist.role = #dist.role<backward>}
  %d_h = linalg.matmul {dist.role = #dist.role<backward>}
      ins(%d_o, %w2_t : tensor<8x4xf32>, tensor<4x32xf32>)
      outs(%z_8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %d_pre = linalg.generic {indexing_maps = [#map_2d, #map_2d, #map_2d], iterator_types = ["parallel", "parallel"]}
      ins(%d_h, %pre : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e_8x32 : tensor<8x32xf32>)
      attrs = {dist.role = #dist.role<backward>} {
  ^bb0(%g: f32, %p: f32, %out: f32):
    %pos = arith.cmpf ogt, %p, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e_16x8 = tensor.empty() : tensor<16x8xf32>
  %x_t = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e_16x8 : tensor<16x8xf32>)
      permutation = [1, 0] {dist.role = #dist.role<backward>}
  %e_16x32 = tensor.empty() : tensor<16x32xf32>
  %z_16x32 = linalg.fill ins(%zero : f32) outs(%e_16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %d_w1 = linalg.matmul {dist.role = #dist.role<backward>}
      ins(%x_t, %d_pre : tensor<16x8xf32>, tensor<8x32xf32>)
      outs(%z_16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>

  // SGD update: w -= lr * dw.
  %new_w1 = linalg.generic {indexing_maps = [#map_2d, #map_2d, #map_2d], iterator_types = ["parallel", "parallel"]}
      ins(%w1, %d_w1 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e_16x32 : tensor<16x32xf32>)
      attrs = {dist.role = #dist.role<optimizer>} {
  ^bb0(%w: f32, %g: f32, %out: f32):
    %step = arith.mulf %lr, %g : f32
    %n = arith.subf %w, %step : f32
    linalg.yield %n : f32
  } -> tensor<16x32xf32>
  %new_w2 = linalg.generic {indexing_maps = [#map_2d, #map_2d, #map_2d], iterator_types = ["parallel", "parallel"]}
      ins(%w2, %d_w2 : tensor<32x4xf32>, tensor<32x4xf32>) outs(%e_32x4 : tensor<32x4xf32>)
      attrs = {dist.role = #dist.role<optimizer>} {
  ^bb0(%w: f32, %g: f32, %out: f32):
    %step = arith.mulf %lr, %g : f32
    %n = arith.subf %w, %step : f32
    linalg.yield %n : f32
  } -> tensor<32x4xf32>
  return %new_w1, %new_w2, %loss : tensor<16x32xf32>, tensor<32x4xf32>, tensor<f32>
}
