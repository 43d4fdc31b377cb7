// RUN: dist-opt %s --split-input-file --dist-lower-to-runtime | FileCheck %s

// Tests that an all_reduce becomes a group lookup (mesh shape and axis
// positions as constant globals, communicator 0) and an in-place call on the
// buffer's data: 32 f32 elements (dtype 0), sum (0), a null stream. The mesh
// is gone afterwards.
// CHECK-NOT: dist.mesh
// CHECK-DAG: memref.global "private" constant @__dist_i64_2_4 : memref<2xi64> = dense<[2, 4]>
// CHECK-DAG: memref.global "private" constant @__dist_i64_1 : memref<1xi64> = dense<1>
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>)
// CHECK: %[[SHAPE:.*]] = memref.get_global @__dist_i64_2_4
// CHECK: %[[AXES:.*]] = memref.get_global @__dist_i64_1
// CHECK: %[[GROUP:.*]] = call @dist_get_group(%{{.*}}, %c2_i32, %{{.*}}, %c1_i32, %c0_i32) : (!llvm.ptr, i32, !llvm.ptr, i32, i32) -> !llvm.ptr
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[PTR:.*]] = llvm.inttoptr
// CHECK: %[[STREAM:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @dist_all_reduce(%[[GROUP]], %[[PTR]], %c32_i64, %c0_i32{{.*}}, %c0_i32{{.*}}, %[[STREAM]]) : (!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr) -> ()
// CHECK-NOT: memref.alloc
// CHECK: return
// The declarations say how a GPU step orders the calls (dist-gpu-streams):
// a lookup needs no wait for the device, a collective takes the stream.
// CHECK-DAG: func.func private @dist_get_group(!llvm.ptr, i32, !llvm.ptr, i32, i32) -> !llvm.ptr attributes {dist.no_stream_sync}
// CHECK-DAG: func.func private @dist_all_reduce(!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr) attributes {dist.stream_argument = 5 : i64}
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
// CHECK: call @dist_reduce(%{{.*}}, %{{.*}}, %c8_i64, %c0_i32{{.*}}, %c1_i32{{.*}}, %c1_i64, %{{.*}})
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
// CHECK: call @dist_broadcast(%{{.*}}, %{{.*}}, %c4_i64, %c1_i32{{.*}}, %c3_i64, %{{.*}})
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @offset_broadcast(%v: memref<4xf64, strided<[1], offset: 8>>) {
  dist.buffer.broadcast %v on @mesh_2x4 [mp] root = 3 : memref<4xf64, strided<[1], offset: 8>>
  return
}

// -----

// Tests the collectives with an input and an output: contiguous blocks of
// `count` elements per rank, dtypes (bf16 = 3, i32 = 4, i64/index = 5,
// f64 = 1) and reductions (avg = 4). Blocks along an inner dim are
// transposed by the compiler: an all_gather along dim 1 receives [4 ranks][4
// rows][8] and moves each rank's block into its columns after the call; a
// reduce_scatter along dim 0 needs no transpose (its blocks are rows); an
// all_to_all from dim 1 to dim 0 packs the column blocks first.
// CHECK-LABEL: func.func @out_of_place
// CHECK-SAME: (%[[A:[^:]*]]: memref<4x8xbf16>, %[[G:[^:]*]]: memref<4x32xbf16>
// CHECK: %[[GVIEW:.*]] = memref.expand_shape %[[G]] {{\[}}[0], [1, 2]] output_shape [4, 4, 8] : memref<4x32xbf16> into memref<4x4x8xbf16>
// CHECK: %[[GBLOCKS:.*]] = memref.alloc() : memref<4x4x8xbf16>
// CHECK: call @dist_all_gather(%{{.*}}, %{{.*}}, %{{.*}}, %c32_i64{{.*}}, %c3_i32{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr) -> ()
// CHECK: linalg.transpose ins(%[[GBLOCKS]] : memref<4x4x8xbf16>) outs(%[[GVIEW]] : memref<4x4x8xbf16>) permutation = [1, 0, 2]
// CHECK: memref.dealloc %[[GBLOCKS]]
// CHECK-NOT: linalg.transpose
// CHECK: call @dist_reduce_scatter(%{{.*}}, %{{.*}}, %{{.*}}, %c8_i64{{.*}}, %c4_i32{{.*}}, %c4_i32{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr) -> ()
// CHECK: %[[CVIEW:.*]] = memref.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [4, 4, 2] : memref<4x8xindex> into memref<4x4x2xindex>
// CHECK: %[[CBLOCKS:.*]] = memref.alloc() : memref<4x4x2xindex>
// CHECK: linalg.transpose ins(%[[CVIEW]] : memref<4x4x2xindex>) outs(%[[CBLOCKS]] : memref<4x4x2xindex>) permutation = [1, 0, 2]
// CHECK: call @dist_all_to_all(%{{.*}}, %{{.*}}, %{{.*}}, %c8_i64{{.*}}, %c5_i32{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr) -> ()
// CHECK: memref.dealloc %[[CBLOCKS]]
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
// CHECK: call @dist_send_recv(%[[PGROUP]], %{{.*}}, %[[TARGET]], %{{.*}}, %[[SOURCE]], %c32_i64{{.*}}, %c1_i32{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, i64, i32, !llvm.ptr) -> ()
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

