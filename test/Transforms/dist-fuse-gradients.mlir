// RUN: dist-opt %s --split-input-file --dist-fuse-gradients | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-fuse-gradients="bucket-mb=0.0001" | FileCheck %s --check-prefix=SMALL
// RUN: dist-opt %s --split-input-file --dist-fuse-gradients="summary" 2>&1 >/dev/null | FileCheck %s --check-prefix=SUMMARY
// RUN: dist-opt %s --split-input-file --dist-fuse-gradients --dist-comm-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

// The report counts the copies that pack a bucket into one buffer (in and
// back out).
// REPORT: remark: dist.all_reduce over [dp] (2 ranks): 4108 x f32 = 16432 B; each rank sends 16432 B; packing its 3 tensors into one buffer copies 32864 B
// REPORT: remark: dist-comm-report: 4 collectives; each rank sends 16460 B; [dp]: 3 collectives, 16444 B; [dp] comm 1: 1 collective, 16 B; packing buckets copies 32864 B

// Tests buckets in a per-rank program: gradient reductions of one group,
// communicator, kind and element type share one all_reduce, placed where
// the last of them was; other dtypes, communicators and non-gradient
// reductions stay apart.
dist.mesh @mesh [dp = 2]
// CHECK-LABEL: func.func @buckets
// CHECK: %[[G0:.*]] = arith.mulf {{.*}}dist.grad_of = 0
// CHECK-NEXT: %[[G1:.*]] = arith.addf {{.*}}dist.grad_of = 1
// CHECK-NEXT: %[[G2:.*]] = arith.addf {{.*}}dist.grad_of = 2
// CHECK-NEXT: %[[R2:.*]] = dist.all_reduce %[[G2]] on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<4xf16>
// CHECK-NEXT: %[[G3:.*]] = arith.addf {{.*}}dist.grad_of = 3
// CHECK-NEXT: %[[R3:.*]] = dist.all_reduce %[[G3]] on @mesh [dp] comm = 1 sum : tensor<4xf32>
// CHECK-NEXT: %[[LOSS:.*]] = dist.all_reduce %arg5 on @mesh [dp] sum : tensor<f32>
// CHECK-NEXT: %[[G4:.*]] = arith.addf {{.*}}dist.grad_of = 4
// CHECK-NEXT: %[[R:.*]]:3 = dist.all_reduce %[[G0]], %[[G1]], %[[G4]] on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<64x64xf32>, tensor<4xf32>, tensor<8xf32>
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1, %[[R2]], %[[R3]], %[[R]]#2, %[[LOSS]]

// With a 104-byte cap (0.0001 MB), the 16 KB gradient is a bucket of its
// own (left as it is) and the small f32 ones share one.
// SMALL-LABEL: func.func @buckets
// SMALL: dist.all_reduce %{{.*}} on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<64x64xf32>
// SMALL: dist.all_reduce %{{.*}}, %{{.*}} on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<4xf32>, tensor<8xf32>

// SUMMARY: remark: dist-fuse-gradients: bucket of 3 gradients, 16432 B
func.func @buckets(%w0: tensor<64x64xf32> {dist.param}, %w1: tensor<4xf32> {dist.param},
                   %w2: tensor<4xf16> {dist.param}, %w3: tensor<4xf32> {dist.param},
                   %w4: tensor<8xf32> {dist.param}, %loss: tensor<f32>)
    -> (tensor<64x64xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<8xf32>, tensor<f32>) {
  %g0 = arith.mulf %w0, %w0 {dist.grad_of = 0 : i64} : tensor<64x64xf32>
  %r0 = dist.all_reduce %g0 on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<64x64xf32>
  %g1 = arith.addf %w1, %w1 {dist.grad_of = 1 : i64} : tensor<4xf32>
  %r1 = dist.all_reduce %g1 on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<4xf32>
  %g2 = arith.addf %w2, %w2 {dist.grad_of = 2 : i64} : tensor<4xf16>
  %r2 = dist.all_reduce %g2 on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<4xf16>
  %g3 = arith.addf %w3, %w3 {dist.grad_of = 3 : i64} : tensor<4xf32>
  %r3 = dist.all_reduce %g3 on @mesh [dp] comm = 1 sum : tensor<4xf32>
  %l = dist.all_reduce %loss on @mesh [dp] sum : tensor<f32>
  %g4 = arith.addf %w4, %w4 {dist.grad_of = 4 : i64} : tensor<8xf32>
  %r4 = dist.all_reduce %g4 on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<8xf32>
  return %r0, %r1, %r2, %r3, %r4, %l : tensor<64x64xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<8xf32>, tensor<f32>
}

// -----

// Tests that a gradient does not join a bucket whose earlier gradient is
// used before it is made (the bucket would delay that user).
dist.mesh @mesh [dp = 2]
// CHECK-LABEL: func.func @user_in_between
// CHECK: %[[R0:.*]] = dist.all_reduce %{{.*}} on @mesh [dp] sum : tensor<4xf32>
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[R0]], %[[R0]]
// CHECK: dist.all_reduce %{{.*}}, %{{.*}} on @mesh [dp] sum : tensor<4xf32>, tensor<4xf32>
func.func @user_in_between(%w0: tensor<4xf32> {dist.param}, %w1: tensor<4xf32> {dist.param},
                           %w2: tensor<4xf32> {dist.param})
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %g0 = arith.mulf %w0, %w0 {dist.grad_of = 0 : i64} : tensor<4xf32>
  %r0 = dist.all_reduce %g0 on @mesh [dp] sum : tensor<4xf32>
  %u = arith.mulf %r0, %r0 : tensor<4xf32>
  %g1 = arith.addf %u, %w1 {dist.grad_of = 1 : i64} : tensor<4xf32>
  %r1 = dist.all_reduce %g1 on @mesh [dp] sum : tensor<4xf32>
  %g2 = arith.addf %w2, %w2 {dist.grad_of = 2 : i64} : tensor<4xf32>
  %r2 = dist.all_reduce %g2 on @mesh [dp] sum : tensor<4xf32>
  return %r0, %r1, %r2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
