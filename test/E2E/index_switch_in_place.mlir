// A value an scf.index_switch yields is read after an op that MLIR 22's
// one-shot bufferization lets write in place into the switch's result (the
// same buffer): the min reduction read exp of its input. dist-decompose-
// aggregates turns the switch into scf.if first (found by the differential
// tester, seeds 1925508067, 1925508261 and 1925508419).

// RUN: dist-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS: 2 of 2 result(s) match the serial run

dist.mesh @mesh [a = 4, b = 2]
func.func @main(%arg1: tensor<2x4xf32>, %arg6: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh, [{}], partial = max{b}>})
    -> (tensor<4x2xf32>, tensor<4xf32>) {
  %e29 = tensor.empty() : tensor<4x2xf32>
  %v30 = linalg.transpose ins(%arg1 : tensor<2x4xf32>) outs(%e29 : tensor<4x2xf32>) permutation = [1, 0]
  %v39 = dist.annotate %v30 as <@mesh, [{}, {b}]> : tensor<4x2xf32>
  %c40 = arith.constant 1 : index
  %v41 = scf.index_switch %c40 -> tensor<4x2xf32>
  case 1 {
    scf.yield %v30 : tensor<4x2xf32>
  }
  default {
    scf.yield %v30 : tensor<4x2xf32>
  }
  %v59 = math.exp %v41 : tensor<4x2xf32>
  %e62 = tensor.empty() : tensor<4xf32>
  %c63 = arith.constant 0x7F800000 : f32
  %z64 = linalg.fill ins(%c63 : f32) outs(%e62 : tensor<4xf32>) -> tensor<4xf32>
  %v65 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%v39 : tensor<4x2xf32>) outs(%z64 : tensor<4xf32>) {
  ^bb0(%in0: f32, %acc: f32):
    %t = arith.minimumf %acc, %in0 : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %v68 = dist.annotate %v59 as <@mesh, [{}, {b}]> : tensor<4x2xf32>
  return %v68, %v65 : tensor<4x2xf32>, tensor<4xf32>
}
