// End-to-end: split -> replicated on a 2-D mesh dp x mp, forced with
// dist.annotate after a local elementwise op:
//   %x: [{dp}, {mp}] -> [{}, {}]     (gathered over both axes)
//   %y: [{dp, mp}, {}] -> [{dp}, {}] (only the minor axis mp gathered)
//   %z: [{dp}, {mp}] -> [{dp}, {}]   (the columns gathered over mp)
// Then a softmax over the gathered dim runs on the whole dim. Replicated
// results must agree on every rank. Must match the serial run on 1x2, 2x2,
// 2x4 and 4x2 meshes. The IR run checks the gathers on 2x4.

// RUN: dist-run %s --mesh 1x2 | FileCheck %s -DRANKS=2 -DDP=1 -DMP=2
// RUN: dist-run %s --mesh 2x2 | FileCheck %s -DRANKS=4 -DDP=2 -DMP=2
// RUN: dist-run %s --mesh mesh=2x4 | FileCheck %s -DRANKS=8 -DDP=2 -DMP=4
// RUN: dist-run %s --mesh 4x2 | FileCheck %s -DRANKS=8 -DDP=4 -DMP=2
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @reshard_all_gather_2d on [[RANKS]] rank(s), mesh @mesh [dp = [[DP]], mp = [[MP]]]
// CHECK-NEXT: result #0 tensor<32x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 tensor<32x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #2 tensor<32x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 3 of 3 result(s) match the serial run
// CHECK-NOT: FAIL

// IR-LABEL: func.func @reshard_all_gather_2d
// IR-DAG: dist.all_gather %{{.*}} on @mesh [dp] dim = 0 {origin = #dist.origin<reshard>} : tensor<16x8xf32> -> tensor<32x8xf32>
// IR-DAG: dist.all_gather %{{.*}} on @mesh [mp] dim = 1 {origin = #dist.origin<reshard>} : tensor<32x8xf32> -> tensor<32x32xf32>
// IR-DAG: dist.all_gather %{{.*}} on @mesh [mp] dim = 0 {origin = #dist.origin<reshard>} : tensor<4x32xf32> -> tensor<16x32xf32>
// IR-DAG: dist.all_gather %{{.*}} on @mesh [mp] dim = 1 {origin = #dist.origin<reshard>} : tensor<16x8xf32> -> tensor<16x32xf32>
// IR-NOT: dist.all_to_all
// IR: return

dist.mesh @mesh [dp = 2, mp = 4]

#id = affine_map<(i, j) -> (i, j)>

func.func @reshard_all_gather_2d(
    %x: tensor<32x32xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {mp}]>},
    %y: tensor<32x32xf32> {dist.sharding = #dist.sharding<@mesh, [{dp, mp}, {}]>},
    %z: tensor<32x32xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {mp}]>})
    -> (tensor<32x32xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<32x32xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>},
        tensor<32x32xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>}) {
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %x1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %three : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  %y1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %three : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  %z1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %three : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  %x2 = dist.annotate %x1 as <@mesh, [{}, {}]> : tensor<32x32xf32>
  %y2 = dist.annotate %y1 as <@mesh, [{dp}, {}]> : tensor<32x32xf32>
  %z2 = dist.annotate %z1 as <@mesh, [{dp}, {}]> : tensor<32x32xf32>
  %e0 = tensor.empty() : tensor<32x32xf32>
  %x3 = linalg.softmax dimension(0) ins(%x2 : tensor<32x32xf32>) outs(%e0 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e1 = tensor.empty() : tensor<32x32xf32>
  %y3 = linalg.softmax dimension(1) ins(%y2 : tensor<32x32xf32>) outs(%e1 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e2 = tensor.empty() : tensor<32x32xf32>
  %z3 = linalg.softmax dimension(1) ins(%z2 : tensor<32x32xf32>) outs(%e2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %x3, %y3, %z3 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
}
