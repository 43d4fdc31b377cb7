// A program that upstream's shard-partition has already partitioned (shard
// collectives and process queries on a 2x2 grid), imported by
// dist-import-shard, lowered by dist-lower-to-llvm and run on 4 MPI ranks.
// Rank w = 2 * a0 + a1 holds x = w + 1 everywhere and y[i, j] = i + 10 w.

// REQUIRES: mpi
// RUN: dist-opt %s --dist-import-shard --dist-lower-to-llvm=blas=false | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: %clang -O1 -Wno-override-module %t.ll -o %t.exe -L%dist_lib_dir -ldist_runtime -Wl,-rpath,%dist_lib_dir -L%mlir_lib_dir -lmlir_c_runner_utils -Wl,-rpath,%mlir_lib_dir
// RUN: rm -rf %t.tmp && mkdir -p %t.tmp
// RUN: env TMPDIR=%t.tmp DIST_TIMEOUT_SECONDS=60 %mpirun -np 4 %t.exe | sort | FileCheck %s

// Columns: w; all_reduce max over a1 (2 a0 + 2); all_gather over a0 of rows
// 0 and 4 (a1 + 1, a1 + 3); reduce_scatter sum over a1 (4 a0 + 3);
// all_to_all over a0 (split dim 1, concat dim 0) rows 0 and 4 (as the
// gather); broadcast from root [1, 0] over both axes (rank 2: 3); reduce sum
// over a1 to root [1] (4 a0 + 3 on a1 = 1; dist keeps the input elsewhere);
// all_slice of y's rows over a1 (row 2 a1 + 10 w); process_multi_index (a0,
// a1) and process_linear_index (w).
// CHECK:      0, 2, 1, 3, 3, 1, 3, 3, 1, 0, 0, 0, 0
// CHECK-NEXT: 1, 2, 2, 4, 3, 2, 4, 3, 3, 12, 0, 1, 1
// CHECK-NEXT: 2, 4, 1, 3, 7, 1, 3, 3, 3, 20, 1, 0, 2
// CHECK-NEXT: 3, 4, 2, 4, 7, 2, 4, 3, 7, 32, 1, 1, 3

shard.grid @grid_2x2(shape = 2x2)

func.func @partitioned(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>)
    -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, index, index, index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %max = shard.all_reduce %x on @grid_2x2 grid_axes = [1] reduction = max : tensor<4x8xf32> -> tensor<4x8xf32>
  %gathered = shard.all_gather %x on @grid_2x2 grid_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %scattered = shard.reduce_scatter %x on @grid_2x2 grid_axes = [1] scatter_axis = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
  %exchanged = shard.all_to_all %x on @grid_2x2 grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  %bcast = shard.broadcast %x on @grid_2x2 grid_axes = [0, 1] root = [1, 0] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %reduced = shard.reduce %x on @grid_2x2 grid_axes = [1] root = [1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %slice = shard.all_slice %y on @grid_2x2 grid_axes = [1] slice_axis = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
  %i:2 = shard.process_multi_index on @grid_2x2 : index, index
  %l = shard.process_linear_index on @grid_2x2 : index
  %v0 = tensor.extract %max[%c0, %c0] : tensor<4x8xf32>
  %v1 = tensor.extract %gathered[%c0, %c0] : tensor<8x8xf32>
  %v2 = tensor.extract %gathered[%c4, %c0] : tensor<8x8xf32>
  %v3 = tensor.extract %scattered[%c0, %c0] : tensor<2x8xf32>
  %v4 = tensor.extract %exchanged[%c0, %c0] : tensor<8x4xf32>
  %v5 = tensor.extract %exchanged[%c4, %c0] : tensor<8x4xf32>
  %v6 = tensor.extract %bcast[%c0, %c0] : tensor<4x8xf32>
  %v7 = tensor.extract %reduced[%c0, %c0] : tensor<4x8xf32>
  %v8 = tensor.extract %slice[%c0, %c0] : tensor<2x8xf32>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %i#0, %i#1, %l
      : f32, f32, f32, f32, f32, f32, f32, f32, f32, index, index, index
}

func.func private @dist_init(!llvm.ptr, !llvm.ptr)
func.func private @dist_finalize()
func.func private @dist_world_rank() -> i64
func.func private @printF32(f32)
func.func private @printI64(i64)
func.func private @printComma()
func.func private @printNewline()

func.func @main() -> i32 {
  %null = llvm.mlir.zero : !llvm.ptr
  call @dist_init(%null, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  %w = call @dist_world_rank() : () -> i64
  %one = arith.constant 1 : i64
  %w1 = arith.addi %w, %one : i64
  %v = arith.sitofp %w1 : i64 to f32
  %x = tensor.splat %v : tensor<4x8xf32>
  %ten = arith.constant 10 : i64
  %w10 = arith.muli %w, %ten : i64
  %y = tensor.generate {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i64
    %s = arith.addi %ii, %w10 : i64
    %f = arith.sitofp %s : i64 to f32
    tensor.yield %f : f32
  } : tensor<4x8xf32>
  %r:12 = func.call @partitioned(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>)
      -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, index, index, index)
  call @printI64(%w) : (i64) -> ()
  call @printComma() : () -> ()
  call @printF32(%r#0) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%r#1) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%r#2) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%r#3) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%r#4) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%r#5) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%r#6) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%r#7) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%r#8) : (f32) -> ()
  %a0 = arith.index_cast %r#9 : index to i64
  %a1 = arith.index_cast %r#10 : index to i64
  %lin = arith.index_cast %r#11 : index to i64
  call @printComma() : () -> ()
  call @printI64(%a0) : (i64) -> ()
  call @printComma() : () -> ()
  call @printI64(%a1) : (i64) -> ()
  call @printComma() : () -> ()
  call @printI64(%lin) : (i64) -> ()
  call @printNewline() : () -> ()
  call @dist_finalize() : () -> ()
  %ret = arith.constant 0 : i32
  return %ret : i32
}
