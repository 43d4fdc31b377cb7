// RUN: dist-opt %s -split-input-file -verify-diagnostics
// RUN: not dist-opt %s -split-input-file 2>&1 | FileCheck %s --check-prefix=COL

// Every diagnostic of the dist dialect that textual IR can reach, one case
// per block. The COL lines check the column of parse errors, which
// -verify-diagnostics does not.

// Tests that a mesh axis of size 0 is rejected.
// expected-error@+1 {{'dist.mesh' op axis 1 ('mp') has size 0; mesh axes must have size >= 1}}
dist.mesh @mesh_2x0 [dp = 2, mp = 0]

// -----

// Tests that a mesh axis of negative size is rejected.
// expected-error@+1 {{'dist.mesh' op axis 0 ('dp') has size -2; mesh axes must have size >= 1}}
dist.mesh @mesh_m2 [dp = -2]

// -----

// Tests that two mesh axes may not share a name.
// expected-error@+1 {{'dist.mesh' op axis name 'dp' is used twice}}
dist.mesh @mesh_2x4x2 [dp = 2, mp = 4, dp = 2]

// -----

// Tests that a mesh axis may not have an empty name.
// expected-error@+1 {{'dist.mesh' op axis 1 has an empty name}}
dist.mesh @mesh_2x4 [dp = 2, "" = 4]

// -----

// Tests that the generic form needs one size per axis name.
// expected-error@+1 {{'dist.mesh' op has 2 axis names but 1 sizes}}
"dist.mesh"() <{axis_names = ["dp", "mp"], shape = array<i64: 2>, sym_name = "mesh_2x4"}> : () -> ()

// -----

// Tests that a mesh axis needs `=` between its name and its size.
// COL: invalid.mlir:[[@LINE+2]]:24: error: expected '='
// expected-error@+1 {{expected '='}}
dist.mesh @mesh_2x4 [dp 2, mp = 4]

// -----

// Tests that a mesh axis size must be an integer.
// COL: invalid.mlir:[[@LINE+2]]:27: error: custom op 'dist.mesh' expected integer value
// expected-error@+1 {{expected integer value}}
dist.mesh @mesh_2x4 [dp = 2.0, mp = 4]

// -----

// Tests that a mesh needs a symbol name.
// expected-error@+1 {{expected valid '@'-identifier for symbol name}}
dist.mesh [dp = 2, mp = 4]

// -----

// Tests that an axis may not split one dim twice (#dist.dim on its own).
// expected-error@+1 {{mesh axis 'dp' appears twice in one dim}}
func.func private @f() attributes {dims = #dist.dim<{dp, dp}>}

// -----

// Tests that an axis may not name an empty string in #dist.dim.
// expected-error@+1 {{empty mesh axis name in one dim}}
func.func private @f() attributes {dims = #dist.dim<{dp, ""}>}

// -----

// Tests that an axis may not split one dim of a #dist.sharding twice.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{mesh axis 'mp' appears twice in one dim}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{mp, dp, mp}, {}]>})

// -----

// Tests that an axis may not name an empty string in a dim of a #dist.sharding.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{empty mesh axis name in one dim}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{""}, {}]>})

// -----

// Tests that an axis may not split two dims.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{mesh axis 'dp' is used twice: in dim 0 and in dim 2}}
func.func private @f(tensor<8x16x4xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {mp}, {dp}]>})

// -----

// Tests that an axis may not both split a dim and be partial.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{mesh axis 'mp' is used twice: in dim 1 and in the partial axes}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp}], partial = sum{dp, mp}>})

// -----

// Tests that an axis may not be partial twice.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{mesh axis 'dp' appears twice in the partial axes}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = max{dp, dp}>})

// -----

// Tests that a partial axis may not be an empty string.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{empty mesh axis name in the partial axes}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = sum{""}>})

// -----

// Tests that `partial` needs at least one axis.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// COL: invalid.mlir:[[@LINE+2]]:102: error: 'partial' needs at least one mesh axis
// expected-error@+1 {{'partial' needs at least one mesh axis}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = sum{}>})

// -----

// Tests that the reduction kind of `partial` must be known.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// COL: invalid.mlir:[[@LINE+2]]:102: error: unknown reduction kind 'mean'; expected sum, max, min, prod or avg
// expected-error@+1 {{unknown reduction kind 'mean'; expected sum, max, min, prod or avg}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = mean{dp}>})

// -----

// Tests that `partial` needs a reduction kind before its axes.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{expected valid keyword or string}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], partial = {dp}>})

// -----

// Tests that only `partial` and `owner` may follow the dims.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// COL: invalid.mlir:[[@LINE+2]]:92: error: expected 'partial = <kind> {axes}' and then 'owner = <index> {axes}', each at most once
// expected-error@+1 {{expected 'partial = <kind> {axes}' and then 'owner = <index> {axes}', each at most once}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], parital = sum{dp}>})

// -----

// Tests that the mesh of a sharding is a flat symbol reference.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{invalid kind of attribute specified}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@outer::@mesh_2x4, [{}, {}]>})

// -----

// Tests that the mesh of a sharding is a symbol, not a string.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{invalid kind of attribute specified}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<"mesh_2x4", [{}, {}]>})

// -----

// Tests that a sharding must name a mesh that exists.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: sharding refers to an unknown mesh @mesh_8}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_8, [{dp}, {}]>})

// -----

// Tests that a sharding must name a dist.mesh, not some other symbol.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 1: sharding refers to an unknown mesh @f}}
func.func private @f(tensor<8x16xf32>, tensor<8x16xf32> {dist.sharding = #dist.sharding<@f, [{}, {}]>})

// -----

// Tests that every split axis must exist in the mesh.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op result 0: mesh @mesh_2x4 has no axis 'pp'}}
func.func private @f(tensor<8x16xf32>) -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {pp}]>})

// -----

// Tests that every partial axis must exist in the mesh.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: mesh @mesh_2x4 has no axis 'pp'}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}], partial = sum{mp, pp}>})

// -----

// Tests that a sharding has one entry per dim of the tensor.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: sharding has 1 dims but the type 'tensor<8x16xf32>' has rank 2}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}]>})

// -----

// Tests that a rank-0 tensor needs the empty sharding `[]`.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op result 0: sharding has 1 dims but the type 'tensor<f32>' has rank 0}}
func.func private @f() -> (tensor<f32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}]>})

// -----

// Tests that a halo needs a split dim.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{a halo needs a split dim (no mesh axes are given)}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{} halo [1, 1], {}]>})

