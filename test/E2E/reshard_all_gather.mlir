// End-to-end: split -> replicated on a 1-D mesh. A value computed on row
// blocks is re-annotated (dist.annotate) as replicated, which the
// partitioner does with an all_gather; a softmax over the rows (dim 0, which
// needs the whole dim) then runs on the gathered value, and the result must
// be the same on every rank. Must match the serial run on 2, 4 and 8 ranks.
// The IR run checks the collective.

// RUN: dist-run %s --mesh 2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh mesh=8 | FileCheck %s -DN=8
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @reshard_all_gather on [[N]] rank(s), mesh @mesh [mp = [[N]]]
// CHECK-NEXT: result #0 tensor<32x16xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 1 of 1 result(s) match the serial run
// CHECK-NOT: FAIL

// IR-LABEL: func.func @reshard_all_gather
// IR: dist.all_gather %{{.*}} on @mesh [mp] dim = 0 {origin = #dist.origin<reshard>} : tensor<8x16xf32> -> tensor<32x16xf32>
// IR: linalg.softmax dimension(0) {{.*}} -> tensor<32x16xf32>
// IR: return

dist.mesh @mesh [mp = 4]

#id = affine_map<(i, j) -> (i, j)>

func.func @reshard_all_gather(
    %x: tensor<32x16xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>})
    -> (tensor<32x16xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>}) {
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x16xf32>) outs(%e : tensor<32x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %three : f32
    linalg.yield %m : f32
  } -> tensor<32x16xf32>
  %r = dist.annotate %a as <@mesh, [{}, {}]> : tensor<32x16xf32>
  %e2 = tensor.empty() : tensor<32x16xf32>
  %s = linalg.softmax dimension(0) ins(%r : tensor<32x16xf32>) outs(%e2 : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %s : tensor<32x16xf32>
}