// Tests a bucket: the buffers are packed into one contiguous buffer (each
// copied into its place), reduced by one call over all 40 elements on
// communicator 2, and copied back. i8 is dtype 6, i1 is 8.
// CHECK-LABEL: func.func @bucket
// CHECK-SAME: (%[[X:[^:]*]]: memref<4x8xi8>, %[[Y:[^:]*]]: memref<8xi8>, %[[Z:[^:]*]]: memref<4xi1>)
// CHECK: call @dist_get_group(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c2_i32{{.*}})
// CHECK: %[[PACKED:.*]] = memref.alloc() : memref<40xi8>
// CHECK: %[[XV:.*]] = memref.reinterpret_cast %[[PACKED]] to offset: [0], sizes: [4, 8], strides: [8, 1]
// CHECK: memref.copy %[[X]], %[[XV]]
// CHECK: %[[YV:.*]] = memref.reinterpret_cast %[[PACKED]] to offset: [32], sizes: [8], strides: [1]
// CHECK: memref.copy %[[Y]], %[[YV]]
// CHECK: call @dist_all_reduce(%{{.*}}, %{{.*}}, %c40_i64{{.*}}, %c6_i32{{.*}}, %c1_i32{{.*}}, %{{.*}})
// CHECK-DAG: memref.copy %[[XV]], %[[X]]
// CHECK-DAG: memref.copy %[[YV]], %[[Y]]
// CHECK: memref.dealloc %[[PACKED]]
// CHECK: call @dist_broadcast(%{{.*}}, %{{.*}}, %c4_i64{{.*}}, %c8_i32{{.*}}, %c0_i64{{.*}}, %{{.*}})
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @bucket(%x: memref<4x8xi8>, %y: memref<8xi8>, %z: memref<4xi1>) {
  dist.buffer.all_reduce %x, %y on @mesh_2x4 [dp] comm = 2 max : memref<4x8xi8>, memref<8xi8>
  dist.buffer.broadcast %z on @mesh_2x4 [mp] root = 0 : memref<4xi1>
  return
}

// -----

