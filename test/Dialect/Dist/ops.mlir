// RUN: dist-opt %s | dist-opt | FileCheck %s
// RUN: dist-opt %s --mlir-print-op-generic | dist-opt | FileCheck %s

// Round trip of every dist op and attribute, in the custom and the generic
// form. Each function checks the exact printed form of what it holds.

//===----------------------------------------------------------------------===//
// dist.mesh
//===----------------------------------------------------------------------===//

// Tests that meshes of rank 0 to 3, and axis names that are no identifiers,
// print as written.
// CHECK: dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// CHECK: dist.mesh @mesh_4 [mp = 4]
// CHECK: dist.mesh @mesh_8 [dp = 8]
// CHECK: dist.mesh @mesh_2x2x2 [pp = 2, dp = 2, mp = 2]
// CHECK: dist.mesh @mesh_1 []
// CHECK: dist.mesh @mesh_2x3 ["axis-1" = 2, "2nd axis" = 3]
// CHECK: dist.mesh @mesh_1x1 [dp = 1, mp = 1]
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
dist.mesh @mesh_4 [mp = 4]
dist.mesh @mesh_8 [dp = 8]
dist.mesh @mesh_2x2x2 [pp = 2, dp = 2, mp = 2]
dist.mesh @mesh_1 []
dist.mesh @mesh_2x3 ["axis-1" = 2, "2nd axis" = 3]
dist.mesh @mesh_1x1 [dp = 1, mp = 1]

//===----------------------------------------------------------------------===//
// #dist.sharding on function arguments and results
//===----------------------------------------------------------------------===//

// Tests that a replicated sharding (no dim split, nothing partial) round-trips.
// CHECK-LABEL: func.func @replicated
// CHECK-SAME: (%{{.+}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}]>})
func.func @replicated(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}]>}) {
  return
}

// Tests that the sharding of a rank-0 tensor is written `[]`.
// CHECK-LABEL: func.func @rank0
// CHECK-SAME: (%{{.+}}: tensor<f32> {dist.sharding = #dist.sharding<@mesh_2x4, []>})
func.func @rank0(%x: tensor<f32> {dist.sharding = #dist.sharding<@mesh_2x4, []>}) {
  return
}

// Tests that single-axis splits on either dim round-trip, on arguments and
// results.
// CHECK-LABEL: func.func @single_axis
// CHECK-SAME: (%[[X:.+]]: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>},
// CHECK-SAME: %{{.+}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp}]>})
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {mp}]>})
// CHECK-NEXT: return %[[X]] : tensor<8x16xf32>
func.func @single_axis(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>},
                       %y: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp}]>})
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {mp}]>}) {
  return %x : tensor<8x16xf32>
}

// Tests that several axes on one dim keep their (major to minor) order.
// CHECK-LABEL: func.func @multi_axis
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x4, [{dp, mp}, {}]>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp, dp}]>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x2x2, [{pp, mp}, {}, {dp}]>}
func.func @multi_axis(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp, mp}, {}]>},
                      %y: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp, dp}]>},
                      %z: tensor<4x3x2xf32> {dist.sharding = #dist.sharding<@mesh_2x2x2, [{pp, mp}, {}, {dp}]>}) {
  return
}

// Tests halos and overlaps on split dims, and the local types of a
// partitioned function: 16 rows in 4 blocks of 4 with a halo [1, 2] are 7
// rows; 34 columns with an overlap of 2 are 4 blocks of 8 + 2; beside a
// padded dim (10 rows in blocks of 3), 16 columns in 2 blocks of 8 with a
// halo [1, 1] are 10.
// CHECK-LABEL: func.func @halos
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x4, [{mp} halo [1, 2], {dp} overlap 2]>}
// CHECK-SAME: {dist.partitioned_as = #dist.sharding<@mesh_2x4, [{mp} halo [1, 2], {}]>}
// CHECK-SAME: {dist.partitioned_as = #dist.sharding<@mesh_2x4, [{}, {mp} overlap 2]>}
// CHECK-SAME: {dist.global_shape = array<i64: 10, 16>, dist.partitioned_as = #dist.sharding<@mesh_2x4, [{mp}, {dp} halo [1, 1]]>}
func.func @halos(%a: tensor<16x34xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{mp} halo [1, 2], {dp} overlap 2]>},
                 %b: tensor<7x8xf32> {dist.partitioned_as = #dist.sharding<@mesh_2x4, [{mp} halo [1, 2], {}]>},
                 %c: tensor<3x10xf32> {dist.partitioned_as = #dist.sharding<@mesh_2x4, [{}, {mp} overlap 2]>},
                 %d: tensor<3x10xf32> {dist.global_shape = array<i64: 10, 16>, dist.partitioned_as = #dist.sharding<@mesh_2x4, [{mp}, {dp} halo [1, 1]]>}) {
  return
}

// Tests that `owner` prints after `partial`, with its index and axes.
// CHECK-LABEL: func.func @owned
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], owner = 3 {mp}>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x4x2, [{}, {mp}], partial = sum{dp}, owner = 0 {pp}>}
dist.mesh @mesh_2x4x2 [dp = 2, mp = 4, pp = 2]
func.func @owned(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], owner = 3 {mp}>},
                 %b: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4x2, [{}, {mp}], partial = sum{dp}, owner = 0 {pp}>}) {
  return
}

