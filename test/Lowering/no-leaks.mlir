// Every collective lowered, compiled ahead of time, linked with the runtime
// and run three times under valgrind: no buffer may leak (definite or
// indirect), no invalid access, and the checksum must be right. The mesh has
// one device, so the run needs no MPI (DIST_BACKEND=self) and each
// collective is an identity on its group of one.

// REQUIRES: valgrind
// RUN: dist-opt %s --dist-lower-to-llvm=blas=false | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: %clang -O1 -Wno-override-module %t.ll -o %t.exe -L%dist_lib_dir -ldist_runtime -Wl,-rpath,%dist_lib_dir -L%mlir_lib_dir -lmlir_c_runner_utils -Wl,-rpath,%mlir_lib_dir
// RUN: env DIST_BACKEND=self valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 %t.exe | FileCheck %s

// Every element of the matmul of ones is 16. Per run: sum(s + t - p) over
// 8x16 = 2048, plus sum(g) over 8x4 = 512, plus the process index 0, plus
// r[0, 0] = 16.
// CHECK-COUNT-3: 2576
// CHECK-NEXT: 0

dist.mesh @one [x = 1]

func.func @step(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> (tensor<8x16xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  // In place, and in place on a copy (%y is read again below).
  %r = dist.all_reduce %y on @one [x] sum : tensor<8x16xf32>
  %b = dist.broadcast %y on @one [x] root = 0 : tensor<8x16xf32>
  %m = dist.reduce %y on @one [x] max root = 0 : tensor<8x16xf32>
  // Out of place, one of them on a strided slice.
  %slice = tensor.extract_slice %y[0, 4] [8, 4] [1, 1] : tensor<8x16xf32> to tensor<8x4xf32>
  %g = dist.all_gather %slice on @one [x] dim = 1 : tensor<8x4xf32> -> tensor<8x4xf32>
  %s = dist.reduce_scatter %r on @one [x] sum dim = 0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %t = dist.all_to_all %b on @one [x] split_dim = 0 concat_dim = 1 : tensor<8x16xf32> -> tensor<8x16xf32>
  %p = dist.permute %m on @one [x] pairs = [0 -> 0] : tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %st = linalg.add ins(%s, %t : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %stp = linalg.sub ins(%st, %p : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %acc0 = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%stp : tensor<8x16xf32>) outs(%acc : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %init: f32) {
      %a = arith.addf %in, %init : f32
      linalg.yield %a : f32
    }
  %acc2 = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<f32>) -> tensor<f32>
  %gsum = linalg.reduce ins(%g : tensor<8x4xf32>) outs(%acc2 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %init: f32) {
      %a = arith.addf %in, %init : f32
      linalg.yield %a : f32
    }
  %i = dist.process_index on @one [x] : index
  %i64 = arith.index_cast %i : index to i64
  %if = arith.sitofp %i64 : i64 to f32
  %s0 = tensor.extract %sum[] : tensor<f32>
  %g0 = tensor.extract %gsum[] : tensor<f32>
  %total0 = arith.addf %s0, %g0 : f32
  %total = arith.addf %total0, %if : f32
  return %r, %total : tensor<8x16xf32>, f32
}

func.func private @dist_init(!llvm.ptr, !llvm.ptr)
func.func private @dist_finalize()
func.func private @printF32(f32)
func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() -> i32 {
  %null = llvm.mlir.zero : !llvm.ptr
  call @dist_init(%null, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = tensor.splat %one : tensor<8x16xf32>
  %w = tensor.splat %one : tensor<16x16xf32>
  scf.for %iv = %c0 to %c3 step %c1 {
    %r, %total = func.call @step(%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> (tensor<8x16xf32>, f32)
    %r0 = tensor.extract %r[%c0, %c0] : tensor<8x16xf32>
    %both = arith.addf %total, %r0 : f32
    func.call @printF32(%both) : (f32) -> ()
    func.call @printNewline() : () -> ()
  }
  call @dist_finalize() : () -> ()
  %status = arith.constant 0 : i64
  call @printI64(%status) : (i64) -> ()
  call @printNewline() : () -> ()
  %ret = arith.constant 0 : i32
  return %ret : i32
}
