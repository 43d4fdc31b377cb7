// End-to-end: a multi-head self-attention block (Megatron). The Q, K and V
// projections are column-parallel (their heads split over mp), the scaled
// scores, softmax (linalg.softmax over the key dim) and context are computed
// per head on the local heads, and the output projection is row-parallel (a
// partial sum over the split heads, reduced once). Must match the serial run
// on 2, 4 and 8 ranks.
//
//   x: [b=2, s=8, e=32], 8 heads of dim 4
//   q/k/v[b,s,h,d] = sum_e x[b,s,e] * w[e,h,d]
//   p = softmax_t(q . k / sqrt(4)), ctx[b,s,h,d] = sum_t p[b,h,s,t] v[b,t,h,d]
//   out[b,s,e] = sum_{h,d} ctx[b,s,h,d] * wo[h,d,e]

// RUN: dist-run %s --mesh 2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh mesh=8 | FileCheck %s -DN=8

// CHECK: dist-run: @attention on [[N]] rank(s), mesh @mesh [mp = [[N]]]
// CHECK-NEXT: result #0 tensor<2x8x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 1 of 1 result(s) match the serial run
// CHECK-NOT: FAIL

dist.mesh @mesh [mp = 4]

#x_bse = affine_map<(b, s, h, d, e) -> (b, s, e)>
#w_ehd = affine_map<(b, s, h, d, e) -> (e, h, d)>
#o_bshd = affine_map<(b, s, h, d, e) -> (b, s, h, d)>
#q_bshd = affine_map<(b, h, s, t, d) -> (b, s, h, d)>
#k_bthd = affine_map<(b, h, s, t, d) -> (b, t, h, d)>
#o_bhst = affine_map<(b, h, s, t, d) -> (b, h, s, t)>
#id4 = affine_map<(b, h, s, t) -> (b, h, s, t)>
#p_bhst = affine_map<(b, s, h, d, t) -> (b, h, s, t)>
#v_bthd = affine_map<(b, s, h, d, t) -> (b, t, h, d)>
#c_bshd = affine_map<(b, s, h, d, t) -> (b, s, h, d)>
#ctx = affine_map<(b, s, e, h, d) -> (b, s, h, d)>
#wo = affine_map<(b, s, e, h, d) -> (h, d, e)>
#out = affine_map<(b, s, e, h, d) -> (b, s, e)>

func.func @attention(%x: tensor<2x8x32xf32>,
    %wq: tensor<32x8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}, {}]>},
    %wk: tensor<32x8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}, {}]>},
    %wv: tensor<32x8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}, {}]>},
    %wo: tensor<8x4x32xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}, {}]>})
    -> tensor<2x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.5 : f32
  // QKV projections (column-parallel).
  %e_bshd = tensor.empty() : tensor<2x8x8x4xf32>
  %z_bshd = linalg.fill ins(%zero : f32) outs(%e_bshd : tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
  %q = linalg.generic {indexing_maps = [#x_bse, #w_ehd, #o_bshd], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wq : tensor<2x8x32xf32>, tensor<32x8x4xf32>) outs(%z_bshd : tensor<2x8x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8x4xf32>
  %k = linalg.generic {indexing_maps = [#x_bse, #w_ehd, #o_bshd], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wk : tensor<2x8x32xf32>, tensor<32x8x4xf32>) outs(%z_bshd : tensor<2x8x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8x4xf32>
  %v = linalg.generic {indexing_maps = [#x_bse, #w_ehd, #o_bshd], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wv : tensor<2x8x32xf32>, tensor<32x8x4xf32>) outs(%z_bshd : tensor<2x8x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8x4xf32>
  // Scores per head, scaled by 1/sqrt(head dim), softmax over the keys.
  %e_bhst = tensor.empty() : tensor<2x8x8x8xf32>
  %z_bhst = linalg.fill ins(%zero : f32) outs(%e_bhst : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %scores = linalg.generic {indexing_maps = [#q_bshd, #k_bthd, #o_bhst], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) outs(%z_bhst : tensor<2x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%scores : tensor<2x8x8x8xf32>) outs(%e_bhst : tensor<2x8x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8x8xf32>
  %p = linalg.softmax dimension(3) ins(%scaled : tensor<2x8x8x8xf32>) outs(%e_bhst : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %ctx = linalg.generic {indexing_maps = [#p_bhst, #v_bthd, #c_bshd], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x8x8x8xf32>, tensor<2x8x8x4xf32>) outs(%z_bshd : tensor<2x8x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8x4xf32>
  // Output projection (row-parallel over the split heads).
  %e_bse = tensor.empty() : tensor<2x8x32xf32>
  %z_bse = linalg.fill ins(%zero : f32) outs(%e_bse : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %o = linalg.generic {indexing_maps = [#ctx, #wo, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%ctx, %wo : tensor<2x8x8x4xf32>, tensor<8x4x32xf32>) outs(%z_bse : tensor<2x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x32xf32>
  return %o : tensor<2x8x32xf32>
}