// -----

// Tests that a dim has a halo or an overlap, not both.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{a dim has a halo or an overlap, not both}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp} halo [1, 1] overlap 2, {}]>})

// -----

// Tests that halo sizes are non-negative.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{halo sizes and overlaps must be non-negative, got halo [-1, 1] and overlap 0}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp} halo [-1, 1], {}]>})

// -----

// Tests that a partial sharding has no halo.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{dim 0 has a halo, which a partial or owned sharding cannot have}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp} halo [1, 1], {}], partial = sum{mp}>})

// -----

// Tests that halos need even blocks: 10 rows do not split into 4.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: dim 0 of 'tensor<10x16xf32>' (10 rows) is not split evenly into 4 blocks; halos and overlaps need even blocks}}
func.func private @f(tensor<10x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{mp} halo [1, 1], {}]>})

// -----

// Tests that an overlap's blocks are even without it: 16 - 3 rows do not
// split into 2.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<16x16xf32>) {
  // expected-error@+1 {{dim 0 of 'tensor<16x16xf32>' less its overlap (13 rows) is not split evenly into 2 blocks; halos and overlaps need even blocks}}
  %y = dist.annotate %x as <@mesh_2x4, [{dp} overlap 3, {}]> : tensor<16x16xf32>
  return
}

// -----

// Tests that a halo is at most a block: rows come from the neighbours only.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op result 0: dim 1 of 'tensor<8x16xf32>' has blocks of 4 rows, fewer than its halo [0, 5] (halo rows come from the neighbouring blocks only)}}
func.func private @f() -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp} halo [0, 5]]>})

// -----

// Tests that dist.global_shape needs dist.partitioned_as beside it.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: 'dist.global_shape' must be an array<i64> beside a 'dist.partitioned_as' on a ranked tensor, got array<i64: 10, 16> on 'tensor<3x16xf32>'}}
func.func private @f(tensor<3x16xf32> {dist.global_shape = array<i64: 10, 16>})

// -----

// Tests that dist.global_shape must give the padded blocks of the local type:
// 10 rows in 4 blocks are blocks of 3, not 2.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op result 0: 'dist.global_shape' array<i64: 10, 16> does not match the local type 'tensor<2x16xf32>' laid out as #dist.sharding<@mesh_2x4, [{mp}, {}]> (dim 0)}}
func.func private @f() -> (tensor<2x16xf32> {dist.global_shape = array<i64: 10, 16>, dist.partitioned_as = #dist.sharding<@mesh_2x4, [{mp}, {}]>})

// -----

// Tests that dist.global_shape has the local type's rank.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: 'dist.global_shape' array<i64: 10> does not match the local type 'tensor<3x16xf32>'}}
func.func private @f(tensor<3x16xf32> {dist.global_shape = array<i64: 10>, dist.partitioned_as = #dist.sharding<@mesh_2x4, [{mp}, {}]>})

// -----

// Tests that `dist.sharding` on an argument must be a #dist.sharding.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: 'dist.sharding' must be a #dist.sharding, got #dist.dim<{dp}>}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.dim<{dp}>})

// -----

// Tests that `dist.sharding` on a result must be a #dist.sharding.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op result 0: 'dist.sharding' must be a #dist.sharding, got "dp"}}
func.func private @f() -> (tensor<8x16xf32> {dist.sharding = "dp"})

// -----

// Tests that an argument may carry no other dist attribute.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: unknown dist attribute 'dist.shard'}}
func.func private @f(tensor<8x16xf32> {dist.shard = #dist.sharding<@mesh_2x4, [{dp}, {}]>})

// -----

// Tests that a result may carry no other dist attribute.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op result 0: unknown dist attribute 'dist.role'}}
func.func private @f() -> (tensor<8x16xf32> {dist.role = #dist.role<forward>})

// -----

// Tests that only a tensor can be sharded.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 1: a sharding needs a ranked tensor, got 'f32'}}
func.func @f(%x: tensor<8xf32>, %y: f32 {dist.sharding = #dist.sharding<@mesh_2x4, []>}) {
  return
}

// -----

// Tests that only a ranked tensor can be sharded.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op result 0: a sharding needs a ranked tensor, got 'tensor<*xf32>'}}
func.func private @f() -> (tensor<*xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}]>})

// -----

// Tests that a memref cannot be sharded.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: a sharding needs a ranked tensor, got 'memref<8xf32>'}}
func.func private @f(memref<8xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}]>})

// -----

// Tests that `dist.sharding` is no op attribute.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op 'dist.sharding' belongs on function arguments and results; use dist.annotate to pin the sharding of a value}}
func.func private @f(tensor<8x16xf32>) attributes {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>}

// -----

// Tests that `dist.sharding` is no attribute of a dist op either.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.annotate' op 'dist.sharding' belongs on function arguments and results; use dist.annotate to pin the sharding of a value}}
  %0 = dist.annotate %x as <@mesh_2x4, [{dp}, {}]> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>} : tensor<8x16xf32>
  return
}

// -----

// Tests that `dist.role` must be a #dist.role.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'arith.negf' op 'dist.role' must be a #dist.role, got "backward"}}
  %0 = arith.negf %x {dist.role = "backward"} : tensor<8x16xf32>
  return
}

// -----

// Tests that `dist.role` on a function must be a #dist.role.
// expected-error@+1 {{'func.func' op 'dist.role' must be a #dist.role, got 1 : i64}}
func.func private @f() attributes {dist.role = 1}

// -----

// Tests that #dist.role only takes the known roles.
// expected-error@+2 {{expected ::mlir::dist::Role to be one of: forward, backward, optimizer, loss, lr_sched, dist}}
// expected-error@+1 {{failed to parse Dist_RoleAttr parameter 'value' which is to be a `::mlir::dist::Role`}}
func.func private @f() attributes {dist.role = #dist.role<fwd>}

// -----

// Tests that dist.fetch is a non-negative i64.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.annotate' op 'dist.fetch' must be a non-negative i64 (the index of a parameter's fetch), got -1 : i64}}
  %0 = dist.annotate %x as <@mesh_2x4, [{}, {}]> {dist.fetch = -1 : i64} : tensor<8x16xf32>
  return
}

// -----

// Tests that an op may carry no other dist attribute.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op unknown dist attribute 'dist.stage'}}
  %0 = dist.all_reduce %x on @mesh_2x4 [mp] sum {dist.stage = 1 : i64} : tensor<8x16xf32>
  return
}

