// RUN: split-file %s %t
//
// A global program passes phase=global (the default) and is left unchanged.
// RUN: dist-opt %t/global.mlir --dist-verify | FileCheck %s --check-prefix=GLOBAL
// RUN: dist-opt %t/global.mlir --dist-verify=phase=global | FileCheck %s --check-prefix=GLOBAL
// RUN: dist-opt %t/global.mlir --dist-verify="summary=true" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GLOBAL-SUMMARY
//
// A partitioned program passes phase=partitioned and is left unchanged.
// RUN: dist-opt %t/partitioned.mlir --dist-verify=phase=partitioned \
// RUN:   | FileCheck %s --check-prefix=PART
// RUN: dist-opt %t/partitioned.mlir \
// RUN:   --pass-pipeline='builtin.module(dist-verify{phase=partitioned summary=true})' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=PART-SUMMARY
//
// A module with no dist content passes both phases and counts nothing.
// RUN: dist-opt %t/empty.mlir --dist-verify="phase=global summary=true" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EMPTY-GLOBAL
// RUN: dist-opt %t/empty.mlir --dist-verify="phase=partitioned summary=true" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EMPTY-PART
//
// Without summary=true the pass says nothing.
// RUN: dist-opt %t/global.mlir --dist-verify -o /dev/null 2>&1 | count 0
// RUN: dist-opt %t/partitioned.mlir --dist-verify=phase=partitioned -o /dev/null 2>&1 | count 0
//
// Pass statistics are compiled out of release builds of LLVM, so the counts
// are checked through the summary remark (see Passes.td).

//--- global.mlir
// Tests that a global program (meshes, sharded function boundaries,
// annotations, no collectives) passes phase=global untouched.

// GLOBAL: dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// GLOBAL: dist.mesh @mesh_4 [mp = 4]
// GLOBAL-LABEL: func.func @mlp
// GLOBAL-SAME: (%[[X:.+]]: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>},
// GLOBAL-SAME: %[[W:.+]]: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp}]>})
// GLOBAL-SAME: -> (tensor<8x32xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {mp}]>})
// GLOBAL: %[[XA:.+]] = dist.annotate %[[X]] as <@mesh_2x4, [{dp}, {}]> : tensor<8x16xf32>
// GLOBAL: %[[Y:.+]] = linalg.matmul ins(%[[XA]], %[[W]] : tensor<8x16xf32>, tensor<16x32xf32>)
// GLOBAL: %[[YA:.+]] = dist.annotate %[[Y]] as <@mesh_2x4, [{dp}, {mp}]> : tensor<8x32xf32>
// GLOBAL: return %[[YA]] : tensor<8x32xf32>
// GLOBAL-LABEL: func.func private @ext
// GLOBAL-SAME: (tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}], partial = sum{mp}>})

// The remark is on the module, which the parser creates implicitly here.
// GLOBAL-SUMMARY: remark: dist-verify: global program: 2 meshes, 2 annotations, 4 sharded function boundary values, 0 collectives
// GLOBAL-SUMMARY-NOT: remark

dist.mesh @mesh_2x4 [dp = 2, mp = 4]
dist.mesh @mesh_4 [mp = 4]

func.func @mlp(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>},
               %w: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{}, {mp}]>})
    -> (tensor<8x32xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {mp}]>}) {
  %xa = dist.annotate %x as <@mesh_2x4, [{dp}, {}]> : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.matmul ins(%xa, %w : tensor<8x16xf32>, tensor<16x32xf32>)
                     outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  %ya = dist.annotate %y as <@mesh_2x4, [{dp}, {mp}]> : tensor<8x32xf32>
  return %ya : tensor<8x32xf32>
}

func.func private @ext(tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}], partial = sum{mp}>})

//--- partitioned.mlir
// Tests that a partitioned (per-rank) program, with collectives and
// dist.process_index but no dist.annotate, passes phase=partitioned untouched.

// PART: dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// PART-LABEL: func.func @mlp_rank
// PART-SAME: (%[[X:.+]]: tensor<4x16xf32>, %[[W:.+]]: tensor<16x8xf32>) -> tensor<4x32xf32>
// PART: %[[Y:.+]] = linalg.matmul
// PART: %[[G:.+]] = dist.all_gather %[[Y]] on @mesh_2x4 [mp] dim = 1 : tensor<4x8xf32> -> tensor<4x32xf32>
// PART: %[[S:.+]] = dist.all_reduce %[[G]] on @mesh_2x4 [dp] sum : tensor<4x32xf32>
// PART: dist.process_index on @mesh_2x4 [dp, mp] : index
// PART: return %[[S]] : tensor<4x32xf32>

// dist.process_index is not a collective and is not counted.
// PART-SUMMARY: remark: dist-verify: partitioned program: 1 mesh, 0 annotations, 0 sharded function boundary values, 2 collectives
// PART-SUMMARY-NOT: remark

dist.mesh @mesh_2x4 [dp = 2, mp = 4]

func.func @mlp_rank(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>)
                     outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = dist.all_gather %y on @mesh_2x4 [mp] dim = 1 : tensor<4x8xf32> -> tensor<4x32xf32>
  %s = dist.all_reduce %g on @mesh_2x4 [dp] sum : tensor<4x32xf32>
  %r = dist.process_index on @mesh_2x4 [dp, mp] : index
  return %s : tensor<4x32xf32>
}

//--- empty.mlir
// Tests that a module without dist ops passes either phase and counts zero.

// EMPTY-GLOBAL: remark: dist-verify: global program: 0 meshes, 0 annotations, 0 sharded function boundary values, 0 collectives
// EMPTY-PART: remark: dist-verify: partitioned program: 0 meshes, 0 annotations, 0 sharded function boundary values, 0 collectives

func.func @id(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
