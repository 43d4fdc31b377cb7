// RUN: dist-opt %s --split-input-file --dist-lower-to-runtime | FileCheck %s

// Tests that an all_reduce becomes a group lookup (mesh shape and axis
// positions as constant globals) and an in-place call on the buffer's data:
// 32 f32 elements (dtype 0), sum (0). The mesh is gone afterwards.
// CHECK-NOT: dist.mesh
// CHECK-DAG: memref.global "private" constant @__dist_i64_2_4 : memref<2xi64> = dense<[2, 4]>
// CHECK-DAG: memref.global "private" constant @__dist_i64_1 : memref<1xi64> = dense<1>
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>)
// CHECK: %[[SHAPE:.*]] = memref.get_global @__dist_i64_2_4
// CHECK: %[[AXES:.*]] = memref.get_global @__dist_i64_1
// CHECK: %[[GROUP:.*]] = call @dist_get_group(%{{.*}}, %c2_i32, %{{.*}}, %c1_i32) : (!llvm.ptr, i32, !llvm.ptr, i32) -> !llvm.ptr
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[PTR:.*]] = llvm.inttoptr
// CHECK: call @dist_all_reduce(%[[GROUP]], %[[PTR]], %c32_i64, %c0_i32, %c0_i32{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i32, i32) -> ()
// CHECK-NOT: memref.alloc
// CHECK: return
// CHECK-DAG: func.func private @dist_get_group(!llvm.ptr, i32, !llvm.ptr, i32) -> !llvm.ptr
// CHECK-DAG: func.func private @dist_all_reduce(!llvm.ptr, !llvm.ptr, i64, i32, i32)
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @all_reduce(%a: memref<4x8xf32>) {
  dist.buffer.all_reduce %a on @mesh_2x4 [mp] sum : memref<4x8xf32>
  return
}

// -----

// Tests that a strided view goes through a contiguous temporary: copied in,
// reduced (max = 1, root 1), copied back, freed.
// CHECK-LABEL: func.func @strided_reduce
// CHECK-SAME: (%[[V:.*]]: memref<2x4xf32, strided<[8, 1], offset: 16>>)
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK: memref.copy %[[V]], %[[TMP]]
// CHECK: memref.extract_aligned_pointer_as_index %[[TMP]]
// CHECK: call @dist_reduce(%{{.*}}, %{{.*}}, %c8_i64, %c0_i32, %c1_i32{{.*}}, %c1_i64)
// CHECK: memref.copy %[[TMP]], %[[V]]
// CHECK: memref.dealloc %[[TMP]]
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @strided_reduce(%v: memref<2x4xf32, strided<[8, 1], offset: 16>>) {
  dist.buffer.reduce %v on @mesh_2x4 [dp] max root = 1 : memref<2x4xf32, strided<[8, 1], offset: 16>>
  return
}

// -----

// Tests that a contiguous view with an offset is passed without a copy: the
// offset is added to the aligned pointer (in bytes: 8 elements of 8 bytes).
// CHECK-LABEL: func.func @offset_broadcast
// CHECK-NOT: memref.alloc
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %arg0 : memref<4xf64, strided<[1], offset: 8>>
// CHECK: %[[META:.*]], %[[OFF:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %arg0
// CHECK: %[[BYTES:.*]] = arith.muli %[[OFF]], %c8
// CHECK: arith.addi %[[BASE]], %[[BYTES]]
// CHECK: call @dist_broadcast(%{{.*}}, %{{.*}}, %c4_i64, %c1_i32{{.*}}, %c3_i64)
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @offset_broadcast(%v: memref<4xf64, strided<[1], offset: 8>>) {
  dist.buffer.broadcast %v on @mesh_2x4 [mp] root = 3 : memref<4xf64, strided<[1], offset: 8>>
  return
}

// -----

