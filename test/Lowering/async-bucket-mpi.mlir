// Async collectives, a bucket on a second communicator, blocks along an inner
// dim, and 8-, 16- and 1-bit integers, compiled with dist-lower-to-llvm and
// run on 4 MPI ranks of a 2x2 mesh. Each rank prints its world rank and an
// element of each result.

// REQUIRES: mpi
// RUN: dist-opt %s --dist-lower-to-llvm=blas=false | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: %clang -O1 -Wno-override-module %t.ll -o %t.exe -L%dist_lib_dir -ldist_runtime -Wl,-rpath,%dist_lib_dir -L%mlir_lib_dir -lmlir_c_runner_utils -Wl,-rpath,%mlir_lib_dir
// RUN: rm -rf %t.tmp && mkdir -p %t.tmp
// RUN: env TMPDIR=%t.tmp DIST_TIMEOUT_SECONDS=60 %mpirun -np 4 %t.exe | sort | FileCheck %s

// Rank w = (d, m) holds x[i][j] = 100 (w + 1) + 10 i + j. The all_gather
// along dim 1 over [mp] gives row i = [x_(d,0)[i] x_(d,1)[i]]: element (0, 0)
// is 100 (2d + 1), (1, 3) is 100 (2d + 2) + 11. The bucket sums w + 1 and
// 2 (w + 1) over all 4 ranks: 10 and 20. The reduce_scatter along dim 1
// leaves rank m column m of the sum over [mp]: row 1 is 100 (4d + 3) + 20 +
// 2m. i8 max over [dp] of w + 1 is 3 + m; the i1 broadcast from mp index 1
// is true; the i16 sum of w + 1 is 10.
// CHECK:      0, 100, 211, 10, 20, 320, 3, 1, 10
// CHECK-NEXT: 1, 100, 211, 10, 20, 322, 4, 1, 10
// CHECK-NEXT: 2, 300, 411, 10, 20, 720, 3, 1, 10
// CHECK-NEXT: 3, 300, 411, 10, 20, 722, 4, 1, 10

dist.mesh @mesh_2x2 [dp = 2, mp = 2]

func.func @step(%w: i64) -> (f32, f32, f32, f32, f32, i8, i1, i16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1 : i64
  %hundred = arith.constant 100.0 : f32
  %ten = arith.constant 10.0 : f32
  %w1 = arith.addi %w, %one : i64
  %v = arith.sitofp %w1 : i64 to f32
  %base = arith.mulf %v, %hundred : f32
  %x = tensor.generate {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %fj = arith.sitofp %jj : i64 to f32
    %ti = arith.mulf %fi, %ten : f32
    %s = arith.addf %base, %ti : f32
    %e = arith.addf %s, %fj : f32
    tensor.yield %e : f32
  } : tensor<2x2xf32>
  %g, %tg = dist.all_gather async %x on @mesh_2x2 [mp] dim = 1 : tensor<2x2xf32> -> tensor<2x4xf32>
  // A bucket of two f32 tensors on communicator 1, started while the gather
  // is in flight.
  %a = tensor.splat %v : tensor<2x3xf32>
  %v2 = arith.addf %v, %v : f32
  %b = tensor.splat %v2 : tensor<5xf32>
  %ra, %rb, %tb = dist.all_reduce async %a, %b on @mesh_2x2 [dp, mp] comm = 1 sum : tensor<2x3xf32>, tensor<5xf32>
  %gw = dist.wait %tg, %g : tensor<2x4xf32>
  %aw, %bw = dist.wait %tb, %ra, %rb : tensor<2x3xf32>, tensor<5xf32>
  %g00 = tensor.extract %gw[%c0, %c0] : tensor<2x4xf32>
  %g13 = tensor.extract %gw[%c1, %c3] : tensor<2x4xf32>
  %a0 = tensor.extract %aw[%c1, %c1] : tensor<2x3xf32>
  %b0 = tensor.extract %bw[%c3] : tensor<5xf32>
  %rs = dist.reduce_scatter %x on @mesh_2x2 [mp] sum dim = 1 : tensor<2x2xf32> -> tensor<2x1xf32>
  %rs10 = tensor.extract %rs[%c1, %c0] : tensor<2x1xf32>
  %w8 = arith.trunci %w1 : i64 to i8
  %i8s = tensor.splat %w8 : tensor<3xi8>
  %max = dist.all_reduce %i8s on @mesh_2x2 [dp] max : tensor<3xi8>
  %max0 = tensor.extract %max[%c1] : tensor<3xi8>
  %m = dist.process_index on @mesh_2x2 [mp] : index
  %isOne = arith.cmpi eq, %m, %c1 : index
  %bits = tensor.splat %isOne : tensor<4xi1>
  %bcast = dist.broadcast %bits on @mesh_2x2 [mp] root = 1 : tensor<4xi1>
  %bit = tensor.extract %bcast[%c3] : tensor<4xi1>
  %w16 = arith.trunci %w1 : i64 to i16
  %i16s = tensor.splat %w16 : tensor<2xi16>
  %sum16 = dist.all_reduce %i16s on @mesh_2x2 [dp, mp] sum : tensor<2xi16>
  %s16 = tensor.extract %sum16[%c0] : tensor<2xi16>
  return %g00, %g13, %a0, %b0, %rs10, %max0, %bit, %s16 : f32, f32, f32, f32, f32, i8, i1, i16
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
  %g00, %g13, %a, %b, %rs, %max, %bit, %s16 = func.call @step(%w) : (i64) -> (f32, f32, f32, f32, f32, i8, i1, i16)
  %max64 = arith.extsi %max : i8 to i64
  %bit64 = arith.extui %bit : i1 to i64
  %s64 = arith.extsi %s16 : i16 to i64
  call @printI64(%w) : (i64) -> ()
  call @printComma() : () -> ()
  call @printF32(%g00) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%g13) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%a) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%b) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%rs) : (f32) -> ()
  call @printComma() : () -> ()
  call @printI64(%max64) : (i64) -> ()
  call @printComma() : () -> ()
  call @printI64(%bit64) : (i64) -> ()
  call @printComma() : () -> ()
  call @printI64(%s64) : (i64) -> ()
  call @printNewline() : () -> ()
  call @dist_finalize() : () -> ()
  %ret = arith.constant 0 : i32
  return %ret : i32
}