// -----

// Tests that a function may carry no other dist attribute.
// expected-error@+1 {{'func.func' op unknown dist attribute 'dist.mesh'}}
func.func private @f() attributes {dist.mesh = @mesh_2x4}

// -----

// Tests that dist.annotate needs a mesh that exists.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.annotate' op sharding refers to an unknown mesh @mesh_4}}
  %0 = dist.annotate %x as <@mesh_4, [{mp}, {}]> : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.annotate needs axes that exist.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.annotate' op mesh @mesh_2x4 has no axis 'tp'}}
  %0 = dist.annotate %x as <@mesh_2x4, [{}, {tp}]> : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.annotate needs one sharding entry per dim.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.annotate' op sharding has 3 dims but the type 'tensor<8x16xf32>' has rank 2}}
  %0 = dist.annotate %x as <@mesh_2x4, [{}, {}, {}]> : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.annotate rejects an axis used twice (while parsing).
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{mesh axis 'dp' is used twice: in dim 0 and in the partial axes}}
  %0 = dist.annotate %x as <@mesh_2x4, [{dp}, {}], partial = sum{dp}> : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.annotate keeps the type of its operand.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.annotate' op requires the same type for all operands and results}}
  %0 = "dist.annotate"(%x) <{sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>}> : (tensor<8x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// Tests that dist.all_reduce needs a mesh that exists.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op refers to an unknown mesh @mesh_4}}
  %0 = dist.all_reduce %x on @mesh_4 [mp] sum : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.all_reduce needs axes that exist.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op mesh @mesh_2x4 has no axis 'tp'}}
  %0 = dist.all_reduce %x on @mesh_2x4 [mp, tp] sum : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.all_reduce may not name an axis twice in its group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op mesh axis 'mp' appears twice in the group}}
  %0 = dist.all_reduce %x on @mesh_2x4 [mp, mp] sum : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.all_gather needs a mesh that exists.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op refers to an unknown mesh @mesh_4}}
  %0 = dist.all_gather %x on @mesh_4 [mp] dim = 0 : tensor<8x16xf32> -> tensor<32x16xf32>
  return
}

// -----

// Tests that dist.all_gather needs axes that exist.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op mesh @mesh_2x4 has no axis 'tp'}}
  %0 = dist.all_gather %x on @mesh_2x4 [mp, tp] dim = 0 : tensor<8x16xf32> -> tensor<32x16xf32>
  return
}

// -----

// Tests that dist.all_gather may not name an axis twice in its group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op mesh axis 'mp' appears twice in the group}}
  %0 = dist.all_gather %x on @mesh_2x4 [mp, mp] dim = 0 : tensor<8x16xf32> -> tensor<32x16xf32>
  return
}

// -----

// Tests that dist.reduce_scatter needs a mesh that exists.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce_scatter' op refers to an unknown mesh @mesh_4}}
  %0 = dist.reduce_scatter %x on @mesh_4 [mp] sum dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  return
}

// -----

// Tests that dist.reduce_scatter needs axes that exist.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce_scatter' op mesh @mesh_2x4 has no axis 'tp'}}
  %0 = dist.reduce_scatter %x on @mesh_2x4 [mp, tp] sum dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  return
}

// -----

// Tests that dist.reduce_scatter may not name an axis twice in its group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce_scatter' op mesh axis 'mp' appears twice in the group}}
  %0 = dist.reduce_scatter %x on @mesh_2x4 [mp, mp] sum dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  return
}

// -----

// Tests that dist.all_to_all needs a mesh that exists.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op refers to an unknown mesh @mesh_4}}
  %0 = dist.all_to_all %x on @mesh_4 [mp] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  return
}

// -----

// Tests that dist.all_to_all needs axes that exist.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op mesh @mesh_2x4 has no axis 'tp'}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp, tp] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  return
}

// -----

// Tests that dist.all_to_all may not name an axis twice in its group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op mesh axis 'mp' appears twice in the group}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp, mp] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  return
}

// -----

// Tests that dist.reduce needs a mesh that exists.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce' op refers to an unknown mesh @mesh_4}}
  %0 = dist.reduce %x on @mesh_4 [mp] sum root = 0 : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.reduce needs axes that exist.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce' op mesh @mesh_2x4 has no axis 'tp'}}
  %0 = dist.reduce %x on @mesh_2x4 [mp, tp] sum root = 0 : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.reduce may not name an axis twice in its group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce' op mesh axis 'mp' appears twice in the group}}
  %0 = dist.reduce %x on @mesh_2x4 [mp, mp] sum root = 0 : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.broadcast needs a mesh that exists.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.broadcast' op refers to an unknown mesh @mesh_4}}
  %0 = dist.broadcast %x on @mesh_4 [mp] root = 0 : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.broadcast needs axes that exist.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.broadcast' op mesh @mesh_2x4 has no axis 'tp'}}
  %0 = dist.broadcast %x on @mesh_2x4 [mp, tp] root = 0 : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.broadcast may not name an axis twice in its group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.broadcast' op mesh axis 'mp' appears twice in the group}}
  %0 = dist.broadcast %x on @mesh_2x4 [mp, mp] root = 0 : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.permute needs a mesh that exists.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.permute' op refers to an unknown mesh @mesh_4}}
  %0 = dist.permute %x on @mesh_4 [mp] pairs = [0 -> 1] : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.permute needs axes that exist.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.permute' op mesh @mesh_2x4 has no axis 'tp'}}
  %0 = dist.permute %x on @mesh_2x4 [mp, tp] pairs = [0 -> 1] : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.permute may not name an axis twice in its group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.permute' op mesh axis 'mp' appears twice in the group}}
  %0 = dist.permute %x on @mesh_2x4 [mp, mp] pairs = [0 -> 1] : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.process_index needs a mesh that exists.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f() {
  // expected-error@+1 {{'dist.process_index' op refers to an unknown mesh @mesh_4}}
  %0 = dist.process_index on @mesh_4 [mp] : index
  return
}

// -----

// Tests that dist.process_index needs axes that exist.
// expected-note@+1 {{mesh declared here}}
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f() {
  // expected-error@+1 {{'dist.process_index' op mesh @mesh_2x4 has no axis 'tp'}}
  %0 = dist.process_index on @mesh_2x4 [mp, tp] : index
  return
}

// -----

// Tests that dist.process_index may not name an axis twice in its group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f() {
  // expected-error@+1 {{'dist.process_index' op mesh axis 'mp' appears twice in the group}}
  %0 = dist.process_index on @mesh_2x4 [mp, mp] : index
  return
}