// Tests the collectives with an input and an output: shapes as constant
// arrays, dims, dtypes (bf16 = 3, i32 = 4, i64/index = 5) and reductions
// (avg = 4).
// CHECK-DAG: memref.global "private" constant @__dist_i64_4_8 : memref<2xi64> = dense<[4, 8]>
// CHECK-DAG: memref.global "private" constant @__dist_i64_1_0 : memref<2xi64> = dense<[1, 0]>
// CHECK-LABEL: func.func @out_of_place
// CHECK: call @dist_all_gather(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c2_i32{{.*}}, %c1_i32{{.*}}, %c3_i32) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32) -> ()
// CHECK: call @dist_reduce_scatter(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c2_i32{{.*}}, %c0_i32{{.*}}, %c4_i32{{.*}}, %c4_i32{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32) -> ()
// CHECK: call @dist_all_to_all(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c2_i32{{.*}}, %c1_i32{{.*}}, %c0_i32{{.*}}, %c5_i32) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32) -> ()
// A permute is a send_recv whose partners the group index picks out of
// constant tables (here both [1, 0]); every rank receives, so nothing is
// zero-filled.
// CHECK: %[[PGROUP:.*]] = call @dist_get_group
// CHECK: %[[ME:.*]] = call @dist_group_index(%[[PGROUP]]) : (!llvm.ptr) -> i64
// CHECK: %[[TARGETS:.*]] = memref.get_global @__dist_i64_1_0
// CHECK: %[[TI:.*]] = arith.index_cast %[[ME]] : i64 to index
// CHECK: %[[TARGET:.*]] = memref.load %[[TARGETS]][%[[TI]]]
// CHECK: %[[SOURCES:.*]] = memref.get_global @__dist_i64_1_0
// CHECK: %[[SI:.*]] = arith.index_cast %[[ME]] : i64 to index
// CHECK: %[[SOURCE:.*]] = memref.load %[[SOURCES]][%[[SI]]]
// CHECK-NOT: scf.if
// CHECK: call @dist_send_recv(%[[PGROUP]], %{{.*}}, %[[TARGET]], %{{.*}}, %[[SOURCE]], %c32_i64, %c1_i32{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, i64, i32) -> ()
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @out_of_place(%a: memref<4x8xbf16>, %g: memref<4x32xbf16>,
                        %b: memref<4x8xi32>, %r: memref<1x8xi32>,
                        %c: memref<4x8xindex>, %t: memref<16x2xindex>,
                        %d: memref<4x8xf64>, %p: memref<4x8xf64>) {
  dist.buffer.all_gather %a into %g on @mesh_2x4 [mp] dim = 1 : memref<4x8xbf16>, memref<4x32xbf16>
  dist.buffer.reduce_scatter %b into %r on @mesh_2x4 [mp] avg dim = 0 : memref<4x8xi32>, memref<1x8xi32>
  dist.buffer.all_to_all %c into %t on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : memref<4x8xindex>, memref<16x2xindex>
  dist.buffer.permute %d into %p on @mesh_2x4 [dp] pairs = [0 -> 1, 1 -> 0] : memref<4x8xf64>, memref<4x8xf64>
  return
}

// -----

