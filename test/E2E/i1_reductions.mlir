// Reductions of i1 over a split dim: the collective must combine the ranks'
// pieces as the body does. On i1 maxsi is `and` (signed, true is -1) and
// minsi `or`; the collectives' max is `or` and min `and`. Inputs are fixed
// so that the wrong combiner would change the result.

// RUN: %python -c "open('%t.bin','wb').write(bytes([1]*8 + [1]*4+[0]+[1]*3 + [0]+[1]*7 + [0]*8))"
// RUN: dist-run %s --input 0=%t.bin | FileCheck %s
// CHECK: result #0 tensor<4xi1> {{.*}}: PASS
// CHECK: result #1 tensor<4xi1> {{.*}}: PASS
// CHECK: result #2 tensor<4xi1> {{.*}}: PASS
// CHECK: PASS: 3 of 3 result(s) match the serial run

// RUN: dist-opt --dist-propagate --dist-partition %s | FileCheck %s --check-prefix=IR
// IR: dist.all_reduce %{{.*}} on @mesh [a] min {{.*}} : tensor<4xi1>
// IR: dist.all_reduce %{{.*}} on @mesh [a] max {{.*}} : tensor<4xi1>
// IR: dist.all_reduce %{{.*}} on @mesh [a] max {{.*}} : tensor<4xi1>

// A corrupted rank is caught on an i1 result that is true (adding 1 to true
// changes nothing; the corruption must).
// RUN: not dist-run %s --input 0=%t.bin --corrupt-rank=1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: result #0 tensor<4xi1> {{.*}}: FAIL

dist.mesh @mesh [a = 2]

func.func @i1_reductions(
    %p: tensor<4x8xi1> {dist.sharding = #dist.sharding<@mesh, [{}, {a}]>})
    -> (tensor<4xi1> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<4xi1> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<4xi1> {dist.sharding = #dist.sharding<@mesh, [{}]>}) {
  %t = arith.constant true
  %f = arith.constant false
  %e = tensor.empty() : tensor<4xi1>
  %ones = linalg.fill ins(%t : i1) outs(%e : tensor<4xi1>) -> tensor<4xi1>
  %zeros = linalg.fill ins(%f : i1) outs(%e : tensor<4xi1>) -> tensor<4xi1>
  %all = linalg.reduce ins(%p : tensor<4x8xi1>) outs(%ones : tensor<4xi1>) dimensions = [1]
    (%in: i1, %acc: i1) {
      %m = arith.maxsi %in, %acc : i1
      linalg.yield %m : i1
    }
  %any = linalg.reduce ins(%p : tensor<4x8xi1>) outs(%zeros : tensor<4xi1>) dimensions = [1]
    (%in: i1, %acc: i1) {
      %m = arith.minsi %in, %acc : i1
      linalg.yield %m : i1
    }
  %or = linalg.reduce ins(%p : tensor<4x8xi1>) outs(%zeros : tensor<4xi1>) dimensions = [1]
    (%in: i1, %acc: i1) {
      %m = arith.ori %in, %acc : i1
      linalg.yield %m : i1
    }
  return %all, %any, %or : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