// -----

// Tests that a collective needs a dist.mesh, not some other symbol.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op refers to an unknown mesh @f}}
  %0 = dist.all_reduce %x on @f [mp] sum : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.all_reduce cannot reduce complex numbers.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<4xcomplex<f32>>) {
  // expected-error@+1 {{'dist.all_reduce' op cannot reduce elements of type 'complex<f32>'; expected an integer or floating-point type}}
  %0 = dist.all_reduce %x on @mesh_2x4 [mp] sum : tensor<4xcomplex<f32>>
  return
}

// -----

// Tests that dist.all_reduce takes only the known reduction kinds.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // COL: invalid.mlir:[[@LINE+2]]:45: error: custom op 'dist.all_reduce' expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min, prod, avg]
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min, prod, avg]}}
  %0 = dist.all_reduce %x on @mesh_2x4 [mp] mean : tensor<8x16xf32>
  return
}

// -----

// Tests that the generic form of dist.all_reduce takes only the known kinds.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{Invalid attribute `kind` in property conversion: 5 : i32}}
  %0 = "dist.all_reduce"(%x) <{axes = ["mp"], kind = 5 : i32, mesh = @mesh_2x4}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

// Tests that dist.all_reduce keeps the type of its operand.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op result 0 has type 'tensor<2x16xf32>', expected 'tensor<8x16xf32>' (input 0's)}}
  %0 = "dist.all_reduce"(%x) <{axes = ["mp"], kind = 0 : i32, mesh = @mesh_2x4, resultSegmentSizes = array<i32: 1, 0>}> : (tensor<8x16xf32>) -> tensor<2x16xf32>
  return
}

// -----

// Tests that the axes of a collective are names.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op attribute 'axes' failed to satisfy constraint: mesh axis names}}
  %0 = "dist.all_reduce"(%x) <{axes = [0], kind = 0 : i32, mesh = @mesh_2x4, resultSegmentSizes = array<i32: 1, 0>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

// Tests that the dim of dist.all_gather is a dim of the operand.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op dim 2 is out of range for the operand type 'tensor<8x16xf32>' of rank 2}}
  %0 = dist.all_gather %x on @mesh_2x4 [mp] dim = 2 : tensor<8x16xf32> -> tensor<8x16x4xf32>
  return
}

// -----

// Tests that the dim of dist.all_gather is not negative.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = dist.all_gather %x on @mesh_2x4 [mp] dim = -1 : tensor<8x16xf32> -> tensor<8x64xf32>
  return
}

// -----

// Tests that dist.all_gather keeps the element type.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op result element type 'f16' differs from the operand's 'f32'}}
  %0 = dist.all_gather %x on @mesh_2x4 [mp] dim = 0 : tensor<8x16xf32> -> tensor<32x16xf16>
  return
}

// -----

// Tests that dist.all_gather keeps the rank.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op result rank 1 differs from the operand's 2}}
  %0 = dist.all_gather %x on @mesh_2x4 [mp] dim = 0 : tensor<8x16xf32> -> tensor<512xf32>
  return
}

// -----

// Tests that dist.all_gather changes no dim but the gathered one.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op result dim 1 has size 4, expected 16 (the operand's; only the collective's dims may change)}}
  %0 = dist.all_gather %x on @mesh_2x4 [mp] dim = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  return
}

// -----

// Tests that dist.all_gather checks static dims next to dynamic ones.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<?x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op result dim 1 has size 8, expected 16 (the operand's; only the collective's dims may change)}}
  %0 = dist.all_gather %x on @mesh_2x4 [mp] dim = 0 : tensor<?x16xf32> -> tensor<?x8xf32>
  return
}

// -----

// Tests that dist.all_gather multiplies the gathered dim by the group size.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op result dim 1 has size 32, expected 64 (operand dim 1 of size 16 times the group size 4 of axes [mp] on @mesh_2x4)}}
  %0 = dist.all_gather %x on @mesh_2x4 [mp] dim = 1 : tensor<8x16xf32> -> tensor<8x32xf32>
  return
}

// -----

// Tests that dist.all_gather over several axes multiplies by the product of their sizes.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_gather' op result dim 0 has size 32, expected 64 (operand dim 0 of size 8 times the group size 8 of axes [dp, mp] on @mesh_2x4)}}
  %0 = dist.all_gather %x on @mesh_2x4 [dp, mp] dim = 0 : tensor<8x16xf32> -> tensor<32x16xf32>
  return
}

// -----

// Tests that dist.reduce_scatter cannot reduce complex numbers.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8xcomplex<f32>>) {
  // expected-error@+1 {{'dist.reduce_scatter' op cannot reduce elements of type 'complex<f32>'; expected an integer or floating-point type}}
  %0 = dist.reduce_scatter %x on @mesh_2x4 [mp] sum dim = 0 : tensor<8xcomplex<f32>> -> tensor<2xcomplex<f32>>
  return
}

// -----

// Tests that the dim of dist.reduce_scatter is a dim of the operand.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce_scatter' op dim 5 is out of range for the operand type 'tensor<8x16xf32>' of rank 2}}
  %0 = dist.reduce_scatter %x on @mesh_2x4 [mp] sum dim = 5 : tensor<8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

// Tests that dist.reduce_scatter keeps the element type.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce_scatter' op result element type 'bf16' differs from the operand's 'f32'}}
  %0 = dist.reduce_scatter %x on @mesh_2x4 [mp] sum dim = 0 : tensor<8x16xf32> -> tensor<2x16xbf16>
  return
}

// -----

// Tests that dist.reduce_scatter keeps the rank.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce_scatter' op result rank 3 differs from the operand's 2}}
  %0 = dist.reduce_scatter %x on @mesh_2x4 [mp] sum dim = 0 : tensor<8x16xf32> -> tensor<2x16x1xf32>
  return
}

// -----

// Tests that dist.reduce_scatter changes no dim but the scattered one.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce_scatter' op result dim 0 has size 2, expected 8 (the operand's; only the collective's dims may change)}}
  %0 = dist.reduce_scatter %x on @mesh_2x4 [mp] sum dim = 1 : tensor<8x16xf32> -> tensor<2x4xf32>
  return
}

// -----