// Tests a permute that leaves ranks without a source: index i sends to
// targets[i] and receives from sources[i] (-1: none), and a rank with no
// source zero-fills its output before the call.
// CHECK-DAG: memref.global "private" constant @[[TARGETS:__dist_i64_2_m1_m1_3]] : memref<4xi64> = dense<[2, -1, -1, 3]>
// CHECK-DAG: memref.global "private" constant @[[SOURCES:__dist_i64_m1_m1_0_3]] : memref<4xi64> = dense<[-1, -1, 0, 3]>
// CHECK-LABEL: func.func @partial_permute
// CHECK-SAME: (%[[IN:.*]]: memref<2x3xi32>, %[[OUT:.*]]: memref<2x3xi32>)
// CHECK: %[[ME:.*]] = call @dist_group_index
// CHECK: memref.get_global @[[TARGETS]]
// CHECK: %[[TARGET:.*]] = memref.load
// CHECK: memref.get_global @[[SOURCES]]
// CHECK: %[[SOURCE:.*]] = memref.load
// CHECK: %[[NONE:.*]] = arith.cmpi slt, %[[SOURCE]], %c0_i64
// CHECK: scf.if %[[NONE]] {
// CHECK:   linalg.fill ins(%c0_i32{{.*}} : i32) outs(%[[OUT]] : memref<2x3xi32>)
// CHECK: }
// CHECK: call @dist_send_recv(%{{.*}}, %{{.*}}, %[[TARGET]], %{{.*}}, %[[SOURCE]], %c6_i64, %c4_i32{{.*}})
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @partial_permute(%in: memref<2x3xi32>, %out: memref<2x3xi32>) {
  dist.buffer.permute %in into %out on @mesh_2x4 [mp] pairs = [0 -> 2, 3 -> 3] : memref<2x3xi32>, memref<2x3xi32>
  return
}

// -----

// Tests the names of the constant arrays: a module symbol that already has a
// generated name keeps it (the new array is renamed), and an array of more
// than 8 values (the partner tables of a 16-rank rotation) is called a table.
// CHECK-DAG: memref.global "private" constant @__dist_i64_16 : memref<1xi64> = dense<7>
// CHECK-DAG: memref.global "private" constant @[[SHAPE:__dist_i64_16_[0-9]+]] : memref<1xi64> = dense<16>
// CHECK-DAG: memref.global "private" constant @[[TARGETS:__dist_i64_table[_0-9]*]] : memref<16xi64> = dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0]>
// CHECK-DAG: memref.global "private" constant @[[SOURCES:__dist_i64_table[_0-9]*]] : memref<16xi64> = dense<[15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]>
// CHECK-LABEL: func.func @rotate16
// CHECK: memref.get_global @[[SHAPE]]
// CHECK: memref.get_global @[[TARGETS]]
// CHECK: memref.get_global @[[SOURCES]]
// CHECK: call @dist_send_recv
dist.mesh @ring [x = 16]
memref.global "private" constant @__dist_i64_16 : memref<1xi64> = dense<7>
func.func @rotate16(%in: memref<8xf32>, %out: memref<8xf32>) {
  dist.buffer.permute %in into %out on @ring [x] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 4, 4 -> 5, 5 -> 6, 6 -> 7, 7 -> 8, 8 -> 9, 9 -> 10, 10 -> 11, 11 -> 12, 12 -> 13, 13 -> 14, 14 -> 15, 15 -> 0] : memref<8xf32>, memref<8xf32>
  return
}

// -----

// Tests that process_index asks the runtime for the caller's index in the
// group of its axes (here [mp, dp]: positions 1, 0).
// CHECK-LABEL: func.func @index
// CHECK: %[[AXES:.*]] = memref.get_global @__dist_i64_1_0
// CHECK: %[[GROUP:.*]] = call @dist_get_group(%{{.*}}, %c2_i32, %{{.*}}, %c2_i32{{.*}})
// CHECK: %[[I:.*]] = call @dist_group_index(%[[GROUP]]) : (!llvm.ptr) -> i64
// CHECK: %[[R:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK: return %[[R]]
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @index() -> index {
  %i = dist.process_index on @mesh_2x4 [mp, dp] : index
  return %i : index
}

// -----

// Tests that dist attributes are dropped with the meshes: LLVM has no use
// for them.
// CHECK-LABEL: func.func @attrs
// CHECK-SAME: (%{{.*}}: memref<2x8xf32>) -> memref<2x8xf32>
// CHECK-NOT: dist.
dist.mesh @mesh_4 [mp = 4]
func.func @attrs(%a: memref<2x8xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}, {}]>})
    -> (memref<2x8xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}, {}]>}) {
  return %a : memref<2x8xf32>
}
