// End-to-end: partial -> split on a 1-D mesh. A matmul contracting over a
// dim split over mp yields a partial sum; annotating it (dist.annotate) as
// split on rows makes the partitioner reduce it with one reduce_scatter
// (never an all_reduce and a slice); a relu then works on the local rows.
// Must match the serial run on 2, 4 and 8 ranks. The IR run checks the
// collective.

// RUN: dist-run %s --mesh 2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh mesh=8 | FileCheck %s -DN=8
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @reshard_reduce_scatter on [[N]] rank(s), mesh @mesh [mp = [[N]]]
// CHECK-NEXT: result #0 tensor<32x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 1 of 1 result(s) match the serial run
// CHECK-NOT: FAIL

// IR-LABEL: func.func @reshard_reduce_scatter
// IR: %[[M:.+]] = linalg.matmul {{.*}} -> tensor<32x32xf32>
// IR: dist.reduce_scatter %[[M]] on @mesh [mp] sum dim = 0 {origin = #dist.origin<partial>} : tensor<32x32xf32> -> tensor<8x32xf32>
// IR-NOT: dist.all_reduce
// IR: return

dist.mesh @mesh [mp = 4]

#id = affine_map<(i, j) -> (i, j)>

func.func @reshard_reduce_scatter(
    %a: tensor<32x64xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>},
    %b: tensor<64x32xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>})
    -> (tensor<32x32xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %p = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x32xf32>)
      outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = dist.annotate %p as <@mesh, [{mp}, {}]> : tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
