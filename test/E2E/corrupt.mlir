// Negative end-to-end test of dist-run itself: with the hidden testing flag
// --corrupt-rank=1, rank 1 adds 1 to the first element of its first result
// after running the partitioned program. dist-run must notice, under the
// default verdict (against the f64 reference) and under --strict
// (elementwise against the serial run): that result is reported FAIL, the
// untouched second result PASS, the summary line says FAIL, and the exit
// status is non-zero.

// RUN: not dist-run %s --corrupt-rank=1 | FileCheck %s
// CHECK: dist-run: @corrupt on 4 rank(s), mesh @mesh [mp = 4]
// CHECK-NEXT: result #0 tensor<16x32xf32> {{.*}}: max abs err 1.00e+00 vs serial; error vs f64 reference: distributed 1.00e+00, serial {{.*}}: FAIL{{$}}
// CHECK-NEXT: result #1 tensor<16x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: FAIL: 1 of 2 result(s) match the serial run

// RUN: not dist-run %s --corrupt-rank=1 --strict | FileCheck %s --check-prefix=STRICT
// STRICT: dist-run: @corrupt on 4 rank(s), mesh @mesh [mp = 4]
// STRICT-NEXT: result #0 tensor<16x32xf32> {{.*}}: max abs err 1.00e+00, max rel err {{.*}}, 1 of 512 elements differ: FAIL{{$}}
// STRICT-NEXT: result #1 tensor<16x32xf32> {{.*}}: PASS{{$}}
// STRICT-NEXT: FAIL: 1 of 2 result(s) match the serial run

dist.mesh @mesh [mp = 4]

#id = affine_map<(i, j) -> (i, j)>

func.func @corrupt(
    %x: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
    %y: tensor<16x32xf32>)
    -> (tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
        tensor<16x32xf32>) {
  %e = tensor.empty() : tensor<16x32xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<16x32xf32>) outs(%e2 : tensor<16x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  return %a, %b : tensor<16x32xf32>, tensor<16x32xf32>
}
