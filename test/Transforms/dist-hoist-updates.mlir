// RUN: dist-opt %s --split-input-file --dist-hoist-updates | FileCheck %s

// Tests that w's update moves up to just after its gradient's all_reduce,
// before unrelated backward ops; v's update stays after the last read of v
// (through its transpose, which the lowering may fold into the reader), so
// that it can still be made in v's buffer. The unmarked tensor.empty moves to
// the top; backward ops keep their order.
// CHECK-LABEL: func.func @step
// CHECK: tensor.empty
// CHECK-NEXT: %[[G:.*]] = dist.all_reduce %arg2
// CHECK-NEXT: arith.subf %arg0, %[[G]] {dist.role = #dist.role<optimizer>}
// CHECK-NEXT: linalg.transpose ins(%arg3
// CHECK-NEXT: arith.mulf %arg1, %arg1
// CHECK-NEXT: %[[GV:.*]] = dist.all_reduce %arg4
// CHECK-NEXT: arith.mulf %transposed, %transposed
// CHECK-NEXT: arith.subf %arg3, %[[GV]] {dist.role = #dist.role<optimizer>}
// CHECK-NEXT: return
dist.mesh @mesh [dp = 2]
func.func @step(%w: tensor<8xf32> {dist.param}, %x: tensor<8xf32>, %gw: tensor<8xf32>, %v: tensor<4x8xf32> {dist.param}, %gv: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>, tensor<8x4xf32>) {
  %g = dist.all_reduce %gw on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<8xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %vt = linalg.transpose ins(%v : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0] {dist.role = #dist.role<backward>}
  %dx = arith.mulf %x, %x {dist.role = #dist.role<backward>} : tensor<8xf32>
  %gvr = dist.all_reduce %gv on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<4x8xf32>
  %dvt = arith.mulf %vt, %vt {dist.role = #dist.role<backward>} : tensor<8x4xf32>
  %w2 = arith.subf %w, %g {dist.role = #dist.role<optimizer>} : tensor<8xf32>
  %v2 = arith.subf %v, %gvr {dist.role = #dist.role<optimizer>} : tensor<4x8xf32>
  return %w2, %v2, %dvt : tensor<8xf32>, tensor<4x8xf32>, tensor<8x4xf32>
}

// -----

// Tests an owner's guarded update (whole ownership): the rank test moves to
// the top, the scf.if (with the values it uses inside) and the broadcast of
// the update right after the reduce to the owner, before backward goes on.
// CHECK-LABEL: func.func @owner
// CHECK: dist.process_index
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: %[[R:.*]] = dist.reduce %arg1
// CHECK-NEXT: scf.if
// CHECK-NEXT: arith.subf %arg0, %[[R]]
// CHECK: dist.broadcast
// CHECK: arith.mulf %arg2, %arg2
dist.mesh @mesh [dp = 2]
func.func @owner(%w: tensor<8xf32> {dist.param}, %gw: tensor<8xf32>, %x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %r = dist.reduce %gw on @mesh [dp] sum root = 1 {dist.role = #dist.role<backward>} : tensor<8xf32>
  %dx = arith.mulf %x, %x {dist.role = #dist.role<backward>} : tensor<8xf32>
  %i = dist.process_index on @mesh [dp] : index
  %c1 = arith.constant 1 : index
  %owner = arith.cmpi eq, %i, %c1 : index
  %u = scf.if %owner -> (tensor<8xf32>) {
    %n = arith.subf %w, %r {dist.role = #dist.role<optimizer>} : tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  } else {
    scf.yield %w : tensor<8xf32>
  } {dist.role = #dist.role<optimizer>}
  %b = dist.broadcast %u on @mesh [dp] root = 1 {dist.role = #dist.role<optimizer>} : tensor<8xf32>
  return %b, %dx : tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests what stays: an update that needs every gradient (a global norm) comes
// after the last one; a forward op and an unmarked collective (a stage 3
// fetch) do not move; an unmarked op reading what carries w (its square)
// stays after w's update, which came before it.
// CHECK-LABEL: func.func @needs_all
// CHECK: dist.all_gather
// CHECK: %[[GA:.*]] = dist.all_reduce %arg1
// CHECK: %[[GB:.*]] = dist.all_reduce %arg2
// CHECK-NEXT: arith.addf %[[GA]], %[[GB]] {dist.role = #dist.role<optimizer>}
// CHECK-NEXT: arith.subf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: return
dist.mesh @mesh [dp = 2]
func.func @needs_all(%w: tensor<8xf32> {dist.param}, %ga: tensor<8xf32>, %gb: tensor<8xf32>, %s: tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %f = arith.mulf %w, %w {dist.role = #dist.role<forward>} : tensor<8xf32>
  %full = dist.all_gather %s on @mesh [dp] dim = 0 : tensor<4xf32> -> tensor<8xf32>
  %a = dist.all_reduce %ga on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<8xf32>
  %b = dist.all_reduce %gb on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<8xf32>
  %sum = arith.addf %a, %b {dist.role = #dist.role<optimizer>} : tensor<8xf32>
  %n = arith.subf %w, %sum {dist.role = #dist.role<optimizer>} : tensor<8xf32>
  %o = arith.addf %f, %full : tensor<8xf32>
  return %n, %o : tensor<8xf32>, tensor<8xf32>
}
