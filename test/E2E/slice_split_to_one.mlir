// A rank-reducing slice whose kept dim is split down to one element per rank
// (8 rows on 8 ranks): the local slice `[1, 8, 1] -> 1x8` could be read as
// dropping dim 0 instead of dim 2, and in random_mesh_2x4_slice_unit_dim.mlir
// the memref lowering did read it so. The local ops say which dims go: a
// full-rank slice and a collapse_shape, or an expand_shape before the insert.

// RUN: dist-opt --dist-propagate --dist-partition %s | FileCheck %s --check-prefix=IR
// IR: %[[FULL:.+]] = tensor.extract_slice %{{.*}}[0, 0, 1] [1, 8, 1] [1, 1, 1] : tensor<1x8x2xf32> to tensor<1x8x1xf32>
// IR: tensor.collapse_shape %[[FULL]] {{\[}}[0], [1, 2]] : tensor<1x8x1xf32> into tensor<1x8xf32>
// IR: %[[EXP:.+]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [1, 8, 1] : tensor<1x8xf32> into tensor<1x8x1xf32>
// IR: tensor.insert_slice %[[EXP]] into %{{.*}}[0, 0, 0] [1, 8, 1] [1, 1, 1] : tensor<1x8x1xf32> into tensor<1x8x2xf32>

// RUN: dist-run %s | FileCheck %s
// CHECK: dist-run: @main on 8 rank(s)
// CHECK-NOT: FAIL
// CHECK: PASS: 2 of 2 result(s) match the serial run

dist.mesh @mesh [a = 8]

func.func @main(
    %x: tensor<8x8x2xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {}, {}]>},
    %d: tensor<8x8x2xf32> {dist.sharding = #dist.sharding<@mesh, [{a}, {}, {}]>},
    %c: f32)
    -> (tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {a}]>},
        tensor<8x8x2xf32> {dist.sharding = #dist.sharding<@mesh, [{a}, {}, {}]>}) {
  // Through a branch whose yields are sliced from the replicated %x at the
  // rank's offset, so that the slice's source is a view of unknown offset
  // after bufferization (with a plain buffer the lowering guessed right).
  %zero = arith.constant 0.0 : f32
  %cond = arith.cmpf ogt, %c, %zero : f32
  %y = scf.if %cond -> (tensor<8x8x2xf32>) {
    scf.yield %x : tensor<8x8x2xf32>
  } else {
    %n = arith.negf %x : tensor<8x8x2xf32>
    scf.yield %n : tensor<8x8x2xf32>
  }
  %ys = dist.annotate %y as <@mesh, [{a}, {}, {}]> : tensor<8x8x2xf32>
  %s = tensor.extract_slice %ys[0, 0, 1] [8, 8, 1] [1, 1, 1] : tensor<8x8x2xf32> to tensor<8x8xf32>
  %t = math.tanh %s : tensor<8x8xf32>
  %i = tensor.insert_slice %t into %d[0, 0, 0] [8, 8, 1] [1, 1, 1] : tensor<8x8xf32> into tensor<8x8x2xf32>
  return %s, %i : tensor<8x8xf32>, tensor<8x8x2xf32>
}
