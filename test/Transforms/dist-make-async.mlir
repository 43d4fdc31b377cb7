// RUN: dist-opt %s --split-input-file --dist-make-async | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-make-async=wait=immediate | FileCheck %s --check-prefix=NOW

// Tests that a collective is started async and waited for just before the
// first op that needs its result: the compute that does not need it runs in
// between. With wait=immediate the wait follows the collective.
// CHECK-LABEL: func.func @overlap
// CHECK: %[[G:.*]], %[[T:.*]] = dist.all_reduce async %arg0 on @mesh_4 [dp] sum : tensor<64xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %arg1, %arg1
// CHECK-NEXT: %[[W:.*]] = dist.wait %[[T]], %[[G]] : tensor<64xf32>
// CHECK-NEXT: arith.addf %[[W]], %[[Y]]
// NOW-LABEL: func.func @overlap
// NOW: %[[G:.*]], %[[T:.*]] = dist.all_reduce async
// NOW-NEXT: dist.wait %[[T]], %[[G]]
// NOW-NEXT: arith.mulf
dist.mesh @mesh_4 [dp = 4]
func.func @overlap(%x: tensor<64xf32>, %a: tensor<64xf32>) -> tensor<64xf32> {
  %g = dist.all_reduce %x on @mesh_4 [dp] sum : tensor<64xf32>
  %y = arith.mulf %a, %a : tensor<64xf32>
  %z = arith.addf %g, %y : tensor<64xf32>
  return %z : tensor<64xf32>
}

// -----

// Tests a bucket, communicator and origin kept, and a first use inside a
// loop: the wait goes before the loop.
// CHECK-LABEL: func.func @bucket_in_loop
// CHECK: %[[R:.*]]:2, %[[T:.*]] = dist.all_reduce async %arg0, %arg1 on @mesh_4 [dp] comm = 1 sum {origin = #dist.origin<partial>} : tensor<8xf32>, tensor<4xf32>
// CHECK: %[[W:.*]]:2 = dist.wait %[[T]], %[[R]]#0, %[[R]]#1 : tensor<8xf32>, tensor<4xf32>
// CHECK-NEXT: scf.for
dist.mesh @mesh_4 [dp = 4]
func.func @bucket_in_loop(%a: tensor<8xf32>, %b: tensor<4xf32>) -> tensor<8xf32> {
  %ra, %rb = dist.all_reduce %a, %b on @mesh_4 [dp] comm = 1 sum {origin = #dist.origin<partial>} : tensor<8xf32>, tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> tensor<8xf32> {
    %s = arith.addf %acc, %ra : tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// Tests that an unused result is waited for before the terminator, and that
// an async collective is left alone.
// CHECK-LABEL: func.func @unused
// CHECK: %[[G:.*]], %[[T:.*]] = dist.all_gather async
// CHECK: %[[P:.*]], %[[T2:.*]] = dist.permute async
// CHECK-NEXT: dist.wait %[[T2]], %[[P]]
// CHECK-NEXT: dist.wait %[[T]], %[[G]]
// CHECK-NEXT: return
dist.mesh @mesh_4 [dp = 4]
func.func @unused(%x: tensor<2xf32>) {
  %g = dist.all_gather %x on @mesh_4 [dp] dim = 0 : tensor<2xf32> -> tensor<8xf32>
  %p, %t = dist.permute async %x on @mesh_4 [dp] pairs = [0 -> 1] : tensor<2xf32>
  %pw = dist.wait %t, %p : tensor<2xf32>
  return
}