// Tests that dist.reduce_scatter needs a scattered dim divisible by the group size.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x6xf32>) {
  // expected-error@+1 {{'dist.reduce_scatter' op operand dim 1 of size 6 is not divisible by the group size 4 of axes [mp] on @mesh_2x4}}
  %0 = dist.reduce_scatter %x on @mesh_2x4 [mp] max dim = 1 : tensor<8x6xf32> -> tensor<8x1xf32>
  return
}

// -----

// Tests that dist.reduce_scatter divides the scattered dim by the group size.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce_scatter' op result dim 0 has size 4, expected 1 (operand dim 0 of size 8 divided by the group size 8 of axes [mp, dp] on @mesh_2x4)}}
  %0 = dist.reduce_scatter %x on @mesh_2x4 [mp, dp] avg dim = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

// Tests that the split_dim of dist.all_to_all is a dim of the operand.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op split_dim 2 is out of range for the operand type 'tensor<8x16xf32>' of rank 2}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 2 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x16xf32>
  return
}

// -----

// Tests that the concat_dim of dist.all_to_all is a dim of the operand.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op concat_dim 3 is out of range for the operand type 'tensor<8x16xf32>' of rank 2}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 1 concat_dim = 3 : tensor<8x16xf32> -> tensor<8x4xf32>
  return
}

// -----

// Tests that the concat_dim of dist.all_to_all is not negative.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op attribute 'concat_dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 1 concat_dim = -2 : tensor<8x16xf32> -> tensor<32x4xf32>
  return
}

// -----

// Tests that dist.all_to_all keeps the element type.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op result element type 'i32' differs from the operand's 'f32'}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4xi32>
  return
}

// -----

// Tests that dist.all_to_all keeps the rank.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op result rank 3 differs from the operand's 2}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4x1xf32>
  return
}

// -----

// Tests that dist.all_to_all changes no dim but split_dim and concat_dim.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16x2xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op result dim 2 has size 4, expected 2 (the operand's; only the collective's dims may change)}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : tensor<8x16x2xf32> -> tensor<32x4x4xf32>
  return
}

// -----

// Tests that dist.all_to_all with split_dim == concat_dim keeps the shape.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op result dim 1 has size 4, expected 16 (the operand's; only the collective's dims may change)}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 1 concat_dim = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
  return
}

// -----

// Tests that dist.all_to_all needs a split_dim divisible by the group size.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<6x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op operand split_dim 0 of size 6 is not divisible by the group size 4 of axes [mp] on @mesh_2x4}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 0 concat_dim = 1 : tensor<6x16xf32> -> tensor<1x64xf32>
  return
}

// -----

// Tests that dist.all_to_all with split_dim == concat_dim still needs a divisible dim.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<6x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op operand split_dim 0 of size 6 is not divisible by the group size 4 of axes [mp] on @mesh_2x4}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 0 concat_dim = 0 : tensor<6x16xf32> -> tensor<6x16xf32>
  return
}

// -----

// Tests that dist.all_to_all divides split_dim by the group size.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op result dim 1 has size 8, expected 4 (operand dim 1 of size 16 divided by the group size 4 of axes [mp] on @mesh_2x4)}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x8xf32>
  return
}

// -----

// Tests that dist.all_to_all multiplies concat_dim by the group size.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.all_to_all' op result dim 0 has size 8, expected 32 (operand dim 0 of size 8 times the group size 4 of axes [mp] on @mesh_2x4)}}
  %0 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<8x4xf32>
  return
}

// -----

// Tests that dist.reduce cannot reduce complex numbers.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<4xcomplex<f64>>) {
  // expected-error@+1 {{'dist.reduce' op cannot reduce elements of type 'complex<f64>'; expected an integer or floating-point type}}
  %0 = dist.reduce %x on @mesh_2x4 [mp] sum root = 0 : tensor<4xcomplex<f64>>
  return
}

// -----

// Tests that the root of dist.reduce is a rank of the group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce' op root 4 is out of range for the group size 4 of axes [mp] on @mesh_2x4}}
  %0 = dist.reduce %x on @mesh_2x4 [mp] sum root = 4 : tensor<8x16xf32>
  return
}

// -----

// Tests that the root of dist.reduce is not negative.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce' op attribute 'root' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = dist.reduce %x on @mesh_2x4 [mp] sum root = -1 : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.reduce keeps the type of its operand.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.reduce' op result 0 has type 'tensor<8x16xf16>', expected 'tensor<8x16xf32>' (input 0's)}}
  %0 = "dist.reduce"(%x) <{axes = ["mp"], kind = 0 : i32, mesh = @mesh_2x4, resultSegmentSizes = array<i32: 1, 0>, root = 0 : i64}> : (tensor<8x16xf32>) -> tensor<8x16xf16>
  return
}

// -----

// Tests that the root of dist.broadcast is a rank of the group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.broadcast' op root 8 is out of range for the group size 8 of axes [dp, mp] on @mesh_2x4}}
  %0 = dist.broadcast %x on @mesh_2x4 [dp, mp] root = 8 : tensor<8x16xf32>
  return
}

// -----

// Tests that the only root of dist.broadcast over no axis is 0.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.broadcast' op root 1 is out of range for the group size 1 of axes [] on @mesh_2x4}}
  %0 = dist.broadcast %x on @mesh_2x4 [] root = 1 : tensor<8x16xf32>
  return
}

// -----

// Tests that the root of dist.broadcast is not negative.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.broadcast' op attribute 'root' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = dist.broadcast %x on @mesh_2x4 [mp] root = -3 : tensor<8x16xf32>
  return
}

// -----

// Tests that the flat pairs of dist.permute hold an even number of ranks.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.permute' op 'pairs' must hold an even number of ranks, got 3}}
  %0 = "dist.permute"(%x) <{axes = ["mp"], mesh = @mesh_2x4, pairs = array<i64: 0, 1, 2>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

// Tests that a source of dist.permute is not negative.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.permute' op pair -1 -> 0 has a negative rank}}
  %0 = dist.permute %x on @mesh_2x4 [mp] pairs = [0 -> 1, -1 -> 0] : tensor<8x16xf32>
  return
}

// -----

// Tests that a target of dist.permute is not negative.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.permute' op pair 0 -> -1 has a negative rank}}
  %0 = dist.permute %x on @mesh_2x4 [mp] pairs = [0 -> -1] : tensor<8x16xf32>
  return
}

// -----

// Tests that a rank of dist.permute is a source once.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.permute' op rank 0 is a source twice}}
  %0 = dist.permute %x on @mesh_2x4 [mp] pairs = [0 -> 1, 1 -> 2, 0 -> 3] : tensor<8x16xf32>
  return
}

