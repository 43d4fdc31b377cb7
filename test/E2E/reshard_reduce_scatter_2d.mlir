// End-to-end: partial -> split on a 2-D mesh dp x mp. A matmul with its rows
// over dp and its contraction dim over mp yields a value split on rows over
// dp and partial over mp; dist.annotate makes the partitioner reduce it with
// a reduce_scatter over mp:
//   -> [{dp}, {mp}]      (scattered on the columns)
//   -> [{dp, mp}, {}]    (scattered on the rows, below dp's split)
// and a relu then works on the local blocks. Must match the serial run on
// 1x2, 2x2, 2x4 and 4x2 meshes. The IR run checks the collectives on 2x4.

// RUN: dist-run %s --mesh 1x2 | FileCheck %s -DRANKS=2 -DDP=1 -DMP=2
// RUN: dist-run %s --mesh 2x2 | FileCheck %s -DRANKS=4 -DDP=2 -DMP=2
// RUN: dist-run %s --mesh mesh=2x4 | FileCheck %s -DRANKS=8 -DDP=2 -DMP=4
// RUN: dist-run %s --mesh 4x2 | FileCheck %s -DRANKS=8 -DDP=4 -DMP=2
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @reshard_reduce_scatter_2d on [[RANKS]] rank(s), mesh @mesh [dp = [[DP]], mp = [[MP]]]
// CHECK-NEXT: result #0 tensor<32x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 tensor<32x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 2 of 2 result(s) match the serial run
// CHECK-NOT: FAIL

// IR-LABEL: func.func @reshard_reduce_scatter_2d
// IR: %[[M:.+]] = linalg.matmul {{.*}} -> tensor<16x32xf32>
// IR-DAG: dist.reduce_scatter %[[M]] on @mesh [mp] sum dim = 1 {origin = #dist.origin<partial>} : tensor<16x32xf32> -> tensor<16x8xf32>
// IR-DAG: dist.reduce_scatter %[[M]] on @mesh [mp] sum dim = 0 {origin = #dist.origin<partial>} : tensor<16x32xf32> -> tensor<4x32xf32>
// IR-NOT: dist.all_reduce
// IR: return

dist.mesh @mesh [dp = 2, mp = 4]

#id = affine_map<(i, j) -> (i, j)>

func.func @reshard_reduce_scatter_2d(
    %a: tensor<32x64xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {mp}]>},
    %b: tensor<64x32xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>})
    -> (tensor<32x32xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {mp}]>},
        tensor<32x32xf32> {dist.sharding = #dist.sharding<@mesh, [{dp, mp}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %p = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x32xf32>)
      outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
  %cols = dist.annotate %p as <@mesh, [{dp}, {mp}]> : tensor<32x32xf32>
  %rows = dist.annotate %p as <@mesh, [{dp, mp}, {}]> : tensor<32x32xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%rows : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  return %r1, %r2 : tensor<32x32xf32>, tensor<32x32xf32>
}