// Tests an async collective: the _start call returns a request at the
// collective, dist_wait takes it at the dist.wait, and a temporary (here the
// transposed blocks of an all_gather along dim 1) is used and freed only
// after the wait. The compute in between stays in between.
// CHECK-LABEL: func.func @async
// CHECK: %[[BLOCKS:.*]] = memref.alloc() : memref<2x4x2xf32>
// CHECK: %[[REQ:.*]] = call @dist_all_gather_start(%{{.*}}, %{{.*}}, %{{.*}}, %c8_i64{{.*}}, %c0_i32{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr) -> !llvm.ptr
// CHECK: linalg.fill
// CHECK: call @dist_wait(%[[REQ]]) : (!llvm.ptr) -> ()
// CHECK: linalg.transpose ins(%[[BLOCKS]]
// CHECK: memref.dealloc %[[BLOCKS]]
// CHECK: %[[R2:.*]] = call @dist_all_reduce_start
// CHECK: call @dist_wait(%[[R2]])
// CHECK-NOT: dist.wait
// CHECK: func.func private @dist_wait(!llvm.ptr)
dist.mesh @mesh_2 [dp = 2]
func.func @async(%in: memref<4x2xf32>, %out: memref<4x4xf32>, %other: memref<8xf32>) {
  %t = dist.buffer.all_gather async %in into %out on @mesh_2 [dp] dim = 1 : memref<4x2xf32>, memref<4x4xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%other : memref<8xf32>)
  dist.wait %t, %in, %out : memref<4x2xf32>, memref<4x4xf32>
  %t2 = dist.buffer.all_reduce async %other on @mesh_2 [dp] sum : memref<8xf32>
  dist.wait %t2, %other : memref<8xf32>
  return
}

// -----

// Tests collectives over a group of one device (an axis of size 1): no
// runtime call. In place (all_reduce, started or not) they are nothing;
// otherwise (all_gather, a permute 0 -> 0) a copy of the input to the
// output, and a permute without pairs zeros its output; the wait goes with
// its collective.
// CHECK-LABEL: func.func @group_of_one
// CHECK-SAME: (%[[IN:.*]]: memref<4x2xf32>, %[[OUT:.*]]: memref<4x2xf32>, %[[BUF:.*]]: memref<8xf32>)
// CHECK-NEXT: memref.copy %[[IN]], %[[OUT]]
// CHECK-NEXT: memref.copy %[[IN]], %[[OUT]]
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.fill ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<4x2xf32>)
// CHECK-NEXT: return
// CHECK-NOT: call @dist_
dist.mesh @mesh_1x2 [a = 1, b = 2]
func.func @group_of_one(%in: memref<4x2xf32>, %out: memref<4x2xf32>, %buf: memref<8xf32>) {
  dist.buffer.all_reduce %buf on @mesh_1x2 [a] sum : memref<8xf32>
  dist.buffer.all_gather %in into %out on @mesh_1x2 [a] dim = 1 : memref<4x2xf32>, memref<4x2xf32>
  %t = dist.buffer.all_reduce async %buf on @mesh_1x2 [a] max : memref<8xf32>
  dist.wait %t, %buf : memref<8xf32>
  dist.buffer.permute %in into %out on @mesh_1x2 [a] pairs = [0 -> 0] : memref<4x2xf32>, memref<4x2xf32>
  dist.buffer.permute %in into %out on @mesh_1x2 [a] pairs = [] : memref<4x2xf32>, memref<4x2xf32>
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
// CHECK: call @dist_send_recv(%{{.*}}, %{{.*}}, %[[TARGET]], %{{.*}}, %[[SOURCE]], %c6_i64{{.*}}, %c4_i32{{.*}}, %{{.*}})
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
// CHECK: %[[GROUP:.*]] = call @dist_get_group(%{{.*}}, %c2_i32, %{{.*}}, %c2_i32{{.*}}, %c0_i32{{.*}})
// CHECK: %[[I:.*]] = call @dist_group_index(%[[GROUP]]) : (!llvm.ptr) -> i64
// CHECK: %[[R:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK: return %[[R]]
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @index() -> index {
  %i = dist.process_index on @mesh_2x4 [mp, dp] : index
  return %i : index
}

// -----

// Tests that dist.progress calls the runtime's dist_progress.
// CHECK-LABEL: func.func @progress
// CHECK-NEXT: call @dist_progress() : () -> ()
// CHECK-NEXT: return
func.func @progress() {
  dist.progress
  return
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