// -----

// Tests that a rank of dist.permute is a target once.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.permute' op rank 1 is a target twice}}
  %0 = dist.permute %x on @mesh_2x4 [mp] pairs = [0 -> 1, 2 -> 1] : tensor<8x16xf32>
  return
}

// -----

// Tests that a target of dist.permute is a rank of the group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.permute' op pair 3 -> 4 is out of range for the group size 4 of axes [mp] on @mesh_2x4}}
  %0 = dist.permute %x on @mesh_2x4 [mp] pairs = [3 -> 4] : tensor<8x16xf32>
  return
}

// -----

// Tests that a source of dist.permute is a rank of the group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'dist.permute' op pair 2 -> 0 is out of range for the group size 2 of axes [dp] on @mesh_2x4}}
  %0 = dist.permute %x on @mesh_2x4 [dp] pairs = [0 -> 1, 2 -> 0] : tensor<8x16xf32>
  return
}

// -----

// Tests that a pair of dist.permute is written with `->`.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{expected '->'}}
  %0 = dist.permute %x on @mesh_2x4 [mp] pairs = [0, 1] : tensor<8x16xf32>
  return
}

// -----

// Tests that dist.process_index returns an index.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f() {
  // expected-error@+1 {{invalid kind of type specified: expected builtin.index, but found 'i64'}}
  %0 = dist.process_index on @mesh_2x4 [dp] : i64
  return
}

// -----

// Tests that a mesh whose device count overflows 32-bit ranks is rejected
// (instead of overflowing the group-size arithmetic of its users).
// expected-error@+1 {{'dist.mesh' op has more than 2147483647 devices, the most a mesh may have}}
dist.mesh @mesh_huge [a = 4611686018427387904, b = 4]

// -----

// Tests that dist.shardings must be an array.
func.func @f(%x: tensor<8xf32>) {
  // expected-error@+1 {{'math.exp' op 'dist.shardings' must be an array, got 1 : i32}}
  %r = math.exp %x {dist.shardings = 1 : i32} : tensor<8xf32>
  return
}

// -----

// Tests that dist.shardings has one entry per result.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) {
  // expected-error@+1 {{'math.exp' op 'dist.shardings' has 2 entries for 1 results}}
  %r = math.exp %x {dist.shardings = [#dist.sharding<@mesh_4, [{mp}]>, #dist.sharding<@mesh_4, [{mp}]>]} : tensor<8xf32>
  return
}

// -----

// Tests that a non-tensor result has a unit entry in dist.shardings.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: f32) {
  // expected-error@+1 {{'math.exp' op result 0 is no ranked tensor; its entry in 'dist.shardings' must be unit}}
  %r = math.exp %x {dist.shardings = [#dist.sharding<@mesh_4, []>]} : f32
  return
}

// -----

// Tests that a tensor result has a #dist.sharding entry in dist.shardings.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) {
  // expected-error@+1 {{'math.exp' op result 0: entry in 'dist.shardings' must be a #dist.sharding, got unit}}
  %r = math.exp %x {dist.shardings = [unit]} : tensor<8xf32>
  return
}

// -----

// Tests that a dist.shardings entry must match its result's rank.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) {
  // expected-error@+1 {{'math.exp' op result 0: sharding has 2 dims but the type 'tensor<8xf32>' has rank 1}}
  %r = math.exp %x {dist.shardings = [#dist.sharding<@mesh_4, [{mp}, {}]>]} : tensor<8xf32>
  return
}

// -----

// Tests that dist.partitioned_as must still match the rank of the (local)
// type and name known axes.
dist.mesh @mesh_4 [mp = 4]
// expected-error@+1 {{'func.func' op argument 0: sharding has 2 dims but the type 'tensor<2xf32>' has rank 1}}
func.func private @f(tensor<2xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}, {}]>})

// -----

// Tests that dist.partitioned_as must name axes of its mesh.
dist.mesh @mesh_4 [mp = 4]
// expected-note@-1 {{mesh declared here}}
// expected-error@+1 {{'func.func' op argument 0: mesh @mesh_4 has no axis 'zz'}}
func.func private @f(tensor<2xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{zz}]>})

// -----

// Tests that a buffer all_gather follows the tensor form's size rule.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%a: memref<4x8xf32>, %b: memref<4x16xf32>) {
  // expected-error@+1 {{'dist.buffer.all_gather' op result dim 1 has size 16, expected 32 (operand dim 1 of size 8 times the group size 4 of axes [mp] on @mesh_4)}}
  dist.buffer.all_gather %a into %b on @mesh_4 [mp] dim = 1 : memref<4x8xf32>, memref<4x16xf32>
  return
}

// -----

// Tests that a buffer reduce_scatter checks divisibility by the group.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%a: memref<6x8xf32>, %b: memref<1x8xf32>) {
  // expected-error@+1 {{'dist.buffer.reduce_scatter' op operand dim 0 of size 6 is not divisible by the group size 4 of axes [mp] on @mesh_4}}
  dist.buffer.reduce_scatter %a into %b on @mesh_4 [mp] sum dim = 0 : memref<6x8xf32>, memref<1x8xf32>
  return
}

// -----

// Tests that a buffer all_to_all checks its dims.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%a: memref<4x8xf32>, %b: memref<16x2xf32>) {
  // expected-error@+1 {{'dist.buffer.all_to_all' op concat_dim 2 is out of range for the operand type 'memref<4x8xf32>' of rank 2}}
  dist.buffer.all_to_all %a into %b on @mesh_4 [mp] split_dim = 1 concat_dim = 2 : memref<4x8xf32>, memref<16x2xf32>
  return
}

// -----

// Tests that a buffer permute writes a buffer of its input's type.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%a: memref<4x8xf32>, %b: memref<8x4xf32>) {
  // expected-error@+1 {{'dist.buffer.permute' op output type 'memref<8x4xf32>' must have the shape and element type of the input type 'memref<4x8xf32>'}}
  dist.buffer.permute %a into %b on @mesh_4 [mp] pairs = [0 -> 1] : memref<4x8xf32>, memref<8x4xf32>
  return
}

// -----

// Tests that buffer permute pairs are checked against the group.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error@+1 {{'dist.buffer.permute' op pair 0 -> 4 is out of range for the group size 4 of axes [mp] on @mesh_4}}
  dist.buffer.permute %a into %b on @mesh_4 [mp] pairs = [0 -> 4] : memref<4xf32>, memref<4xf32>
  return
}

