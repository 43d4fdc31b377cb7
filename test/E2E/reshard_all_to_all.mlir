// End-to-end: moving a split to another dim on a 1-D mesh. A value computed
// split on dim 0 is re-annotated (dist.annotate) to be split on dim 1, which
// the partitioner does with an all_to_all (no gather); the ops before and
// after the annotation work on their local blocks. Must match the serial run
// on 2, 4 and 8 ranks. The IR run checks that the reshard is an all_to_all.

// RUN: dist-run %s --mesh 2 | FileCheck %s -DN=2
// RUN: dist-run %s --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %s --mesh mesh=8 | FileCheck %s -DN=8
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @reshard_all_to_all on [[N]] rank(s), mesh @mesh [mp = [[N]]]
// CHECK-NEXT: result #0 tensor<32x64xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 1 of 1 result(s) match the serial run
// CHECK-NOT: FAIL

// IR-LABEL: func.func @reshard_all_to_all
// IR: dist.all_to_all %{{.*}} on @mesh [mp] split_dim = 1 concat_dim = 0 {origin = #dist.origin<reshard>} : tensor<8x64xf32> -> tensor<32x16xf32>
// IR-NOT: dist.all_gather
// IR: return

dist.mesh @mesh [mp = 4]

#id = affine_map<(i, j) -> (i, j)>

func.func @reshard_all_to_all(
    %x: tensor<32x64xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>})
    -> (tensor<32x64xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>}) {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  // On row blocks.
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %ex = math.exp %v : f32
    linalg.yield %ex : f32
  } -> tensor<32x64xf32>
  %b = dist.annotate %a as <@mesh, [{}, {mp}]> : tensor<32x64xf32>
  // On column blocks.
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<32x64xf32>
  return %c : tensor<32x64xf32>
}
