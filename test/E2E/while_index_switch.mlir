// A while loop that accumulates a partial matmul (the reduction happens once,
// after the loop; the non-zero init is masked on all but one rank) and an
// index_switch whose cases read the loop's result; serial and distributed runs
// must agree.

// RUN: dist-run %s | FileCheck %s
// CHECK: dist-run: @main on 4 rank(s)
// CHECK-NOT: FAIL
// CHECK: PASS: 2 of 2 result(s) match the serial run

// RUN: dist-opt --dist-propagate --dist-partition %s | FileCheck %s --check-prefix=IR
// IR: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x4xf32>
// IR: %[[LOOP:.+]]:2 = scf.while
// IR-NOT: dist.all_reduce
// IR: scf.index_switch
// IR: dist.all_reduce %[[LOOP]]#1 on @mesh [dp] sum

dist.mesh @mesh [dp = 2, mp = 2]
func.func @main(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {dp}]>},
                %b: tensor<16x4xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}]>},
                %init: tensor<8x4xf32>,
                %k: i64 {dist.input_range = array<i64: 0, 3>})
    -> (tensor<8x4xf32>, tensor<8x4xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %r:2 = scf.while (%i = %c0, %acc = %init) : (index, tensor<8x4xf32>) -> (index, tensor<8x4xf32>) {
    %go = arith.cmpi slt, %i, %c3 : index
    scf.condition(%go) %i, %acc : index, tensor<8x4xf32>
  } do {
  ^bb0(%j: index, %cur: tensor<8x4xf32>):
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
    %g = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
    %next = arith.addf %cur, %g : tensor<8x4xf32>
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %next : index, tensor<8x4xf32>
  }
  %ki = arith.index_cast %k : i64 to index
  %s = scf.index_switch %ki -> tensor<8x4xf32>
  case 0 {
    %y = math.tanh %r#1 : tensor<8x4xf32>
    scf.yield %y : tensor<8x4xf32>
  }
  case 1 {
    %y = arith.addf %r#1, %init : tensor<8x4xf32>
    scf.yield %y : tensor<8x4xf32>
  }
  default {
    scf.yield %init : tensor<8x4xf32>
  }
  return %r#1, %s : tensor<8x4xf32>, tensor<8x4xf32>
}
