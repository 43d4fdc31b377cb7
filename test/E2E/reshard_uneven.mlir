// End-to-end: resharding values whose dims the mesh does not divide (padded
// blocks of ceil(n / k) rows). Each value goes through math.exp in its
// argument's layout (so that padding holds nonzero garbage, which must never
// show) and a dist.annotate then forces another layout:
//   %a: [{dp}, {mp}] -> [{mp}, {dp}]   both dims change axes
//   %b: [{dp, mp}, {}] -> [{dp}, {mp}] a two-axis split loses its minor axis
//                                      (padded blocks do not nest: gathered
//                                      whole, split again)
//   %c: [{mp}, {}] -> [{}, {mp}]       a split moves to the other dim
//   %d: [{}, {}] -> [{dp, mp}, {}]     replicated to padded blocks (pad, slice)
//   %e: [{mp}, {}] -> [{dp}, {}]       padded blocks of one axis to another
//   %f: [{dp, mp}, {}] -> [{}, {}]     padded blocks gathered whole (crop)
// and partial sums: exp(%a) times %k contracts a dim of 7 split by mp (the
// matmul's operands have their padding masked to zeros); the partial product
// is reduce-scattered into padded column blocks, and all-reduced.
// Must match the serial run on 1x3, 2x2, 2x4 and 4x2 meshes.

// RUN: dist-run %s --mesh 1x3 | FileCheck %s -DRANKS=3
// RUN: dist-run %s --mesh 2x2 | FileCheck %s -DRANKS=4
// RUN: dist-run %s --mesh mesh=2x4 | FileCheck %s -DRANKS=8
// RUN: dist-run %s --mesh 4x2 | FileCheck %s -DRANKS=8
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @reshard_uneven on [[RANKS]] rank(s)
// CHECK-COUNT-8: : PASS{{$}}
// CHECK-NEXT: PASS: 8 of 8 result(s) match the serial run
// CHECK-NOT: FAIL

// The IR on the 2x4 mesh: global shapes on padded boundaries, padding before
// a split, a crop after a gather, masked operands of the matmul.
// IR-LABEL: func.func @reshard_uneven
// IR-SAME: %arg0: tensor<5x2xf32> {dist.global_shape = array<i64: 10, 7>, dist.partitioned_as = #dist.sharding<@mesh, [{dp}, {mp}]>}
// IR-SAME: -> (tensor<3x4xf32> {dist.global_shape = array<i64: 10, 7>, dist.partitioned_as = #dist.sharding<@mesh, [{mp}, {dp}]>}
// %a: gathered whole and cropped, then padded to 4 blocks of 3 rows.
// IR: dist.all_gather %{{.*}} on @mesh [dp] dim = 0 {{.*}} : tensor<5x2xf32> -> tensor<10x2xf32>
// IR-NEXT: dist.all_gather %{{.*}} on @mesh [mp] dim = 1 {{.*}} : tensor<10x2xf32> -> tensor<10x8xf32>
// IR-NEXT: tensor.extract_slice %{{.*}}[0, 0] [10, 7] [1, 1] : tensor<10x8xf32> to tensor<10x7xf32>
// IR-NEXT: tensor.pad %{{.*}} low[0, 0] high[2, 0]
// %f: 8 blocks of 2 rows gathered (16 rows) and cropped to 10.
// IR: dist.all_gather %{{.*}} on @mesh [mp] dim = 0 {{.*}} : tensor<2x7xf32> -> tensor<8x7xf32>
// IR-NEXT: dist.all_gather %{{.*}} on @mesh [dp] dim = 0 {{.*}} : tensor<8x7xf32> -> tensor<16x7xf32>
// IR-NEXT: tensor.extract_slice %{{.*}}[0, 0] [10, 7] [1, 1] : tensor<16x7xf32> to tensor<10x7xf32>
// The matmul's operands have their padding masked; the partial product is
// padded to 8 columns and reduce-scattered into blocks of 2.
// IR: tensor.generate
// IR: arith.select %{{.*}} : tensor<5x2xi1>, tensor<5x2xf32>
// IR: tensor.generate
// IR: arith.select %{{.*}} : tensor<2x6xi1>, tensor<2x6xf32>
// IR-NEXT: linalg.matmul
// IR-NEXT: tensor.pad %{{.*}} low[0, 0] high[0, 2]
// IR: dist.reduce_scatter %{{.*}} on @mesh [mp] sum dim = 1 {{.*}} : tensor<5x8xf32> -> tensor<5x2xf32>

dist.mesh @mesh [dp = 2, mp = 4]

func.func @reshard_uneven(
    %a: tensor<10x7xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {mp}]>},
    %b: tensor<10x7xf32> {dist.sharding = #dist.sharding<@mesh, [{dp, mp}, {}]>},
    %c: tensor<10x7xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
    %d: tensor<10x7xf32>,
    %e: tensor<10x7xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
    %f: tensor<10x7xf32> {dist.sharding = #dist.sharding<@mesh, [{dp, mp}, {}]>},
    %k: tensor<7x6xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>})
    -> (tensor<10x7xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {dp}]>},
        tensor<10x7xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {mp}]>},
        tensor<10x7xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>},
        tensor<10x7xf32> {dist.sharding = #dist.sharding<@mesh, [{dp, mp}, {}]>},
        tensor<10x7xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>},
        tensor<10x7xf32>,
        tensor<10x6xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {mp}]>},
        tensor<10x6xf32>) {
  %a1 = math.exp %a : tensor<10x7xf32>
  %a2 = dist.annotate %a1 as <@mesh, [{mp}, {dp}]> : tensor<10x7xf32>
  %b1 = math.exp %b : tensor<10x7xf32>
  %b2 = dist.annotate %b1 as <@mesh, [{dp}, {mp}]> : tensor<10x7xf32>
  %c1 = math.exp %c : tensor<10x7xf32>
  %c2 = dist.annotate %c1 as <@mesh, [{}, {mp}]> : tensor<10x7xf32>
  %d1 = math.exp %d : tensor<10x7xf32>
  %d2 = dist.annotate %d1 as <@mesh, [{dp, mp}, {}]> : tensor<10x7xf32>
  %e1 = math.exp %e : tensor<10x7xf32>
  %e2 = dist.annotate %e1 as <@mesh, [{dp}, {}]> : tensor<10x7xf32>
  %f1 = math.exp %f : tensor<10x7xf32>
  %f2 = dist.annotate %f1 as <@mesh, [{}, {}]> : tensor<10x7xf32>
  %k1 = math.exp %k : tensor<7x6xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<10x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<10x6xf32>) -> tensor<10x6xf32>
  %p = linalg.matmul ins(%a1, %k1 : tensor<10x7xf32>, tensor<7x6xf32>)
      outs(%init : tensor<10x6xf32>) -> tensor<10x6xf32>
  %p1 = dist.annotate %p as <@mesh, [{dp}, {mp}]> : tensor<10x6xf32>
  %p2 = dist.annotate %p as <@mesh, [{}, {}]> : tensor<10x6xf32>
  return %a2, %b2, %c2, %d2, %e2, %f2, %p1, %p2
      : tensor<10x7xf32>, tensor<10x7xf32>, tensor<10x7xf32>, tensor<10x7xf32>,
        tensor<10x7xf32>, tensor<10x7xf32>, tensor<10x6xf32>, tensor<10x6xf32>
}