// Tests that `partial` prints with each reduction kind, and that a partial
// sharding over several axes keeps their order.
// CHECK-LABEL: func.func @partial_kinds
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = sum{dp}>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = max{mp}>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = min{dp, mp}>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = prod{mp, dp}>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = avg{dp}>}
func.func @partial_kinds(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = sum{dp}>},
                         %b: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = max{mp}>},
                         %c: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = min{dp, mp}>},
                         %d: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = prod{mp, dp}>},
                         %e: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = avg{dp}>}) {
  return
}

// Tests that a split and a pending reduction combine (the output of a
// row-parallel matmul whose columns are split).
// CHECK-LABEL: func.func @partial_and_split
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp}], partial = sum{dp}>})
func.func @partial_and_split(%x: tensor<8x16xf32>)
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp}], partial = sum{dp}>}) {
  return %x : tensor<8x16xf32>
}

// Tests that quoted axis names stay quoted in shardings, and that a mesh of
// rank 0 and size-1 axes are usable.
// CHECK-LABEL: func.func @quoted_axes
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x3, [{"axis-1"}, {"2nd axis"}]>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2x3, [{}], partial = sum{"axis-1", "2nd axis"}>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_1, [{}, {}]>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_1x1, [{dp, mp}]>}
func.func @quoted_axes(%x: tensor<4x6xf32> {dist.sharding = #dist.sharding<@mesh_2x3, [{"axis-1"}, {"2nd axis"}]>},
                       %y: tensor<5xf32> {dist.sharding = #dist.sharding<@mesh_2x3, [{}], partial = sum{"axis-1", "2nd axis"}>},
                       %z: tensor<3x5xf32> {dist.sharding = #dist.sharding<@mesh_1, [{}, {}]>},
                       %w: tensor<7xf32> {dist.sharding = #dist.sharding<@mesh_1x1, [{dp, mp}]>}) {
  return
}

// Tests that dynamic dims may be split (their divisibility is checked later).
// CHECK-LABEL: func.func @dynamic_split
// CHECK-SAME: (%{{.+}}: tensor<?x8xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp, mp}, {}]>})
func.func @dynamic_split(%x: tensor<?x8xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp, mp}, {}]>}) {
  return
}

// Tests that shardings on an external declaration round-trip.
// CHECK-LABEL: func.func private @external
// CHECK-SAME: (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>})
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = sum{mp}>})
func.func private @external(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>})
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = sum{mp}>})

//===----------------------------------------------------------------------===//
// Standalone attributes
//===----------------------------------------------------------------------===//

