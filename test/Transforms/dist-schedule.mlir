// RUN: dist-opt %s --split-input-file --dist-schedule | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-schedule="max-in-flight=1" | FileCheck %s --check-prefix=ONE
// RUN: dist-opt %s --split-input-file --dist-schedule="max-mb-in-flight=0.0003" | FileCheck %s --check-prefix=MB
// RUN: dist-opt %s --split-input-file --dist-schedule="progress=true" | FileCheck %s --check-prefix=PROGRESS

dist.mesh @mesh_4 [dp = 4]

// Tests that a start moves above compute it does not need (a gather of a
// parameter starts at the top) and its wait stays at the first use.
// CHECK-LABEL: func.func @prefetch
// CHECK-NEXT: %[[G:.*]], %[[T:.*]] = dist.all_gather async %arg1
// CHECK-NEXT: %[[A:.*]] = arith.mulf %arg0, %arg0
// CHECK-NEXT: %[[W:.*]] = dist.wait %[[T]], %[[G]]
// CHECK-NEXT: arith.addf %[[A]], %[[W]]
func.func @prefetch(%x: tensor<64xf32>, %w: tensor<16xf32>) -> tensor<64xf32> {
  %a = arith.mulf %x, %x : tensor<64xf32>
  %g, %t = dist.all_gather async %w on @mesh_4 [dp] dim = 0 : tensor<16xf32> -> tensor<64xf32>
  %gw = dist.wait %t, %g : tensor<64xf32>
  %b = arith.addf %a, %gw : tensor<64xf32>
  return %b : tensor<64xf32>
}

// -----

dist.mesh @mesh_4 [dp = 4]

// Tests that starts keep their order (the second needs nothing computed
// but stays after the first), that a start waits for what defines its
// operand, and that a wait placed early moves down to its first use.
// CHECK-LABEL: func.func @order
// CHECK-NEXT: %[[A:.*]] = arith.mulf %arg0, %arg0
// CHECK-NEXT: %[[G1:.*]], %[[T1:.*]] = dist.all_reduce async %[[A]]
// CHECK-NEXT: %[[G2:.*]], %[[T2:.*]] = dist.all_reduce async %arg1
// CHECK-NEXT: %[[B:.*]] = arith.mulf %arg1, %arg1
// CHECK-NEXT: %[[C:.*]] = arith.addf %[[B]], %[[B]]
// CHECK-NEXT: %[[W1:.*]] = dist.wait %[[T1]], %[[G1]]
// CHECK-NEXT: %[[W2:.*]] = dist.wait %[[T2]], %[[G2]]
// CHECK-NEXT: arith.addf %[[W1]], %[[W2]]
// With at most one collective in flight, the first is waited for before
// the second starts.
// ONE-LABEL: func.func @order
// ONE: %[[G1:.*]], %[[T1:.*]] = dist.all_reduce async
// ONE-NEXT: dist.wait %[[T1]], %[[G1]]
// ONE-NEXT: dist.all_reduce async %arg1
// 2 x 256 B do not fit in 0.0003 MB (314 B): the same.
// MB-LABEL: func.func @order
// MB: %[[G1:.*]], %[[T1:.*]] = dist.all_reduce async
// MB-NEXT: dist.wait %[[T1]], %[[G1]]
// MB-NEXT: dist.all_reduce async %arg1
func.func @order(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %a = arith.mulf %x, %x : tensor<64xf32>
  %b = arith.mulf %y, %y : tensor<64xf32>
  %g1, %t1 = dist.all_reduce async %a on @mesh_4 [dp] sum : tensor<64xf32>
  %w1 = dist.wait %t1, %g1 : tensor<64xf32>
  %c = arith.addf %b, %b : tensor<64xf32>
  %g2, %t2 = dist.all_reduce async %y on @mesh_4 [dp] sum : tensor<64xf32>
  %w2 = dist.wait %t2, %g2 : tensor<64xf32>
  %d = arith.addf %w1, %w2 : tensor<64xf32>
  %e = arith.addf %d, %c : tensor<64xf32>
  return %e : tensor<64xf32>
}

// -----

