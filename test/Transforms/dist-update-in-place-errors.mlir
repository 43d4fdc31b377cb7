// RUN: dist-opt %s --dist-update-in-place -verify-diagnostics | FileCheck %s

// The pass rejects nothing: what it cannot update in place keeps its own
// buffer. Here the function has two returns (unstructured control flow) and
// is left alone; an external function has no body to rewrite.
// expected-no-diagnostics

func.func @two_returns(%w: tensor<8xf32>, %c: i1) -> (tensor<8xf32> {dist.updates = 0 : i64}) {
  cf.cond_br %c, ^a, ^b
^a:
  %0 = arith.addf %w, %w : tensor<8xf32>
  return %0 : tensor<8xf32>
^b:
  %1 = arith.mulf %w, %w : tensor<8xf32>
  return %1 : tensor<8xf32>
}
// CHECK-LABEL: func.func @two_returns
// CHECK-NOT: materialize_in_destination
// CHECK: return

func.func private @external(tensor<8xf32>) -> (tensor<8xf32> {dist.updates = 0 : i64})
// CHECK-LABEL: func.func private @external