// -----

// Tests that a buffer reduce needs a root inside the group.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%a: memref<4xf32>) {
  // expected-error@+1 {{'dist.buffer.reduce' op root 4 is out of range for the group size 4 of axes [mp] on @mesh_4}}
  dist.buffer.reduce %a on @mesh_4 [mp] sum root = 4 : memref<4xf32>
  return
}

// -----

// Tests that a buffer all_reduce needs numbers.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%a: memref<4xcomplex<f32>>) {
  // expected-error@+1 {{'dist.buffer.all_reduce' op cannot reduce elements of type 'complex<f32>'; expected an integer or floating-point type}}
  dist.buffer.all_reduce %a on @mesh_4 [mp] sum : memref<4xcomplex<f32>>
  return
}

// -----

// Tests that a buffer broadcast names a mesh that exists.
func.func @f(%a: memref<4xf32>) {
  // expected-error@+1 {{'dist.buffer.broadcast' op refers to an unknown mesh @nowhere}}
  dist.buffer.broadcast %a on @nowhere [mp] root = 0 : memref<4xf32>
  return
}

// -----

// Tests that dist.input_range is a pair lo < hi.
// expected-error@+1 {{'func.func' op argument 0: 'dist.input_range' must be array<i64: lo, hi> with lo < hi, got array<i64: 5, 5>}}
func.func private @f(tensor<8xi32> {dist.input_range = array<i64: 5, 5>})

// -----

// Tests that dist.input_range must fit its element type (hi is exclusive:
// [-128, 128) fits i8, [0, 2^32) does not fit i32).
func.func private @fits(tensor<8xi8> {dist.input_range = array<i64: -128, 128>})
// expected-error@+1 {{'func.func' op argument 0: 'dist.input_range' [0, 4294967296) does not fit 'i32' (-2147483648 .. 2147483647)}}
func.func private @too_wide(tensor<8xi32> {dist.input_range = array<i64: 0, 4294967296>})

// -----

// Tests that dist.input_range applies to integers only.
// expected-error@+1 {{'func.func' op argument 0: 'dist.input_range' applies to integer arguments, not 'tensor<8xf32>'}}
func.func private @f(tensor<8xf32> {dist.input_range = array<i64: 0, 5>})

// -----

// Tests that an all_gather whose result size overflows 64 bits is reported,
// not wrapped around.
dist.mesh @huge [a = 1073741824]
func.func @gather_overflow(%x: tensor<8589934592xf32>) -> tensor<0xf32> {
  // expected-error@+1 {{'dist.all_gather' op operand dim 0 of size 8589934592 times the group size 1073741824 of axes [a] on @huge overflows a 64-bit size}}
  %0 = dist.all_gather %x on @huge [a] dim = 0 : tensor<8589934592xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// Tests that an async collective must be waited for.
dist.mesh @mesh_4 [dp = 4]
func.func @f(%x: tensor<8xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op is async but its token is never waited for (add a dist.wait)}}
  %r, %t = dist.all_reduce async %x on @mesh_4 [dp] sum : tensor<8xf32>
  return
}

// -----

// Tests that an async collective is waited for once.
dist.mesh @mesh_4 [dp = 4]
func.func @f(%x: tensor<8xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op has its token waited for 2 times; an async collective is waited for exactly once}}
  %r, %t = dist.all_reduce async %x on @mesh_4 [dp] sum : tensor<8xf32>
  %a = dist.wait %t, %r : tensor<8xf32>
  %b = dist.wait %t, %r : tensor<8xf32>
  return
}

// -----

// Tests that a result in flight is read only through its wait.
dist.mesh @mesh_4 [dp = 4]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'dist.all_gather' op result 0 is used by 'arith.addf' before the collective's dist.wait; use the value the wait returns}}
  %r, %t = dist.all_gather async %x on @mesh_4 [dp] dim = 0 : tensor<8xf32> -> tensor<32xf32>
  // expected-note@+1 {{used here}}
  %early = arith.addf %r, %r : tensor<32xf32>
  %w = dist.wait %t, %r : tensor<32xf32>
  %s = tensor.extract_slice %early[0] [8] [1] : tensor<32xf32> to tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// Tests that the wait must be in the collective's block.
dist.mesh @mesh_4 [dp = 4]
func.func @f(%x: tensor<8xf32>, %c: i1) {
  // expected-error@+1 {{'dist.all_reduce' op is waited for in another block; the dist.wait must follow the collective in its block}}
  %r, %t = dist.all_reduce async %x on @mesh_4 [dp] sum : tensor<8xf32>
  scf.if %c {
    // expected-note@+1 {{waited for here}}
    %w = dist.wait %t, %r : tensor<8xf32>
  }
  return
}

// -----

// Tests that a wait names the collective's results, in order.
dist.mesh @mesh_4 [dp = 4]
func.func @f(%x: tensor<8xf32>, %y: tensor<4xf32>) {
  // expected-note@+1 {{the collective}}
  %r:2, %t = dist.all_reduce async %x, %y on @mesh_4 [dp] sum : tensor<8xf32>, tensor<4xf32>
  // expected-error@+1 {{'dist.wait' op must take the 2 tensor results of its collective, in order, after the token}}
  %w:2 = dist.wait %t, %r#1, %r#0 : tensor<4xf32>, tensor<8xf32>
  return
}

// -----

// Tests that a wait on buffers names every buffer of the collective.
dist.mesh @mesh_4 [dp = 4]
func.func @f(%a: memref<8xf32>, %b: memref<32xf32>) {
  // expected-note@+1 {{the collective}}
  %t = dist.buffer.all_gather async %a into %b on @mesh_4 [dp] dim = 0 : memref<8xf32>, memref<32xf32>
  // expected-error@+1 {{'dist.wait' op must take the 2 buffers of its collective, in order, after the token}}
  dist.wait %t, %b : memref<32xf32>
  return
}

// -----

// Tests that a token comes straight from a collective.
func.func @f(%t: !dist.token) {
  // expected-error@+1 {{'dist.wait' op takes a token that does not come straight from an async collective}}
  dist.wait %t
  return
}

// -----

// Tests that a bucket holds one element type.
dist.mesh @mesh_4 [dp = 4]
func.func @f(%x: tensor<8xf32>, %y: tensor<4xf16>) {
  // expected-error@+1 {{'dist.all_reduce' op input 1 has element type 'f16' but input 0 has 'f32'; a bucket holds one element type}}
  %r:2 = dist.all_reduce %x, %y on @mesh_4 [dp] sum : tensor<8xf32>, tensor<4xf16>
  return
}

