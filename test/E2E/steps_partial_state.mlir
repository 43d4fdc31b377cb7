// dist-run --steps with state that changes layout between steps: the
// accumulator comes in partial over `b` (the first rank of each `b` group
// holds it, the other the identity 0) and goes out split by `b`. Between
// steps the ranks rebuild it and hand each rank its block of the partial
// layout again; a wrong hand-over (every rank holding the value) would double
// it and fail from step 2 on.

// RUN: dist-run %s --steps 3 | FileCheck %s
// CHECK: dist-run: @accumulate on 4 rank(s), mesh @mesh_2x2 [a = 2, b = 2], 3 steps
// CHECK-NEXT: step 1: PASS (1 of 1 result(s) match)
// CHECK-NEXT: step 2: PASS (1 of 1 result(s) match)
// CHECK-NEXT: step 3: PASS (1 of 1 result(s) match)
// CHECK: PASS: 1 of 1 result(s) match the serial run after every step

dist.mesh @mesh_2x2 [a = 2, b = 2]
func.func @accumulate(
    %x: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{a}, {}]>},
    %sum: tensor<4xf32> {dist.sharding = #dist.sharding<@mesh_2x2, [{}], partial = sum{b}>})
    -> (tensor<4xf32> {dist.updates = 1 : i64, dist.sharding = #dist.sharding<@mesh_2x2, [{b}]>}) {
  %e = tensor.empty() : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce ins(%x : tensor<8x4xf32>) outs(%z : tensor<4xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %a = arith.addf %in, %init : f32
      linalg.yield %a : f32
    }
  %n = arith.addf %s, %sum : tensor<4xf32>
  return %n : tensor<4xf32>
}
