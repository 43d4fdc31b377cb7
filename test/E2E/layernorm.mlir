// End-to-end: layernorm over a hidden dim split over mp, with a scale and a
// shift split the same way. The row sums for the mean and the variance are
// partial over mp (each reduced with one all_reduce); the normalized output
// stays split. Must match the serial run on 2, 4 and 8 ranks.
//
//   mean = sum_j x / 64, var = sum_j (x - mean)^2 / 64
//   y = (x - mean) * rsqrt(var + eps) * gamma + beta

// RUN: dist-run %s --mesh 2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh mesh=8 | FileCheck %s -DN=8

// --debug-lines (for profilers and debuggers) changes no result and puts the
// MLIR source's line table into the compiled code.
// RUN: rm -rf %t && dist-run %s --mesh 2 --debug-lines --keep --work-dir %t | FileCheck %s -DN=2
// RUN: llvm-readelf -S %t/partitioned.rank0.o | FileCheck %s --check-prefix=LINES
// LINES: .debug_line

// CHECK: dist-run: @layernorm on [[N]] rank(s), mesh @mesh [mp = [[N]]]
// CHECK-NEXT: result #0 tensor<16x64xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 tensor<16xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 2 of 2 result(s) match the serial run
// CHECK-NOT: FAIL

dist.mesh @mesh [mp = 4]

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>

func.func @layernorm(
    %x: tensor<16x64xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>},
    %gamma: tensor<64xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}]>},
    %beta: tensor<64xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}]>})
    -> (tensor<16x64xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>},
        tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 0.015625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e_r = tensor.empty() : tensor<16xf32>
  %z_r = linalg.fill ins(%zero : f32) outs(%e_r : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%z_r : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %centered = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<16x64xf32>, tensor<16xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %mean = arith.mulf %s, %inv_n : f32
    %c = arith.subf %a, %mean : f32
    linalg.yield %c : f32
  } -> tensor<16x64xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%centered : tensor<16x64xf32>) outs(%z_r : tensor<16xf32>) {
  ^bb0(%c: f32, %acc: f32):
    %m = arith.mulf %c, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %rstd = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%sq : tensor<16xf32>) outs(%e_r : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %var = arith.mulf %v, %inv_n : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%centered, %rstd, %gamma, %beta : tensor<16x64xf32>, tensor<16xf32>, tensor<64xf32>, tensor<64xf32>)
      outs(%e : tensor<16x64xf32>) {
  ^bb0(%c: f32, %r: f32, %g: f32, %b: f32, %o: f32):
    %n = arith.mulf %c, %r : f32
    %s = arith.mulf %n, %g : f32
    %t = arith.addf %s, %b : f32
    linalg.yield %t : f32
  } -> tensor<16x64xf32>
  return %y, %rstd : tensor<16x64xf32>, tensor<16xf32>
}
