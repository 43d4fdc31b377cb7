// RUN: dist-opt %s --dist-comm-report -o /dev/null 2>&1 | FileCheck %s
// RUN: dist-opt %s --dist-comm-report=json=%t.json -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json

// Tests the bytes of every kind of collective on a 2x4 mesh, the totals per
// group of axes, and the JSON form.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @all_kinds(%x: tensor<8x16xf32>, %h: tensor<4xf16>, %i: tensor<2x?xi32>) {
  // 512 B over 4 ranks: 2 * 3/4 * 512 = 768.
  // CHECK: remark: dist.all_reduce over [mp] (4 ranks): 128 x f32 = 512 B; each rank sends 768 B
  %0 = dist.all_reduce %x on @mesh_2x4 [mp] sum : tensor<8x16xf32>
  // all_gather counts the result: 2048 B, 3/4 of it.
  // CHECK: remark: dist.all_gather over [mp] (4 ranks): 512 x f32 = 2048 B; each rank sends 1536 B
  %1 = dist.all_gather %x on @mesh_2x4 [mp] dim = 0 : tensor<8x16xf32> -> tensor<32x16xf32>
  // CHECK: remark: dist.reduce_scatter over [dp, mp] (8 ranks): 128 x f32 = 512 B; each rank sends 448 B
  %2 = dist.reduce_scatter %x on @mesh_2x4 [dp, mp] sum dim = 0 : tensor<8x16xf32> -> tensor<1x16xf32>
  // CHECK: remark: dist.all_to_all over [mp] (4 ranks): 128 x f32 = 512 B; each rank sends 384 B
  %3 = dist.all_to_all %x on @mesh_2x4 [mp] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  // A reduce moves half the bytes of an all_reduce.
  // CHECK: remark: dist.reduce over [dp] (2 ranks): 4 x f16 = 8 B; each rank sends 4 B
  %4 = dist.reduce %h on @mesh_2x4 [dp] sum root = 0 : tensor<4xf16>
  // CHECK: remark: dist.broadcast over [dp] (2 ranks): 4 x f16 = 8 B; each rank sends 4 B
  %5 = dist.broadcast %h on @mesh_2x4 [dp] root = 1 : tensor<4xf16>
  // CHECK: remark: dist.permute over [mp] (4 ranks): 4 x f16 = 8 B; each rank sends 8 B
  %6 = dist.permute %h on @mesh_2x4 [mp] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<4xf16>
  // CHECK: remark: dist.all_reduce over [dp] (2 ranks): dynamic shape, bytes unknown
  %7 = dist.all_reduce %i on @mesh_2x4 [dp] max : tensor<2x?xi32>
  // Not a collective: not reported.
  // CHECK-NOT: process_index
  %8 = dist.process_index on @mesh_2x4 [dp] : index
  return
}

// JSON: "collectives": [
// JSON: "bytes": 512,
// JSON: "group": "[mp]",
// JSON: "op": "dist.all_reduce",
// JSON: "ranks": 4,
// JSON: "sent_per_rank": 768
// JSON: "complete": false,
// JSON: "groups": {
// JSON: "[dp, mp]": {
// JSON-NEXT: "collectives": 1,
// JSON-NEXT: "sent_per_rank": 448
// JSON: "sent_per_rank": 12368

// Tests that a collective in a loop counts once per iteration, and that a
// loop without a constant trip count makes the bytes unknown.
func.func @in_loops(%x: tensor<8x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      // CHECK: remark: dist.all_reduce over [mp] (4 ranks): 128 x f32 = 512 B; each rank sends 9216 B (12 executions)
      %r = dist.all_reduce %x on @mesh_2x4 [mp] sum : tensor<8x16xf32>
    }
  }
  scf.for %i = %c0 to %n step %c1 {
    // CHECK: remark: dist.all_reduce over [dp] (2 ranks): 128 x f32 = 512 B, in a loop without a constant trip count: bytes unknown
    %r = dist.all_reduce %x on @mesh_2x4 [dp] sum : tensor<8x16xf32>
  }
  // Any loop (LoopLikeOpInterface) counts: a while loop has no static trip
  // count.
  %last = scf.while (%i = %c0) : (index) -> index {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%i: index):
    // CHECK: remark: dist.all_reduce over [dp] (2 ranks): 128 x f32 = 512 B, in a loop without a constant trip count: bytes unknown
    %r = dist.all_reduce %x on @mesh_2x4 [dp] sum : tensor<8x16xf32>
    %next = arith.addi %i, %c1 : index
    scf.yield %next : index
  }
  return
}

// The totals: the loop's 12 executions count, the unknown ones are flagged.
// CHECK: remark: dist-comm-report: 11 collectives; each rank sends 12368 B plus unknown (dynamic shapes or trip counts, or counts over 2^63); [mp]: 5 collectives, 11912 B; [dp, mp]: 1 collective, 448 B; [dp]: 5 collectives, 8 B