// Tests that #dist.dim round-trips on its own, empty and with axes, and that
// #dist.role (every value) is accepted as a `dist.role` attribute on ops of
// any dialect.
// CHECK-LABEL: func.func @standalone_attrs
// CHECK-SAME: attributes {dims = [#dist.dim<{}>, #dist.dim<{dp, mp}>, #dist.dim<{"axis-1"}>], dist.role = #dist.role<forward>}
// CHECK: dist.all_reduce %{{.+}} on @mesh_2x4 [dp] sum {dist.role = #dist.role<backward>} : tensor<8xf32>
// CHECK: arith.addf %{{.+}}, %{{.+}} {dist.role = #dist.role<optimizer>} : tensor<8xf32>
// CHECK: arith.mulf %{{.+}}, %{{.+}} {dist.role = #dist.role<loss>} : tensor<8xf32>
// CHECK: arith.subf %{{.+}}, %{{.+}} {dist.role = #dist.role<lr_sched>} : tensor<8xf32>
// CHECK: dist.broadcast %{{.+}} on @mesh_2x4 [mp] root = 0 {dist.role = #dist.role<dist>} : tensor<8xf32>
func.func @standalone_attrs(%x: tensor<8xf32>) -> tensor<8xf32>
    attributes {dims = [#dist.dim<{}>, #dist.dim<{dp, mp}>, #dist.dim<{"axis-1"}>], dist.role = #dist.role<forward>} {
  %0 = dist.all_reduce %x on @mesh_2x4 [dp] sum {dist.role = #dist.role<backward>} : tensor<8xf32>
  %1 = arith.addf %0, %x {dist.role = #dist.role<optimizer>} : tensor<8xf32>
  %2 = arith.mulf %1, %x {dist.role = #dist.role<loss>} : tensor<8xf32>
  %3 = arith.subf %2, %x {dist.role = #dist.role<lr_sched>} : tensor<8xf32>
  %4 = dist.broadcast %3 on @mesh_2x4 [mp] root = 0 {dist.role = #dist.role<dist>} : tensor<8xf32>
  return %4 : tensor<8xf32>
}

//===----------------------------------------------------------------------===//
// dist.annotate
//===----------------------------------------------------------------------===//

// Tests that dist.annotate prints its sharding without the `#dist.sharding`
// prefix, in every form, and chains.
// CHECK-LABEL: func.func @annotate
// CHECK-SAME: (%[[X:.+]]: tensor<8x16xf32>, %[[S:.+]]: tensor<f32>, %[[D:.+]]: tensor<?x16xf32>)
// CHECK: %[[A:.+]] = dist.annotate %[[X]] as <@mesh_2x4, [{dp}, {}]> : tensor<8x16xf32>
// CHECK: %[[B:.+]] = dist.annotate %[[A]] as <@mesh_2x4, [{dp, mp}, {}]> : tensor<8x16xf32>
// CHECK: %[[C:.+]] = dist.annotate %[[B]] as <@mesh_2x4, [{}, {mp}], partial = sum{dp}> : tensor<8x16xf32>
// CHECK: %[[R:.+]] = dist.annotate %[[C]] as <@mesh_2x4, [{}, {}]> : tensor<8x16xf32>
// CHECK: dist.annotate %[[S]] as <@mesh_2x4, []> : tensor<f32>
// CHECK: dist.annotate %[[S]] as <@mesh_2x4, [], partial = max{mp}> : tensor<f32>
// CHECK: dist.annotate %[[D]] as <@mesh_2x4, [{mp}, {dp}]> : tensor<?x16xf32>
// CHECK: return %[[R]] : tensor<8x16xf32>
func.func @annotate(%x: tensor<8x16xf32>, %s: tensor<f32>, %d: tensor<?x16xf32>) -> tensor<8x16xf32> {
  %a = dist.annotate %x as <@mesh_2x4, [{dp}, {}]> : tensor<8x16xf32>
  %b = dist.annotate %a as <@mesh_2x4, [{dp, mp}, {}]> : tensor<8x16xf32>
  %c = dist.annotate %b as <@mesh_2x4, [{}, {mp}], partial = sum{dp}> : tensor<8x16xf32>
  %r = dist.annotate %c as <@mesh_2x4, [{}, {}]> : tensor<8x16xf32>
  %s0 = dist.annotate %s as <@mesh_2x4, []> : tensor<f32>
  %s1 = dist.annotate %s as <@mesh_2x4, [], partial = max{mp}> : tensor<f32>
  %d0 = dist.annotate %d as <@mesh_2x4, [{mp}, {dp}]> : tensor<?x16xf32>
  return %r : tensor<8x16xf32>
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// Tests that dist.all_reduce round-trips with every reduction kind, on one
// axis, several axes, no axis (a group of one) and quoted axes, and on
// integer, i1 and index elements.
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[I:.+]]: tensor<4xi32>, %[[B:.+]]: tensor<4xi1>, %[[N:.+]]: tensor<4xindex>, %[[Y:.+]]: tensor<6xf32>)
// CHECK: %[[S:.+]] = dist.all_reduce %[[X]] on @mesh_4 [mp] sum : tensor<4x8xf32>
// CHECK: %[[MX:.+]] = dist.all_reduce %[[S]] on @mesh_2x4 [dp, mp] max : tensor<4x8xf32>
// CHECK: %[[MN:.+]] = dist.all_reduce %[[MX]] on @mesh_2x4 [mp, dp] min : tensor<4x8xf32>
// CHECK: %[[P:.+]] = dist.all_reduce %[[MN]] on @mesh_2x4 [] prod : tensor<4x8xf32>
// CHECK: %[[AV:.+]] = dist.all_reduce %[[P]] on @mesh_8 [dp] avg : tensor<4x8xf32>
// CHECK: dist.all_reduce %[[I]] on @mesh_4 [mp] sum : tensor<4xi32>
// CHECK: dist.all_reduce %[[B]] on @mesh_4 [mp] max : tensor<4xi1>
// CHECK: dist.all_reduce %[[N]] on @mesh_4 [mp] min : tensor<4xindex>
// CHECK: dist.all_reduce %[[Y]] on @mesh_2x3 ["axis-1", "2nd axis"] sum : tensor<6xf32>
// CHECK: return %[[AV]] : tensor<4x8xf32>
func.func @all_reduce(%x: tensor<4x8xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>, %n: tensor<4xindex>, %y: tensor<6xf32>) -> tensor<4x8xf32> {
  %0 = dist.all_reduce %x on @mesh_4 [mp] sum : tensor<4x8xf32>
  %1 = dist.all_reduce %0 on @mesh_2x4 [dp, mp] max : tensor<4x8xf32>
  %2 = dist.all_reduce %1 on @mesh_2x4 [mp, dp] min : tensor<4x8xf32>
  %3 = dist.all_reduce %2 on @mesh_2x4 [] prod : tensor<4x8xf32>
  %4 = dist.all_reduce %3 on @mesh_8 [dp] avg : tensor<4x8xf32>
  %5 = dist.all_reduce %i on @mesh_4 [mp] sum : tensor<4xi32>
  %6 = dist.all_reduce %b on @mesh_4 [mp] max : tensor<4xi1>
  %7 = dist.all_reduce %n on @mesh_4 [mp] min : tensor<4xindex>
  %8 = dist.all_reduce %y on @mesh_2x3 ["axis-1", "2nd axis"] sum : tensor<6xf32>
  return %4 : tensor<4x8xf32>
}

// Tests that dist.all_gather round-trips on each dim, over several axes, and
// with dynamic dims (the gathered dim dynamic on either side, or another dim
// dynamic).
// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: (%[[X:.+]]: tensor<4x2xf32>, %[[D:.+]]: tensor<?x8xf32>)
// CHECK: %[[G:.+]] = dist.all_gather %[[X]] on @mesh_4 [mp] dim = 1 : tensor<4x2xf32> -> tensor<4x8xf32>
// CHECK: dist.all_gather %[[X]] on @mesh_2x4 [dp, mp] dim = 0 : tensor<4x2xf32> -> tensor<32x2xf32>
// CHECK: dist.all_gather %[[X]] on @mesh_2x4 [] dim = 0 : tensor<4x2xf32> -> tensor<4x2xf32>
// CHECK: dist.all_gather %[[D]] on @mesh_2x4 [mp] dim = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
// CHECK: dist.all_gather %[[D]] on @mesh_2x4 [mp] dim = 1 : tensor<?x8xf32> -> tensor<?x32xf32>
// CHECK: dist.all_gather %[[X]] on @mesh_2x4 [mp] dim = 0 : tensor<4x2xf32> -> tensor<?x2xf32>
// CHECK: return %[[G]] : tensor<4x8xf32>
func.func @all_gather(%x: tensor<4x2xf32>, %d: tensor<?x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.all_gather %x on @mesh_4 [mp] dim = 1 : tensor<4x2xf32> -> tensor<4x8xf32>
  %1 = dist.all_gather %x on @mesh_2x4 [dp, mp] dim = 0 : tensor<4x2xf32> -> tensor<32x2xf32>
  %2 = dist.all_gather %x on @mesh_2x4 [] dim = 0 : tensor<4x2xf32> -> tensor<4x2xf32>
  %3 = dist.all_gather %d on @mesh_2x4 [mp] dim = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  %4 = dist.all_gather %d on @mesh_2x4 [mp] dim = 1 : tensor<?x8xf32> -> tensor<?x32xf32>
  %5 = dist.all_gather %x on @mesh_2x4 [mp] dim = 0 : tensor<4x2xf32> -> tensor<?x2xf32>
  return %0 : tensor<4x8xf32>
}

// Tests that dist.reduce_scatter round-trips with each kind, on each dim,
// and with dynamic dims.
// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME: (%[[X:.+]]: tensor<8x8xf32>, %[[D:.+]]: tensor<?x8xf32>)
// CHECK: %[[R:.+]] = dist.reduce_scatter %[[X]] on @mesh_4 [mp] sum dim = 0 : tensor<8x8xf32> -> tensor<2x8xf32>
// CHECK: dist.reduce_scatter %[[X]] on @mesh_2x4 [dp, mp] max dim = 1 : tensor<8x8xf32> -> tensor<8x1xf32>
// CHECK: dist.reduce_scatter %[[X]] on @mesh_2x4 [mp, dp] min dim = 1 : tensor<8x8xf32> -> tensor<8x1xf32>
// CHECK: dist.reduce_scatter %[[X]] on @mesh_2x4 [dp] prod dim = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK: dist.reduce_scatter %[[X]] on @mesh_8 [dp] avg dim = 0 : tensor<8x8xf32> -> tensor<1x8xf32>
// CHECK: dist.reduce_scatter %[[D]] on @mesh_2x4 [mp] sum dim = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
// CHECK: dist.reduce_scatter %[[D]] on @mesh_2x4 [mp] sum dim = 1 : tensor<?x8xf32> -> tensor<?x2xf32>
// CHECK: dist.reduce_scatter %[[X]] on @mesh_2x4 [mp] sum dim = 0 : tensor<8x8xf32> -> tensor<?x8xf32>
// CHECK: return %[[R]] : tensor<2x8xf32>
func.func @reduce_scatter(%x: tensor<8x8xf32>, %d: tensor<?x8xf32>) -> tensor<2x8xf32> {
  %0 = dist.reduce_scatter %x on @mesh_4 [mp] sum dim = 0 : tensor<8x8xf32> -> tensor<2x8xf32>
  %1 = dist.reduce_scatter %x on @mesh_2x4 [dp, mp] max dim = 1 : tensor<8x8xf32> -> tensor<8x1xf32>
  %2 = dist.reduce_scatter %x on @mesh_2x4 [mp, dp] min dim = 1 : tensor<8x8xf32> -> tensor<8x1xf32>
  %3 = dist.reduce_scatter %x on @mesh_2x4 [dp] prod dim = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  %4 = dist.reduce_scatter %x on @mesh_8 [dp] avg dim = 0 : tensor<8x8xf32> -> tensor<1x8xf32>
  %5 = dist.reduce_scatter %d on @mesh_2x4 [mp] sum dim = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  %6 = dist.reduce_scatter %d on @mesh_2x4 [mp] sum dim = 1 : tensor<?x8xf32> -> tensor<?x2xf32>
  %7 = dist.reduce_scatter %x on @mesh_2x4 [mp] sum dim = 0 : tensor<8x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<2x8xf32>
}

// Tests that dist.all_to_all round-trips in both directions, with
// split_dim == concat_dim (the shape is unchanged), and with dynamic dims.
// CHECK-LABEL: func.func @all_to_all
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[D:.+]]: tensor<?x8xf32>)
// CHECK: %[[T:.+]] = dist.all_to_all %[[X]] on @mesh_4 [mp] split_dim = 1 concat_dim = 0 : tensor<4x8xf32> -> tensor<16x2xf32>
// CHECK: dist.all_to_all %[[X]] on @mesh_2x4 [dp] split_dim = 0 concat_dim = 1 : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK: dist.all_to_all %[[X]] on @mesh_2x4 [dp, mp] split_dim = 1 concat_dim = 1 : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK: dist.all_to_all %[[D]] on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : tensor<?x8xf32> -> tensor<?x2xf32>
// CHECK: dist.all_to_all %[[D]] on @mesh_2x4 [mp] split_dim = 0 concat_dim = 1 : tensor<?x8xf32> -> tensor<?x32xf32>
// CHECK: return %[[T]] : tensor<16x2xf32>
func.func @all_to_all(%x: tensor<4x8xf32>, %d: tensor<?x8xf32>) -> tensor<16x2xf32> {
  %0 = dist.all_to_all %x on @mesh_4 [mp] split_dim = 1 concat_dim = 0 : tensor<4x8xf32> -> tensor<16x2xf32>
  %1 = dist.all_to_all %x on @mesh_2x4 [dp] split_dim = 0 concat_dim = 1 : tensor<4x8xf32> -> tensor<2x16xf32>
  %2 = dist.all_to_all %x on @mesh_2x4 [dp, mp] split_dim = 1 concat_dim = 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = dist.all_to_all %d on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : tensor<?x8xf32> -> tensor<?x2xf32>
  %4 = dist.all_to_all %d on @mesh_2x4 [mp] split_dim = 0 concat_dim = 1 : tensor<?x8xf32> -> tensor<?x32xf32>
  return %0 : tensor<16x2xf32>
}

// Tests that dist.reduce round-trips with each kind and with the first and
// last rank of the group as root.
// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:.+]]: tensor<1024xf32>)
// CHECK: %[[R:.+]] = dist.reduce %[[X]] on @mesh_4 [mp] sum root = 2 : tensor<1024xf32>
// CHECK: dist.reduce %[[R]] on @mesh_2x4 [dp, mp] max root = 7 : tensor<1024xf32>
// CHECK: dist.reduce %[[R]] on @mesh_2x4 [dp] min root = 0 : tensor<1024xf32>
// CHECK: dist.reduce %[[R]] on @mesh_8 [dp] prod root = 1 : tensor<1024xf32>
// CHECK: dist.reduce %[[R]] on @mesh_8 [dp] avg root = 0 : tensor<1024xf32>
// CHECK: return %[[R]] : tensor<1024xf32>
func.func @reduce(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = dist.reduce %x on @mesh_4 [mp] sum root = 2 : tensor<1024xf32>
  %1 = dist.reduce %0 on @mesh_2x4 [dp, mp] max root = 7 : tensor<1024xf32>
  %2 = dist.reduce %0 on @mesh_2x4 [dp] min root = 0 : tensor<1024xf32>
  %3 = dist.reduce %0 on @mesh_8 [dp] prod root = 1 : tensor<1024xf32>
  %4 = dist.reduce %0 on @mesh_8 [dp] avg root = 0 : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// Tests that dist.broadcast round-trips, also on element types that cannot
// be reduced and on a group of one.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.+]]: tensor<1024xf32>, %[[C:.+]]: tensor<4xcomplex<f32>>)
// CHECK: %[[B:.+]] = dist.broadcast %[[X]] on @mesh_4 [mp] root = 1 : tensor<1024xf32>
// CHECK: dist.broadcast %[[C]] on @mesh_2x4 [mp, dp] root = 7 : tensor<4xcomplex<f32>>
// CHECK: dist.broadcast %[[X]] on @mesh_2x4 [] root = 0 : tensor<1024xf32>
// CHECK: return %[[B]] : tensor<1024xf32>
func.func @broadcast(%x: tensor<1024xf32>, %c: tensor<4xcomplex<f32>>) -> tensor<1024xf32> {
  %0 = dist.broadcast %x on @mesh_4 [mp] root = 1 : tensor<1024xf32>
  %1 = dist.broadcast %c on @mesh_2x4 [mp, dp] root = 7 : tensor<4xcomplex<f32>>
  %2 = dist.broadcast %x on @mesh_2x4 [] root = 0 : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// Tests that dist.permute round-trips a rotation, a single pair (send/recv),
// a rank sending to itself, and no pairs at all.
// CHECK-LABEL: func.func @permute
// CHECK-SAME: (%[[X:.+]]: tensor<16xf32>)
// CHECK: %[[P:.+]] = dist.permute %[[X]] on @mesh_4 [mp] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<16xf32>
// CHECK: dist.permute %[[P]] on @mesh_2x4 [dp] pairs = [0 -> 1] : tensor<16xf32>
// CHECK: dist.permute %[[P]] on @mesh_2x4 [dp, mp] pairs = [7 -> 7, 0 -> 3] : tensor<16xf32>
// CHECK: dist.permute %[[P]] on @mesh_2x4 [mp] pairs = [] : tensor<16xf32>
// CHECK: return %[[P]] : tensor<16xf32>
func.func @permute(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = dist.permute %x on @mesh_4 [mp] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<16xf32>
  %1 = dist.permute %0 on @mesh_2x4 [dp] pairs = [0 -> 1] : tensor<16xf32>
  %2 = dist.permute %0 on @mesh_2x4 [dp, mp] pairs = [7 -> 7, 0 -> 3] : tensor<16xf32>
  %3 = dist.permute %0 on @mesh_2x4 [mp] pairs = [] : tensor<16xf32>
  return %0 : tensor<16xf32>
}

//===----------------------------------------------------------------------===//
// dist.progress
//===----------------------------------------------------------------------===//

// Tests that dist.progress round-trips.
// CHECK-LABEL: func.func @progress
// CHECK-NEXT: dist.progress
func.func @progress() {
  dist.progress
  return
}

//===----------------------------------------------------------------------===//
// dist.process_index
//===----------------------------------------------------------------------===//

// Tests that dist.process_index round-trips on one axis, all axes in either
// order, no axis, a mesh of rank 0 and quoted axes.
// CHECK-LABEL: func.func @process_index
// CHECK: %[[J:.+]] = dist.process_index on @mesh_2x4 [mp] : index
// CHECK: %[[I:.+]] = dist.process_index on @mesh_2x4 [dp] : index
// CHECK: dist.process_index on @mesh_2x4 [dp, mp] : index
// CHECK: dist.process_index on @mesh_2x4 [mp, dp] : index
// CHECK: dist.process_index on @mesh_1 [] : index
// CHECK: dist.process_index on @mesh_2x3 ["2nd axis"] : index
// CHECK: return %[[I]], %[[J]] : index, index
func.func @process_index() -> (index, index) {
  %j = dist.process_index on @mesh_2x4 [mp] : index
  %i = dist.process_index on @mesh_2x4 [dp] : index
  %r = dist.process_index on @mesh_2x4 [dp, mp] : index
  %t = dist.process_index on @mesh_2x4 [mp, dp] : index
  %z = dist.process_index on @mesh_1 [] : index
  %q = dist.process_index on @mesh_2x3 ["2nd axis"] : index
  return %i, %j : index, index
}

// Tests that meshes in a nested module are found from ops inside it.
// CHECK-LABEL: module @nested
// CHECK: dist.mesh @mesh_2 [pp = 2]
// CHECK-LABEL: func.func @inner
// CHECK-SAME: {dist.sharding = #dist.sharding<@mesh_2, [{pp}]>}
// CHECK: dist.permute %{{.+}} on @mesh_2 [pp] pairs = [0 -> 1, 1 -> 0] : tensor<4xf32>
module @nested {
  dist.mesh @mesh_2 [pp = 2]
  func.func @inner(%x: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{pp}]>}) -> tensor<4xf32> {
    %0 = dist.permute %x on @mesh_2 [pp] pairs = [0 -> 1, 1 -> 0] : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// Tests the completed-sharding attribute of ops and the local boundary
// attribute of partitioned functions (a local tensor<2x8xf32> that is the
// shard of a global 8x8 split 4 ways).
dist.mesh @mesh_4b [mp = 4]
// CHECK-LABEL: func.func @completed_and_partitioned
// CHECK-SAME: tensor<2x8xf32> {dist.partitioned_as = #dist.sharding<@mesh_4b, [{mp}, {}]>}
func.func @completed_and_partitioned(%x: tensor<2x8xf32> {dist.partitioned_as = #dist.sharding<@mesh_4b, [{mp}, {}]>}, %y: tensor<8xf32>) -> tensor<2x8xf32> {
  // CHECK: math.exp %{{.*}} {dist.shardings = [#dist.sharding<@mesh_4b, [{mp}]>]}
  %e = math.exp %y {dist.shardings = [#dist.sharding<@mesh_4b, [{mp}]>]} : tensor<8xf32>
  return %x : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// Collectives on buffers
//===----------------------------------------------------------------------===//

// Tests the bufferized forms of every collective: in place on one buffer
// (all_reduce, reduce, broadcast) or from an input into an output buffer,
// including strided views.
// CHECK-LABEL: func.func @buffer_collectives
// CHECK: dist.buffer.all_reduce %{{.*}} on @mesh_2x4 [mp] sum : memref<4x8xf32>
// CHECK: dist.buffer.reduce %{{.*}} on @mesh_2x4 [dp] max root = 1 : memref<4x8xf32>
// CHECK: dist.buffer.broadcast %{{.*}} on @mesh_2x4 [dp, mp] root = 7 : memref<4x8xf32>
// CHECK: dist.buffer.all_gather %{{.*}} into %{{.*}} on @mesh_2x4 [mp] dim = 1 : memref<4x8xf32>, memref<4x32xf32>
// CHECK: dist.buffer.reduce_scatter %{{.*}} into %{{.*}} on @mesh_2x4 [mp] avg dim = 0 : memref<4x8xf32>, memref<1x8xf32>
// CHECK: dist.buffer.all_to_all %{{.*}} into %{{.*}} on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : memref<4x8xf32>, memref<16x2xf32>
// CHECK: dist.buffer.permute %{{.*}} into %{{.*}} on @mesh_2x4 [mp] pairs = [0 -> 1, 1 -> 0] : memref<4x8xf32>, memref<4x8xf32>
// CHECK: dist.buffer.all_reduce %{{.*}} on @mesh_2x4 [mp] sum : memref<2x8xf32, strided<[8, 1], offset: 16>>
func.func @buffer_collectives(%a: memref<4x8xf32>, %g: memref<4x32xf32>, %r: memref<1x8xf32>,
                              %t: memref<16x2xf32>, %p: memref<4x8xf32>,
                              %v: memref<2x8xf32, strided<[8, 1], offset: 16>>) {
  dist.buffer.all_reduce %a on @mesh_2x4 [mp] sum : memref<4x8xf32>
  dist.buffer.reduce %a on @mesh_2x4 [dp] max root = 1 : memref<4x8xf32>
  dist.buffer.broadcast %a on @mesh_2x4 [dp, mp] root = 7 : memref<4x8xf32>
  dist.buffer.all_gather %a into %g on @mesh_2x4 [mp] dim = 1 : memref<4x8xf32>, memref<4x32xf32>
  dist.buffer.reduce_scatter %a into %r on @mesh_2x4 [mp] avg dim = 0 : memref<4x8xf32>, memref<1x8xf32>
  dist.buffer.all_to_all %a into %t on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : memref<4x8xf32>, memref<16x2xf32>
  dist.buffer.permute %a into %p on @mesh_2x4 [mp] pairs = [0 -> 1, 1 -> 0] : memref<4x8xf32>, memref<4x8xf32>
  dist.buffer.all_reduce %v on @mesh_2x4 [mp] sum : memref<2x8xf32, strided<[8, 1], offset: 16>>
  return
}

// Tests async collectives and their waits (tensors and buffers), buckets,
// communicator indices and origins.
// CHECK-LABEL: func.func @async_buckets
// CHECK: %[[R:.*]]:2, %[[T:.*]] = dist.all_reduce async %{{.*}}, %{{.*}} on @mesh_2x4 [dp] comm = 1 sum {origin = #dist.origin<partial>} : tensor<8xf32>, tensor<2x4xf32>
// CHECK: %{{.*}}:2 = dist.wait %[[T]], %[[R]]#0, %[[R]]#1 : tensor<8xf32>, tensor<2x4xf32>
// CHECK: %[[B:.*]] = dist.broadcast %{{.*}}, %{{.*}} on @mesh_2x4 [mp] root = 2 : tensor<8xf32>, tensor<2x4xf32>
// CHECK: %[[G:.*]], %[[GT:.*]] = dist.all_gather async %{{.*}} on @mesh_2x4 [mp] comm = 3 dim = 0 {origin = #dist.origin<reshard>} : tensor<8xf32> -> tensor<32xf32>
// CHECK: dist.wait %[[GT]], %[[G]] : tensor<32xf32>
// CHECK: %[[BT:.*]] = dist.buffer.reduce async %{{.*}}, %{{.*}} on @mesh_2x4 [dp] max root = 1 : memref<8xf32>, memref<4xf32>
// CHECK: dist.wait %[[BT]], %{{.*}}, %{{.*}} : memref<8xf32>, memref<4xf32>
// CHECK: %[[PT:.*]] = dist.buffer.permute async %{{.*}} into %{{.*}} on @mesh_2x4 [mp] pairs = [0 -> 1] : memref<8xf32>, memref<8xf32>
// CHECK: dist.wait %[[PT]], %{{.*}}, %{{.*}} : memref<8xf32>, memref<8xf32>
func.func @async_buckets(%x: tensor<8xf32>, %y: tensor<2x4xf32>, %a: memref<8xf32>, %b: memref<4xf32>, %c: memref<8xf32>) {
  %r:2, %t = dist.all_reduce async %x, %y on @mesh_2x4 [dp] comm = 1 sum {origin = #dist.origin<partial>} : tensor<8xf32>, tensor<2x4xf32>
  %w:2 = dist.wait %t, %r#0, %r#1 : tensor<8xf32>, tensor<2x4xf32>
  %bx, %by = dist.broadcast %x, %y on @mesh_2x4 [mp] comm = 0 root = 2 : tensor<8xf32>, tensor<2x4xf32>
  %g, %gt = dist.all_gather async %x on @mesh_2x4 [mp] comm = 3 dim = 0 {origin = #dist.origin<reshard>} : tensor<8xf32> -> tensor<32xf32>
  %gw = dist.wait %gt, %g : tensor<32xf32>
  %bt = dist.buffer.reduce async %a, %b on @mesh_2x4 [dp] max root = 1 : memref<8xf32>, memref<4xf32>
  dist.wait %bt, %a, %b : memref<8xf32>, memref<4xf32>
  %pt = dist.buffer.permute async %a into %c on @mesh_2x4 [mp] pairs = [0 -> 1] : memref<8xf32>, memref<8xf32>
  dist.wait %pt, %a, %c : memref<8xf32>, memref<8xf32>
  return
}

// Tests the test-input range of an integer argument.
// CHECK-LABEL: func.func private @input_range
// CHECK-SAME: {dist.input_range = array<i64: 0, 100>}
func.func private @input_range(tensor<8xi32> {dist.input_range = array<i64: 0, 100>})

// Tests the state marking of a training step: each result names the argument
// it updates; a partitioned function keeps it on local types whose global
// types match.
// CHECK-LABEL: func.func private @updates
// CHECK-SAME: -> (tensor<8x4xf32> {dist.updates = 1 : i64}, f32, tensor<8xf32> {dist.updates = 0 : i64})
func.func private @updates(tensor<8xf32>, tensor<8x4xf32>)
    -> (tensor<8x4xf32> {dist.updates = 1 : i64}, f32,
        tensor<8xf32> {dist.updates = 0 : i64})

// CHECK-LABEL: func.func private @updates_partitioned
// CHECK-SAME: (memref<2x4xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}, {}]>})
// CHECK-SAME: -> (tensor<8x1xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {mp}]>, dist.updates = 0 : i64})
func.func private @updates_partitioned(
    memref<2x4xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}, {}]>})
    -> (tensor<8x1xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {mp}]>,
                         dist.updates = 0 : i64})

// Tests the state marking by name: a result named like an argument.
// CHECK-LABEL: func.func private @named_state
// CHECK-SAME: (tensor<8xf32> {dist.name = "w"}, f32 {dist.name = "lr"})
// CHECK-SAME: -> (tensor<8xf32> {dist.name = "w"}, f32 {dist.name = "loss"})
func.func private @named_state(tensor<8xf32> {dist.name = "w"}, f32 {dist.name = "lr"})
    -> (tensor<8xf32> {dist.name = "w"}, f32 {dist.name = "loss"})
