// End-to-end: gradient accumulation over micro-batches in an scf.for loop,
// then an SGD update. Each micro-batch's rows are split over dp and the
// weight is replicated: the per-micro-batch weight gradient and squared-error
// sum are partial over dp, the loop carries the partial accumulators, and
// they are reduced (all_reduce) once after the loop. The accumulation is an
// arith.addf on tensors, as in test/Transforms/dist-partition.mlir
// (micro_batches_linalg.mlir is the linalg.add form). Must match the serial
// run on 2, 4 and 8 ranks.
//
//   for i in 0..4: o = xs[i] @ w, d = o - ys[i]
//                  grad += xs[i]^T @ d, sse += sum(d^2)
//   w' = w - lr * grad

// RUN: dist-run %s --mesh 2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh mesh=8 | FileCheck %s -DN=8

// CHECK: dist-run: @micro_batches on [[N]] rank(s), mesh @mesh [dp = [[N]]]
// CHECK-NEXT: result #0 tensor<32x8xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 tensor<32x8xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #2 tensor<f32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 3 of 3 result(s) match the serial run
// CHECK-NOT: FAIL

dist.mesh @mesh [dp = 2]

#id = affine_map<(i, j) -> (i, j)>
#to_scalar = affine_map<(i, j) -> ()>

func.func @micro_batches(
    %xs: tensor<4x16x32xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {dp}, {}]>},
    %ys: tensor<4x16x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {dp}, {}]>},
    %w: tensor<32x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
    %lr: f32)
    -> (tensor<32x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<32x8xf32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %e_w = tensor.empty() : tensor<32x8xf32>
  %g0 = linalg.fill ins(%zero : f32) outs(%e_w : tensor<32x8xf32>) -> tensor<32x8xf32>
  %e_s = tensor.empty() : tensor<f32>
  %l0 = linalg.fill ins(%zero : f32) outs(%e_s : tensor<f32>) -> tensor<f32>
  %grad, %sse = scf.for %i = %c0 to %c4 step %c1
      iter_args(%acc = %g0, %lacc = %l0) -> (tensor<32x8xf32>, tensor<f32>) {
    %x = tensor.extract_slice %xs[%i, 0, 0] [1, 16, 32] [1, 1, 1] : tensor<4x16x32xf32> to tensor<16x32xf32>
    %y = tensor.extract_slice %ys[%i, 0, 0] [1, 16, 8] [1, 1, 1] : tensor<4x16x8xf32> to tensor<16x8xf32>
    // Forward and error.
    %e_o = tensor.empty() : tensor<16x8xf32>
    %z_o = linalg.fill ins(%zero : f32) outs(%e_o : tensor<16x8xf32>) -> tensor<16x8xf32>
    %o = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x8xf32>)
        outs(%z_o : tensor<16x8xf32>) -> tensor<16x8xf32>
    %d = linalg.sub ins(%o, %y : tensor<16x8xf32>, tensor<16x8xf32>)
        outs(%e_o : tensor<16x8xf32>) -> tensor<16x8xf32>
    // Squared-error sum, accumulated.
    %lnext = linalg.generic {indexing_maps = [#id, #to_scalar], iterator_types = ["reduction", "reduction"]}
        ins(%d : tensor<16x8xf32>) outs(%lacc : tensor<f32>) {
    ^bb0(%a: f32, %s: f32):
      %sq = arith.mulf %a, %a : f32
      %n = arith.addf %s, %sq : f32
      linalg.yield %n : f32
    } -> tensor<f32>
    // Weight gradient of this micro-batch, accumulated.
    %e_t = tensor.empty() : tensor<32x16xf32>
    %xt = linalg.transpose ins(%x : tensor<16x32xf32>) outs(%e_t : tensor<32x16xf32>) permutation = [1, 0]
    %z = linalg.fill ins(%zero : f32) outs(%e_w : tensor<32x8xf32>) -> tensor<32x8xf32>
    %g = linalg.matmul ins(%xt, %d : tensor<32x16xf32>, tensor<16x8xf32>)
        outs(%z : tensor<32x8xf32>) -> tensor<32x8xf32>
    %next = arith.addf %acc, %g : tensor<32x8xf32>
    scf.yield %next, %lnext : tensor<32x8xf32>, tensor<f32>
  }
  // SGD update with the accumulated gradient.
  %new_w = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %grad : tensor<32x8xf32>, tensor<32x8xf32>) outs(%e_w : tensor<32x8xf32>) {
  ^bb0(%wi: f32, %gi: f32, %out: f32):
    %step = arith.mulf %lr, %gi : f32
    %n = arith.subf %wi, %step : f32
    linalg.yield %n : f32
  } -> tensor<32x8xf32>
  return %new_w, %grad, %sse : tensor<32x8xf32>, tensor<32x8xf32>, tensor<f32>
}
