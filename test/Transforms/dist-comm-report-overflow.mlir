// RUN: dist-opt %s --split-input-file --dist-comm-report -o /dev/null 2>&1 | FileCheck %s

// Tests counts beyond 64 bits: the bytes of a 2^62-element f64 tensor, and
// the executions of two nested loops of 2^63 - 1 trips each, are unknown
// (they wrapped around to 0 before), and the totals say so. A loop that never
// runs counts 0 executions.
dist.mesh @m [a = 2]
// CHECK: remark: dist.all_reduce over [a] (2 ranks): more than 2^63 elements or bytes: bytes unknown
// CHECK: remark: dist.all_reduce over [a] (2 ranks): 8 x f32 = 32 B, sent more than 2^63 times or bytes: bytes unknown
// CHECK: remark: dist.all_reduce over [a] (2 ranks): 8 x f32 = 32 B; each rank sends 0 B (0 executions)
// CHECK: remark: dist-comm-report: 3 collectives; each rank sends 0 B plus unknown (dynamic shapes or trip counts, or counts over 2^63); [a]: 3 collectives, 0 B
func.func @f(%huge: tensor<4611686018427387904xf64>, %x: tensor<8xf32>) -> (tensor<4611686018427387904xf64>, tensor<8xf32>) {
  %y = dist.all_reduce %huge on @m [a] sum : tensor<4611686018427387904xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 9223372036854775807 : index
  %r = scf.for %i = %c0 to %big step %c1 iter_args(%a = %x) -> tensor<8xf32> {
    %r2 = scf.for %j = %c0 to %big step %c1 iter_args(%b = %a) -> tensor<8xf32> {
      %s = dist.all_reduce %b on @m [a] sum : tensor<8xf32>
      scf.yield %s : tensor<8xf32>
    }
    scf.yield %r2 : tensor<8xf32>
  }
  %never = scf.for %i = %c1 to %c0 step %c1 iter_args(%a = %r) -> tensor<8xf32> {
    %s = dist.all_reduce %a on @m [a] sum : tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %y, %never : tensor<4611686018427387904xf64>, tensor<8xf32>
}

// -----

// Tests a total past 2^63: each all_reduce sends 2^62 B per rank, so the
// second and third do not fit in the total, which stays 2^62 (not wrapped)
// plus unknown.
dist.mesh @m [a = 2]
// CHECK: remark: dist.all_reduce over [a] (2 ranks): 576460752303423488 x f64 = 4611686018427387904 B; each rank sends 4611686018427387904 B
// CHECK: remark: dist.all_reduce over [a] (2 ranks): 576460752303423488 x f64 = 4611686018427387904 B; each rank sends 4611686018427387904 B
// CHECK: remark: dist.all_reduce over [a] (2 ranks): 576460752303423488 x f64 = 4611686018427387904 B; each rank sends 4611686018427387904 B
// CHECK: remark: dist-comm-report: 3 collectives; each rank sends 4611686018427387904 B plus unknown (dynamic shapes or trip counts, or counts over 2^63); [a]: 3 collectives, 4611686018427387904 B
func.func @g(%x: tensor<576460752303423488xf64>) -> tensor<576460752303423488xf64> {
  %y = dist.all_reduce %x on @m [a] sum : tensor<576460752303423488xf64>
  %z = dist.all_reduce %y on @m [a] sum : tensor<576460752303423488xf64>
  %w = dist.all_reduce %z on @m [a] sum : tensor<576460752303423488xf64>
  return %w : tensor<576460752303423488xf64>
}
