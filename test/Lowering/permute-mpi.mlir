// dist.permute compiled to send_recv with partner tables and run on 4 MPI
// ranks of a 2x2 mesh: a rotation over the whole mesh, a pair inside each
// mp group (whose ranks without a source get zeros, in a new buffer, a
// strided view or a buffer holding other values), and self pairs. Each rank
// prints its world rank and an element of each result.

// REQUIRES: mpi
// RUN: dist-opt %s --dist-lower-to-llvm=blas=false | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: %clang -O1 -Wno-override-module %t.ll -o %t.exe -L%dist_lib_dir -ldist_runtime -Wl,-rpath,%dist_lib_dir -L%mlir_lib_dir -lmlir_c_runner_utils -Wl,-rpath,%mlir_lib_dir
// RUN: rm -rf %t.tmp && mkdir -p %t.tmp
// RUN: env TMPDIR=%t.tmp DIST_TIMEOUT_SECONDS=60 %mpirun -np 4 %t.exe | sort | FileCheck %s

// Rank w holds w + 1 everywhere. Rotation: w gets from (w + 3) % 4. The mp
// pair 0 -> 1: ranks 1 and 3 get from 0 and 2, ranks 0 and 2 get zeros.
// Self: its own. Then the same pair into 7s: column 2 (column 1 keeps its 7)
// and a contiguous buffer.
// CHECK:      0, 4, 0, 1, 0, 7, 0
// CHECK-NEXT: 1, 1, 1, 2, 1, 7, 1
// CHECK-NEXT: 2, 2, 0, 3, 0, 7, 0
// CHECK-NEXT: 3, 3, 3, 4, 3, 7, 3

dist.mesh @mesh_2x2 [dp = 2, mp = 2]

func.func @step(%x: tensor<4x4xf32>) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rotated = dist.permute %x on @mesh_2x2 [dp, mp] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<4x4xf32>
  %paired = dist.permute %x on @mesh_2x2 [mp] pairs = [0 -> 1] : tensor<4x4xf32>
  %own = dist.permute %x on @mesh_2x2 [dp] pairs = [0 -> 0, 1 -> 1] : tensor<4x4xf32>
  %r = tensor.extract %rotated[%c1, %c1] : tensor<4x4xf32>
  %p = tensor.extract %paired[%c1, %c0] : tensor<4x4xf32>
  %o = tensor.extract %own[%c0, %c1] : tensor<4x4xf32>
  return %r, %p, %o : f32, f32, f32
}

// Outputs that hold 7s: column 2 of a 4x4 buffer (a strided view, which the
// call reaches through a contiguous temporary copied back into the column)
// and a contiguous buffer. Ranks without a source must zero both.
func.func @into_sevens(%in: memref<4x1xf32>, %sevens: memref<4x4xf32>, %contiguous: memref<4x1xf32>) {
  %column = memref.subview %sevens[0, 2] [4, 1] [1, 1] : memref<4x4xf32> to memref<4x1xf32, strided<[4, 1], offset: 2>>
  dist.buffer.permute %in into %column on @mesh_2x2 [mp] pairs = [0 -> 1] : memref<4x1xf32>, memref<4x1xf32, strided<[4, 1], offset: 2>>
  dist.buffer.permute %in into %contiguous on @mesh_2x2 [mp] pairs = [0 -> 1] : memref<4x1xf32>, memref<4x1xf32>
  return
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
  %x = tensor.splat %v : tensor<4x4xf32>
  %r, %p, %o = func.call @step(%x) : (tensor<4x4xf32>) -> (f32, f32, f32)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %seven = arith.constant 7.0 : f32
  %in = memref.alloc() : memref<4x1xf32>
  linalg.fill ins(%v : f32) outs(%in : memref<4x1xf32>)
  %sevens = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%seven : f32) outs(%sevens : memref<4x4xf32>)
  %contiguous = memref.alloc() : memref<4x1xf32>
  linalg.fill ins(%seven : f32) outs(%contiguous : memref<4x1xf32>)
  func.call @into_sevens(%in, %sevens, %contiguous) : (memref<4x1xf32>, memref<4x4xf32>, memref<4x1xf32>) -> ()
  %s = memref.load %sevens[%c1, %c2] : memref<4x4xf32>
  %kept = memref.load %sevens[%c1, %c1] : memref<4x4xf32>
  %c = memref.load %contiguous[%c1, %c0] : memref<4x1xf32>
  call @printI64(%w) : (i64) -> ()
  call @printComma() : () -> ()
  call @printF32(%r) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%p) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%o) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%s) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%kept) : (f32) -> ()
  call @printComma() : () -> ()
  call @printF32(%c) : (f32) -> ()
  call @printNewline() : () -> ()
  call @dist_finalize() : () -> ()
  %ret = arith.constant 0 : i32
  return %ret : i32
}
