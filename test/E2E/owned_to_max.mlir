// End-to-end: a value owned by one rank of a group, made a partial max over
// that group (the other ranks masked to the identity of max, -inf, not 0)
// and reduced. Inputs are in [-1, 1): a mask of 0 would win the max wherever
// the value is negative. Must match the serial run on 2 and 4 ranks.

// RUN: dist-run %s --mesh 2 | FileCheck %s
// RUN: dist-run %s --mesh 4 | FileCheck %s
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: PASS: 2 of 2 result(s) match the serial run
// CHECK-NOT: FAIL

// IR: arith.constant dense<0xFF800000> : tensor<16xf32>
// IR: dist.all_reduce {{.*}} max

dist.mesh @mesh [a = 4]

func.func @owned_to_max(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = math.exp %x : tensor<16xf32>
  %owned = dist.annotate %x as <@mesh, [{}], owner = 1 {a}> : tensor<16xf32>
  %partial = dist.annotate %owned as <@mesh, [{}], partial = max{a}> : tensor<16xf32>
  %whole = dist.annotate %partial as <@mesh, [{}]> : tensor<16xf32>
  return %whole, %e : tensor<16xf32>, tensor<16xf32>
}