// -----

// Tests that a communicator index is not negative.
dist.mesh @mesh_4 [dp = 4]
func.func @f(%x: tensor<8xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op attribute 'comm' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %r = dist.all_reduce %x on @mesh_4 [dp] comm = -1 sum : tensor<8xf32>
  return
}

// -----

// Tests that dist.updates names an argument by its index.
// expected-error@+1 {{'func.func' op result 0: 'dist.updates' must be the index of an argument (an integer such as 0 : i64), got "w"}}
func.func private @f(tensor<8xf32>) -> (tensor<8xf32> {dist.updates = "w"})

// -----

// Tests that the argument exists.
// expected-error@+1 {{'func.func' op result 1: 'dist.updates' names argument 2 but the function has 2 argument(s)}}
func.func private @f(tensor<8xf32>, f32) -> (tensor<8xf32>, f32 {dist.updates = 2 : i64})

// -----

// Tests that a negative index is refused.
// expected-error@+1 {{'func.func' op result 0: 'dist.updates' names argument -1 but the function has 1 argument(s)}}
func.func private @f(tensor<8xf32>) -> (tensor<8xf32> {dist.updates = -1 : i64})

// -----

// Tests that the new value has the argument's type.
// expected-error@+1 {{'func.func' op result 0 of type 'tensor<8xf64>' updates argument 0 of type 'tensor<8xf32>'; the new value must have the argument's type}}
func.func private @f(tensor<8xf32>) -> (tensor<8xf64> {dist.updates = 0 : i64})

// -----

// Tests that partitioned boundaries are compared by their global types.
dist.mesh @mesh_4 [mp = 4]
// expected-error@+1 {{'func.func' op result 0 of type 'tensor<8x4xf32>' updates argument 0 of type 'tensor<8x16xf32>'; the new value must have the argument's type}}
func.func private @f(tensor<2x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}, {}]>})
    -> (tensor<8x1xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {mp}]>, dist.updates = 0 : i64})

// -----

// Tests that two results cannot update one argument.
// expected-error@+1 {{'func.func' op result 1 updates argument 0, which result 0 already updates}}
func.func private @f(tensor<8xf32>)
    -> (tensor<8xf32> {dist.updates = 0 : i64}, tensor<8xf32> {dist.updates = 0 : i64})

// -----

// Tests that dist.updates is a result attribute, not an argument attribute.
// expected-error@+1 {{'func.func' op argument 0: unknown dist attribute 'dist.updates'}}
func.func private @f(tensor<8xf32> {dist.updates = 0 : i64}) -> tensor<8xf32>

// -----

// Tests that dist.name is a non-empty string.
// expected-error@+1 {{'func.func' op argument 0: 'dist.name' must be a non-empty string, got ""}}
func.func private @f(tensor<8xf32> {dist.name = ""}) -> tensor<8xf32>

// -----

// expected-error@+1 {{'func.func' op result 0: 'dist.name' must be a non-empty string, got 3 : i64}}
func.func private @f(tensor<8xf32>) -> (tensor<8xf32> {dist.name = 3 : i64})

// -----

// Tests that argument names are unique.
// expected-error@+1 {{'func.func' op argument 1 is named "w", as argument 0 is}}
func.func private @f(tensor<8xf32> {dist.name = "w"}, tensor<8xf32> {dist.name = "w"})

// -----

// Tests that a result named like an argument has the argument's type.
// expected-error@+1 {{'func.func' op result 0 of type 'tensor<4xf32>' updates argument 0 of type 'tensor<8xf32>'; the new value must have the argument's type}}
func.func private @f(tensor<8xf32> {dist.name = "w"}) -> (tensor<4xf32> {dist.name = "w"})

// -----

// Tests that dist.updates and dist.name agree.
// expected-error@+1 {{'func.func' op result 0 updates argument 0 ('dist.updates') but is named "m" like argument 1}}
func.func private @f(tensor<8xf32> {dist.name = "w"}, tensor<8xf32> {dist.name = "m"})
    -> (tensor<8xf32> {dist.updates = 0 : i64, dist.name = "m"})

// -----

// Tests that a name and an index cannot both update one argument.
// expected-error@+1 {{'func.func' op result 1 updates argument 0, which result 0 already updates}}
func.func private @f(tensor<8xf32> {dist.name = "w"})
    -> (tensor<8xf32> {dist.updates = 0 : i64}, tensor<8xf32> {dist.name = "w"})

// -----

// Tests that an owner must be an index of its group.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: owner 4 is not an index of its group: mesh axes [mp] of @mesh_2x4 make groups of 4}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], owner = 4 {mp}>})

// -----

// Tests that an owner axis may not also split a dim.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{mesh axis 'dp' is used twice: in dim 0 and in the owner axes}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}], owner = 1 {dp}>})

// -----

// Tests that an owner is not negative.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{owner -1 is negative}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], owner = -1 {dp}>})

// -----

// Tests that `owner` needs at least one axis.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'owner' needs at least one mesh axis}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], owner = 1 {}>})

// -----

// Tests that `owner` comes after `partial`.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{expected 'partial = <kind> {axes}' and then 'owner = <index> {axes}', each at most once}}
func.func private @f(tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {}], owner = 1 {dp}, partial = sum{mp}>})

// -----

// Tests that a local type holds its halo's rows besides a block at least as
// large as the halo.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 0: local dim 0 of 'tensor<3x16xf32>' is too small for its halo: a block needs at least 2 rows besides 4}}
func.func private @f(tensor<3x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_2x4, [{dp} halo [2, 2], {}]>})

// -----

// Tests that dist.input_from_param belongs on optimizer state.
// expected-error@+1 {{'func.func' op argument 1: 'dist.input_from_param' must be a unit attribute on a float argument that is optimizer state ('dist.state_of'), got unit on 'tensor<8xf32>'}}
func.func private @f(tensor<8xbf16> {dist.param}, tensor<8xf32> {dist.input_from_param})

// -----

// Tests that dist.round_partials is a unit attribute.
func.func @f(%x: tensor<8xf32>) -> tensor<8xbf16> {
  %e = tensor.empty() : tensor<8xbf16>
  // expected-error@+1 {{'linalg.generic' op 'dist.round_partials' must be a unit attribute, got true}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) attrs = {dist.round_partials = true} {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  return %r : tensor<8xbf16>
}