dist.mesh @mesh_4 [dp = 4]

// Tests that a start does not move above a blocking collective or above the
// wait whose result it reduces, and that a start in a loop body moves
// within the body.
// CHECK-LABEL: func.func @barriers
// CHECK: %[[B:.*]] = dist.all_reduce %arg0
// CHECK-NEXT: %[[G:.*]], %[[T:.*]] = dist.all_reduce async %arg1
// CHECK-NEXT: arith.mulf %[[B]], %[[B]]
// CHECK-NEXT: %[[W:.*]] = dist.wait %[[T]], %[[G]]
// CHECK-NEXT: %[[G2:.*]], %[[T2:.*]] = dist.all_reduce async %[[W]]
// CHECK: scf.for
// CHECK-NEXT: %[[GL:.*]], %[[TL:.*]] = dist.all_reduce async %arg1
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: dist.wait %[[TL]], %[[GL]]
func.func @barriers(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %b = dist.all_reduce %x on @mesh_4 [dp] sum : tensor<64xf32>
  %m = arith.mulf %b, %b : tensor<64xf32>
  %g, %t = dist.all_reduce async %y on @mesh_4 [dp] sum : tensor<64xf32>
  %w = dist.wait %t, %g : tensor<64xf32>
  %n = arith.mulf %m, %m : tensor<64xf32>
  %g2, %t2 = dist.all_reduce async %w on @mesh_4 [dp] sum : tensor<64xf32>
  %w2 = dist.wait %t2, %g2 : tensor<64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %w2) -> tensor<64xf32> {
    %s = arith.mulf %acc, %acc : tensor<64xf32>
    %gl, %tl = dist.all_reduce async %y on @mesh_4 [dp] sum : tensor<64xf32>
    %wl = dist.wait %tl, %gl : tensor<64xf32>
    %next = arith.addf %s, %wl : tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  %z = arith.addf %r, %n : tensor<64xf32>
  return %z : tensor<64xf32>
}

// -----

dist.mesh @mesh_4 [dp = 4]

// Tests that one collective larger than the byte bound still starts early
// (it is alone in flight).
// MB-LABEL: func.func @alone
// MB-NEXT: dist.all_reduce async %arg1
// MB-NEXT: arith.mulf
func.func @alone(%x: tensor<64xf32>, %y: tensor<128xf32>) -> (tensor<64xf32>, tensor<128xf32>) {
  %a = arith.mulf %x, %x : tensor<64xf32>
  %g, %t = dist.all_reduce async %y on @mesh_4 [dp] sum : tensor<128xf32>
  %w = dist.wait %t, %g : tensor<128xf32>
  return %a, %w : tensor<64xf32>, tensor<128xf32>
}

// -----

dist.mesh @mesh_4 [dp = 4]

// Tests that progress=true puts a dist.progress before each linalg op run
// while a collective is in flight, and none before or after.
// PROGRESS-LABEL: func.func @progress
// PROGRESS-NEXT: linalg.matmul
// PROGRESS-NEXT: %[[R:.*]], %[[T:.*]] = dist.all_reduce async
// PROGRESS-NEXT: dist.progress
// PROGRESS-NEXT: linalg.matmul
// PROGRESS-NEXT: arith.addf
// PROGRESS-NEXT: dist.progress
// PROGRESS-NEXT: linalg.matmul
// PROGRESS-NEXT: dist.wait %[[T]], %[[R]]
// PROGRESS-NEXT: linalg.matmul
// PROGRESS-NOT: dist.progress
// PROGRESS: return
// CHECK-LABEL: func.func @progress
// CHECK-NOT: dist.progress
func.func @progress(%a: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %g = linalg.matmul ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %x = linalg.matmul ins(%a, %c : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %x2 = arith.addf %x, %x : tensor<8x8xf32>
  %y = linalg.matmul ins(%x2, %c : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r, %t = dist.all_reduce async %g on @mesh_4 [dp] sum : tensor<8x8xf32>
  %s = dist.wait %t, %r : tensor<8x8xf32>
  %z = linalg.matmul ins(%s, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %z : tensor<8x8xf32>
}
