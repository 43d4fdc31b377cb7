// dist-run --steps: the entry runs as a training loop. A result marked
// `dist.updates = I` becomes argument I of the next step (the weights), and
// so does a result that has the `dist.name` of an argument (a step counter
// that the partitioned program holds split by rows but returns replicated,
// so the ranks exchange it between steps); the other arguments are fed again
// as they were. Serial and distributed runs are compared after every step.

// RUN: dist-run %s --steps 4 --time | FileCheck %s
// CHECK: dist-run: @sgd on 2 rank(s), mesh @mesh_2 [dp = 2], 4 steps
// CHECK-NEXT: step 1: PASS (3 of 3 result(s) match)
// CHECK-NEXT: step 2: PASS (3 of 3 result(s) match)
// CHECK-NEXT: step 3: PASS (3 of 3 result(s) match)
// CHECK-NEXT: step 4: PASS (3 of 3 result(s) match)
// CHECK-NEXT: result #0 tensor<4xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 tensor<8xi32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #2 tensor<f32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 3 of 3 result(s) match the serial run after every step
// CHECK-NEXT: time per step in ms (min / median / max of 4 step(s)):
// CHECK-NEXT:   serial {{[0-9]+\.[0-9]{3} / [0-9]+\.[0-9]{3} / [0-9]+\.[0-9]{3}$}}
// CHECK-NEXT:   rank 0 {{[0-9]+\.[0-9]{3} / [0-9]+\.[0-9]{3} / [0-9]+\.[0-9]{3}$}}
// CHECK-NEXT:   rank 1 {{[0-9]+\.[0-9]{3} / [0-9]+\.[0-9]{3} / [0-9]+\.[0-9]{3}$}}

// The counter starts at 5 (its input range holds only 5) and each step adds
// one: the fourth step's result is 9 in the serial run and on every rank,
// which proves that the state is fed back by name, also across layouts.
// RUN: rm -rf %t && dist-run %s --steps 4 --keep --work-dir %t > /dev/null
// RUN: od -An -td4 -w32 %t/result1.step4.serial.bin | FileCheck %s --check-prefix=COUNT
// RUN: od -An -td4 -w32 %t/result1.step4.rank1.bin | FileCheck %s --check-prefix=COUNT
// RUN: od -An -td4 -w32 %t/result1.step1.rank0.bin | FileCheck %s --check-prefix=FIRST
// COUNT: 9 9 9 9 9 9 9 9
// FIRST: 6 6 6 6 6 6 6 6

// A wrong result at step 3 (rank 1 corrupts its copy of the weights) is
// reported at step 3; the corrupted state makes step 4 diverge too.
// RUN: not dist-run %s --steps 4 --corrupt-rank=1 --corrupt-step=3 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: step 2: PASS
// CORRUPT-NEXT: step 3: FAIL (2 of 3 result(s) match)
// CORRUPT-NEXT: step 4: FAIL
// CORRUPT-NEXT: result #0 tensor<4xf32> {{.*}}: FAIL{{$}}
// CORRUPT: FAIL: step 3 is the first step that diverges: 2 of 3 result(s) match the serial run

dist.mesh @mesh_2 [dp = 2]

#map_1d = affine_map<(i) -> (i)>
#map_scalar = affine_map<(i) -> ()>

func.func @sgd(
    %x: tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}, {}]>},
    %y: tensor<8xf32> {dist.sharding = #dist.sharding<@mesh_2, [{dp}]>},
    %w: tensor<4xf32>,
    %count: tensor<8xi32> {dist.input_range = array<i64: 5, 6>, dist.name = "count",
                           dist.sharding = #dist.sharding<@mesh_2, [{dp}]>},
    %lr: f32)
    -> (tensor<4xf32> {dist.updates = 2 : i64},
        tensor<8xi32> {dist.name = "count",
                       dist.sharding = #dist.sharding<@mesh_2, [{}]>},
        tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8xf32>
  %z8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %pred = linalg.matvec ins(%x, %w : tensor<8x4xf32>, tensor<4xf32>)
      outs(%z8 : tensor<8xf32>) -> tensor<8xf32>
  %diff = linalg.sub ins(%pred, %y : tensor<8xf32>, tensor<8xf32>)
      outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#map_1d, #map_scalar], iterator_types = ["reduction"]}
      ins(%diff : tensor<8xf32>) outs(%zs : tensor<f32>) {
  ^bb0(%d: f32, %acc: f32):
    %sq = arith.mulf %d, %d : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %grad = linalg.vecmat ins(%diff, %x : tensor<8xf32>, tensor<8x4xf32>)
      outs(%z4 : tensor<4xf32>) -> tensor<4xf32>
  %new_w = linalg.generic {indexing_maps = [#map_1d, #map_1d, #map_1d], iterator_types = ["parallel"]}
      ins(%w, %grad : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%wi: f32, %g: f32, %out: f32):
    %step = arith.mulf %lr, %g : f32
    %n = arith.subf %wi, %step : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %one = arith.constant dense<1> : tensor<8xi32>
  %next = arith.addi %count, %one : tensor<8xi32>
  return %new_w, %next, %loss : tensor<4xf32>, tensor<8xi32>, tensor<f32>
}
