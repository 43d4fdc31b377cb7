// End-to-end: stencils partitioned with halos. A "same" 3-point stencil
// (zero padding, then a window of 3) on rows split over x: each rank
// exchanges one row with each neighbour (two dist.permutes) and pads
// nothing; a valid convolution whose input argument is scattered in
// overlapping blocks; a value annotated with a halo (upstream's ghost rows
// of zeros at the ends) returned as it is and used by an elementwise op; and
// the same stencil written with upstream's `halo_sizes`. Each must match the
// serial run.

// RUN: dist-run %s --entry same_stencil --mesh m=4 | FileCheck %s --check-prefix=SAME
// RUN: dist-run %s --entry valid_conv --mesh m=4 | FileCheck %s --check-prefix=VALID
// RUN: dist-run %s --entry halo_boundary | FileCheck %s --check-prefix=BOUNDARY
// RUN: dist-run %s --entry upstream_halo | FileCheck %s --check-prefix=UPSTREAM
// RUN: dist-opt %s --dist-import-shard --dist-auto-partition | FileCheck %s --check-prefix=IR

// SAME: result #0 {{.*}}: PASS{{$}}
// SAME-NEXT: PASS: 1 of 1 result(s) match the serial run
// VALID: PASS: 1 of 1 result(s) match the serial run
// BOUNDARY: PASS: 2 of 2 result(s) match the serial run
// UPSTREAM: PASS: 1 of 1 result(s) match the serial run

// The same stencil on 4 ranks: blocks of 4 rows; the last row goes to the
// next rank and the first to the previous one; the pad is gone.
// IR-LABEL: func.func @same_stencil(
// IR-SAME: %[[U:.*]]: tensor<4x8xf32>
// IR: %[[LAST:.*]] = tensor.extract_slice %[[U]][3, 0] [1, 8] [1, 1]
// IR: %[[PREV:.*]] = dist.permute %[[LAST]] on @m [x] pairs = [0 -> 1, 1 -> 2, 2 -> 3]
// IR: %[[FIRST:.*]] = tensor.extract_slice %[[U]][0, 0] [1, 8] [1, 1]
// IR: %[[NEXT:.*]] = dist.permute %[[FIRST]] on @m [x] pairs = [1 -> 0, 2 -> 1, 3 -> 2]
// IR: %[[P:.*]] = tensor.concat dim(0) %[[PREV]], %[[U]], %[[NEXT]] : {{.*}} -> tensor<6x8xf32>
// IR-NOT: tensor.pad
// IR: linalg.generic {{.*}} ins(%[[P]], {{.*}} : tensor<6x8xf32>, tensor<3xf32>) outs({{.*}} : tensor<4x8xf32>)
// IR-NOT: dist.all_gather
// The valid convolution's input arrives in overlapping blocks of 8 + 2 (the
// process index offsets linalg.index).
// IR-LABEL: func.func @valid_conv(
// IR-SAME: tensor<2x10xf32> {dist.partitioned_as = #dist.sharding<@m, [{}, {x} overlap 2]>}
// IR-NOT: dist.permute
// IR-NOT: dist.all_gather
// IR: return
// IR-LABEL: func.func @halo_boundary(
// IR-SAME: -> (tensor<6x3xf32> {dist.partitioned_as = #dist.sharding<@m, [{x} halo [1, 1], {}]>}
// IR-COUNT-2: dist.permute
// IR: return
// The annotation's halo reaches the argument: its blocks arrive with their
// ghost rows, and nothing is exchanged.
// IR-LABEL: func.func @upstream_halo(
// IR-SAME: tensor<6x8xf32> {dist.partitioned_as = #dist.sharding<@grid, [{a0} halo [1, 1], {}]>}
// IR-NOT: dist.permute
// IR-NOT: dist.all_gather
// IR: return

dist.mesh @m [x = 4]

#in = affine_map<(i, j, k) -> (i + k, j)>
#w = affine_map<(i, j, k) -> (k)>
#out = affine_map<(i, j, k) -> (i, j)>

func.func @same_stencil(%u: tensor<16x8xf32> {dist.sharding = #dist.sharding<@m, [{x}, {}]>},
                        %w: tensor<3xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %u low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<16x8xf32> to tensor<18x8xf32>
  %init = tensor.empty() : tensor<16x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<16x8xf32>) -> tensor<16x8xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p, %w : tensor<18x8xf32>, tensor<3xf32>) outs(%fill : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// A valid convolution along the columns plus the output column's index:
// the input's columns arrive in overlapping blocks, and the index is global.
func.func @valid_conv(%x: tensor<2x34xf32>, %w: tensor<3xf32>) -> (tensor<2x32xf32> {dist.sharding = #dist.sharding<@m, [{}, {x}]>}) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<2x32xf32>) -> tensor<2x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n, c, k) -> (n, c + k)>, affine_map<(n, c, k) -> (k)>, affine_map<(n, c, k) -> (n, c)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x34xf32>, tensor<3xf32>) outs(%fill : tensor<2x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %c = linalg.index 1 : index
    %ci = arith.index_cast %c : index to i32
    %cf = arith.sitofp %ci : i32 to f32
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %p, %cf : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  } -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}

// A value laid out with ghost rows, returned as it is and used by an
// elementwise op (which drops the halo).
func.func @halo_boundary(%x: tensor<16x3xf32> {dist.sharding = #dist.sharding<@m, [{x}, {}]>})
    -> (tensor<16x3xf32>, tensor<16x3xf32> {dist.sharding = #dist.sharding<@m, [{x}, {}]>}) {
  %h = dist.annotate %x as <@m, [{x} halo [1, 1], {}]> : tensor<16x3xf32>
  %e = math.exp %h : tensor<16x3xf32>
  return %h, %e : tensor<16x3xf32>, tensor<16x3xf32>
}

// The same stencil with upstream's annotation: rows split over the grid's
// axis with one halo row on each side.
shard.grid @grid(shape = 4)
func.func @upstream_halo(%u: tensor<16x8xf32>, %w: tensor<3xf32>) -> tensor<16x8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  %uh = shard.shard %u to %s : tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %uh low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<16x8xf32> to tensor<18x8xf32>
  %init = tensor.empty() : tensor<16x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<16x8xf32>) -> tensor<16x8xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p, %w : tensor<18x8xf32>, tensor<3xf32>) outs(%fill : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s2 = arith.addf %c, %m : f32
    linalg.yield %s2 : f32
  } -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}
