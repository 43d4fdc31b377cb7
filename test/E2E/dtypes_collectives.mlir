// Every element type dist-run supports goes through a real collective (see
// dtypes.mlir for the same types without one):
//   - i8: a matmul whose reduction dim is split (inputs in [-1, 1], so its
//     sums do not overflow), a partial (sum) input, a sum that wraps (modular,
//     so the order of the partial sums does not matter) and a signed max, all
//     completed by all_reduce;
//   - i16: all_gathers along dim 0 and along the inner dim, a signed min
//     (all_reduce min) and, on the 2-D mesh, a gather over both axes;
//   - i1: a partial max input (all_reduce max, an or on bytes), a split value
//     gathered, and an or over a split dim (all_reduce max: max on i1 is or);
//   - f16 and bf16: matmuls whose reduction dim is split (all_reduce sum of
//     16-bit floats; on the 2-D mesh one of them ends split, a reduce_scatter)
//     and split values gathered;
//   - f64, i32 and i64: an all_reduce sum, an all_gather and an all_reduce sum.
// The first program runs on 2, 4 and 8 ranks of a 1-D mesh, the second (in a
// file of its own: one program runs on one mesh size) on 2x2, 2x4 and 4x2
// meshes. The IR runs check that each collective is there, with its element
// type.

// RUN: rm -rf %t && split-file %s %t
// RUN: dist-run %t/mesh1d.mlir | FileCheck %s -DN=2
// RUN: dist-run %t/mesh1d.mlir --mesh 4 | FileCheck %s -DN=4
// RUN: dist-run %t/mesh1d.mlir --ranks 8 --mesh mesh=8 | FileCheck %s -DN=8
// CHECK: dist-run: @dtypes_collectives on [[N]] rank(s), mesh @mesh [a = [[N]]]
// CHECK-NEXT: result #0 tensor<8x8xi8> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #1 tensor<8xi8> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #2 tensor<4xi8> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #3 tensor<4xi8> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #4 tensor<16xi16> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #5 tensor<4x16xi16> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #6 tensor<4xi16> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #7 tensor<8xi1> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #8 tensor<16xi1> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #9 tensor<4xi1> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #10 tensor<8x16xf16> {{.*}} error vs f64 reference: {{.*}}: PASS{{$}}
// CHECK-NEXT: result #11 tensor<8x16xbf16> {{.*}} error vs f64 reference: {{.*}}: PASS{{$}}
// CHECK-NEXT: result #12 tensor<16x4xf16> {{.*}} error vs f64 reference: {{.*}}: PASS{{$}}
// CHECK-NEXT: result #13 tensor<4x16xbf16> {{.*}} error vs f64 reference: {{.*}}: PASS{{$}}
// CHECK-NEXT: result #14 tensor<4x4xf64> {{.*}}: max abs err {{.*}}: PASS{{$}}
// CHECK-NEXT: result #15 tensor<16xi32> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #16 tensor<4xi64> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: PASS: 17 of 17 result(s) match the serial run

// RUN: dist-run %t/mesh2d.mlir | FileCheck %s --check-prefix=MESH2 -DDP=2 -DMP=2 -DN=4
// RUN: dist-run %t/mesh2d.mlir --mesh 2x4 | FileCheck %s --check-prefix=MESH2 -DDP=2 -DMP=4 -DN=8
// RUN: dist-run %t/mesh2d.mlir --mesh mesh2=4x2 | FileCheck %s --check-prefix=MESH2 -DDP=4 -DMP=2 -DN=8
// MESH2: dist-run: @dtypes_collectives_2d on [[N]] rank(s), mesh @mesh2 [dp = [[DP]], mp = [[MP]]]
// MESH2-NEXT: result #0 tensor<8x16xf16> {{.*}} error vs f64 reference: {{.*}}: PASS{{$}}
// MESH2-NEXT: result #1 tensor<8x16xbf16> {{.*}} error vs f64 reference: {{.*}}: PASS{{$}}
// MESH2-NEXT: result #2 tensor<8x16xi8> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// MESH2-NEXT: result #3 tensor<16x8xi16> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// MESH2-NEXT: result #4 tensor<16xi1> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// MESH2-NEXT: PASS: 5 of 5 result(s) match the serial run

// A corrupted rank is caught on a replicated i8 result (its values lie in
// [-32, 32], so adding 1 always changes one).
// RUN: not dist-run %t/mesh1d.mlir --corrupt-rank=1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: result #0 tensor<8x8xi8> {{.*}}: FAIL{{$}}
// CORRUPT: FAIL: 16 of 17 result(s) match the serial run

// The collectives, each with its element type (on the meshes as written).
// RUN: dist-opt %t/mesh1d.mlir --dist-auto-partition | FileCheck %s --check-prefix=IR
// RUN: dist-opt %t/mesh2d.mlir --dist-auto-partition | FileCheck %s --check-prefix=IR2
// IR-LABEL: func.func @dtypes_collectives(
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] sum {{.*}}: tensor<8x8xi8>
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] sum {{.*}}: tensor<8xi8>
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] sum {{.*}}: tensor<4xi8>
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] max {{.*}}: tensor<4xi8>
// IR-DAG: dist.all_gather {{.*}} on @mesh [a] dim = 0 {{.*}}: tensor<8xi16> -> tensor<16xi16>
// IR-DAG: dist.all_gather {{.*}} on @mesh [a] dim = 1 {{.*}}: tensor<4x8xi16> -> tensor<4x16xi16>
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] min {{.*}}: tensor<4xi16>
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] max {{.*}}: tensor<8xi1>
// IR-DAG: dist.all_gather {{.*}} on @mesh [a] dim = 0 {{.*}}: tensor<8xi1> -> tensor<16xi1>
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] max {{.*}}: tensor<4xi1>
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] sum {{.*}}: tensor<8x16xf16>
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] sum {{.*}}: tensor<8x16xbf16>
// IR-DAG: dist.all_gather {{.*}} on @mesh [a] dim = 0 {{.*}}: tensor<8x4xf16> -> tensor<16x4xf16>
// IR-DAG: dist.all_gather {{.*}} on @mesh [a] dim = 1 {{.*}}: tensor<4x8xbf16> -> tensor<4x16xbf16>
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] sum {{.*}}: tensor<4x4xf64>
// IR-DAG: dist.all_gather {{.*}} on @mesh [a] dim = 0 {{.*}}: tensor<8xi32> -> tensor<16xi32>
// IR-DAG: dist.all_reduce {{.*}} on @mesh [a] sum {{.*}}: tensor<4xi64>
// IR: return
// IR2-LABEL: func.func @dtypes_collectives_2d(
// IR2-DAG: dist.all_reduce {{.*}} on @mesh2 [mp] sum {{.*}}: tensor<4x16xf16>
// IR2-DAG: dist.reduce_scatter {{.*}} on @mesh2 [{{.*}}] sum dim = 1 {{.*}}: tensor<8x{{[0-9]+}}xbf16> -> tensor<8x{{[0-9]+}}xbf16>
// IR2-DAG: dist.all_reduce {{.*}} on @mesh2 [dp] sum {{.*}}: tensor<8x8xi8>
// IR2-DAG: dist.all_gather {{.*}} on @mesh2 [{{.*}}] dim = 0 {{.*}}: tensor<8x{{[0-9]+}}xi16> -> tensor<16x{{[0-9]+}}xi16>
// IR2-DAG: dist.all_reduce {{.*}} on @mesh2 [mp] max {{.*}}: tensor<8xi1>
// IR2: return

//--- mesh1d.mlir
dist.mesh @mesh [a = 2]

func.func @dtypes_collectives(
    %x8: tensor<8x32xi8> {dist.input_range = array<i64: -1, 2>,
                          dist.sharding = #dist.sharding<@mesh, [{}, {a}]>},
    %w8: tensor<32x8xi8> {dist.input_range = array<i64: -1, 2>,
                          dist.sharding = #dist.sharding<@mesh, [{a}, {}]>},
    %p8: tensor<8xi8> {dist.input_range = array<i64: -100, 100>,
                       dist.sharding = #dist.sharding<@mesh, [{}], partial = sum{a}>},
    %r8: tensor<4x32xi8> {dist.input_range = array<i64: -100, 100>,
                          dist.sharding = #dist.sharding<@mesh, [{}, {a}]>},
    %g16: tensor<16xi16> {dist.input_range = array<i64: -1000, 1000>,
                          dist.sharding = #dist.sharding<@mesh, [{a}]>},
    %c16: tensor<4x16xi16> {dist.input_range = array<i64: -30000, 30000>,
                            dist.sharding = #dist.sharding<@mesh, [{}, {a}]>},
    %p1: tensor<8xi1> {dist.sharding = #dist.sharding<@mesh, [{}], partial = max{a}>},
    %q1: tensor<16xi1> {dist.sharding = #dist.sharding<@mesh, [{a}]>},
    %o1: tensor<4x16xi1> {dist.sharding = #dist.sharding<@mesh, [{}, {a}]>},
    %h: tensor<8x32xf16> {dist.sharding = #dist.sharding<@mesh, [{}, {a}]>},
    %hw: tensor<32x16xf16> {dist.sharding = #dist.sharding<@mesh, [{a}, {}]>},
    %b: tensor<8x32xbf16> {dist.sharding = #dist.sharding<@mesh, [{}, {a}]>},
    %bw: tensor<32x16xbf16> {dist.sharding = #dist.sharding<@mesh, [{a}, {}]>},
    %hg: tensor<16x4xf16> {dist.sharding = #dist.sharding<@mesh, [{a}, {}]>},
    %bg: tensor<4x16xbf16> {dist.sharding = #dist.sharding<@mesh, [{}, {a}]>},
    %d: tensor<4x16xf64> {dist.sharding = #dist.sharding<@mesh, [{}, {a}]>},
    %dw: tensor<16x4xf64> {dist.sharding = #dist.sharding<@mesh, [{a}, {}]>},
    %g32: tensor<16xi32> {dist.input_range = array<i64: -100000, 100000>,
                          dist.sharding = #dist.sharding<@mesh, [{a}]>},
    %r64: tensor<4x16xi64> {dist.input_range = array<i64: -1000000000, 1000000000>,
                            dist.sharding = #dist.sharding<@mesh, [{}, {a}]>})
    -> (tensor<8x8xi8> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<8xi8> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<4xi8> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<4xi8> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<16xi16> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<4x16xi16> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<4xi16> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<8xi1> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<16xi1> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<4xi1> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<8x16xf16> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<8x16xbf16> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<16x4xf16> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<4x16xbf16> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<4x4xf64> {dist.sharding = #dist.sharding<@mesh, [{}, {}]>},
        tensor<16xi32> {dist.sharding = #dist.sharding<@mesh, [{}]>},
        tensor<4xi64> {dist.sharding = #dist.sharding<@mesh, [{}]>}) {
  // An i8 matmul, reduction dim split: all_reduce sum of i8. The inputs lie
  // in [-1, 1], so |sum| <= 32.
  %z8 = arith.constant 0 : i8
  %e88 = tensor.empty() : tensor<8x8xi8>
  %f88 = linalg.fill ins(%z8 : i8) outs(%e88 : tensor<8x8xi8>) -> tensor<8x8xi8>
  %m8 = linalg.matmul ins(%x8, %w8 : tensor<8x32xi8>, tensor<32x8xi8>)
      outs(%f88 : tensor<8x8xi8>) -> tensor<8x8xi8>
  // A partial i8 input, doubled on each rank (2 * 99 wraps to -58, in the
  // serial run too), then summed.
  %p8d = arith.addi %p8, %p8 : tensor<8xi8>
  // A sum of 32 i8 in [-100, 99] over the split dim: it wraps, on each rank
  // and in the all_reduce; wrapped sums do not depend on the order.
  %e48 = tensor.empty() : tensor<4xi8>
  %f48 = linalg.fill ins(%z8 : i8) outs(%e48 : tensor<4xi8>) -> tensor<4xi8>
  %s8 = linalg.reduce ins(%r8 : tensor<4x32xi8>) outs(%f48 : tensor<4xi8>) dimensions = [1]
    (%in: i8, %acc: i8) {
      %t = arith.addi %in, %acc : i8
      linalg.yield %t : i8
    }
  // A signed max of i8 over the split dim: all_reduce max of i8.
  %min8 = arith.constant -128 : i8
  %g48 = linalg.fill ins(%min8 : i8) outs(%e48 : tensor<4xi8>) -> tensor<4xi8>
  %x8m = linalg.reduce ins(%r8 : tensor<4x32xi8>) outs(%g48 : tensor<4xi8>) dimensions = [1]
    (%in: i8, %acc: i8) {
      %t = arith.maxsi %in, %acc : i8
      linalg.yield %t : i8
    }
  // i16 split on dim 0, replicated result: all_gather of i16.
  %g16s = arith.muli %g16, %g16 : tensor<16xi16>
  // i16 split on the inner dim (times 3 wraps): all_gather along dim 1.
  %three16 = arith.constant dense<3> : tensor<4x16xi16>
  %c16m = arith.muli %c16, %three16 : tensor<4x16xi16>
  // A signed min of i16 over the split dim: all_reduce min of i16.
  %max16 = arith.constant 32767 : i16
  %e416 = tensor.empty() : tensor<4xi16>
  %f416 = linalg.fill ins(%max16 : i16) outs(%e416 : tensor<4xi16>) -> tensor<4xi16>
  %n16 = linalg.reduce ins(%c16 : tensor<4x16xi16>) outs(%f416 : tensor<4xi16>) dimensions = [1]
    (%in: i16, %acc: i16) {
      %t = arith.minsi %in, %acc : i16
      linalg.yield %t : i16
    }
  // i1: the partial max input %p1 is returned replicated (all_reduce max);
  // a split one is negated and gathered.
  %true = arith.constant dense<true> : tensor<16xi1>
  %q1n = arith.xori %q1, %true : tensor<16xi1>
  // An or over the split dim of i1: the collectives' max on i1 is an or, so
  // the partial results are combined by an all_reduce max.
  %f1 = arith.constant false
  %e41 = tensor.empty() : tensor<4xi1>
  %f41 = linalg.fill ins(%f1 : i1) outs(%e41 : tensor<4xi1>) -> tensor<4xi1>
  %or1 = linalg.reduce ins(%o1 : tensor<4x16xi1>) outs(%f41 : tensor<4xi1>) dimensions = [1]
    (%in: i1, %acc: i1) {
      %t = arith.ori %in, %acc : i1
      linalg.yield %t : i1
    }
  // f16 and bf16 matmuls, reduction dim split: all_reduce sum of 16-bit
  // floats.
  %zh = arith.constant 0.0 : f16
  %eh = tensor.empty() : tensor<8x16xf16>
  %fh = linalg.fill ins(%zh : f16) outs(%eh : tensor<8x16xf16>) -> tensor<8x16xf16>
  %mh = linalg.matmul ins(%h, %hw : tensor<8x32xf16>, tensor<32x16xf16>)
      outs(%fh : tensor<8x16xf16>) -> tensor<8x16xf16>
  %zb = arith.constant 0.0 : bf16
  %eb = tensor.empty() : tensor<8x16xbf16>
  %fb = linalg.fill ins(%zb : bf16) outs(%eb : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %mb = linalg.matmul ins(%b, %bw : tensor<8x32xbf16>, tensor<32x16xbf16>)
      outs(%fb : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  // f16 and bf16 split, replicated results: all_gather of 16-bit floats.
  %hg2 = arith.mulf %hg, %hg : tensor<16x4xf16>
  %bg2 = arith.addf %bg, %bg : tensor<4x16xbf16>
  // An f64 matmul, reduction dim split: all_reduce sum of f64.
  %zd = arith.constant 0.0 : f64
  %ed = tensor.empty() : tensor<4x4xf64>
  %fd = linalg.fill ins(%zd : f64) outs(%ed : tensor<4x4xf64>) -> tensor<4x4xf64>
  %md = linalg.matmul ins(%d, %dw : tensor<4x16xf64>, tensor<16x4xf64>)
      outs(%fd : tensor<4x4xf64>) -> tensor<4x4xf64>
  // i32 gathered; i64 summed over the split dim.
  %g32s = arith.addi %g32, %g32 : tensor<16xi32>
  %z64 = arith.constant 0 : i64
  %e464 = tensor.empty() : tensor<4xi64>
  %f464 = linalg.fill ins(%z64 : i64) outs(%e464 : tensor<4xi64>) -> tensor<4xi64>
  %s64 = linalg.reduce ins(%r64 : tensor<4x16xi64>) outs(%f464 : tensor<4xi64>) dimensions = [1]
    (%in: i64, %acc: i64) {
      %t = arith.addi %in, %acc : i64
      linalg.yield %t : i64
    }
  return %m8, %p8d, %s8, %x8m, %g16s, %c16m, %n16, %p1, %q1n, %or1,
         %mh, %mb, %hg2, %bg2, %md, %g32s, %s64
      : tensor<8x8xi8>, tensor<8xi8>, tensor<4xi8>, tensor<4xi8>,
        tensor<16xi16>, tensor<4x16xi16>, tensor<4xi16>,
        tensor<8xi1>, tensor<16xi1>, tensor<4xi1>,
        tensor<8x16xf16>, tensor<8x16xbf16>, tensor<16x4xf16>, tensor<4x16xbf16>,
        tensor<4x4xf64>, tensor<16xi32>, tensor<4xi64>
}

//--- mesh2d.mlir
// On a 2-D mesh the collectives run on one axis of two, or on both.
dist.mesh @mesh2 [dp = 2, mp = 2]

func.func @dtypes_collectives_2d(
    %h: tensor<8x32xf16> {dist.sharding = #dist.sharding<@mesh2, [{dp}, {mp}]>},
    %hw: tensor<32x16xf16> {dist.sharding = #dist.sharding<@mesh2, [{mp}, {}]>},
    %b: tensor<8x32xbf16> {dist.sharding = #dist.sharding<@mesh2, [{}, {dp, mp}]>},
    %bw: tensor<32x16xbf16> {dist.sharding = #dist.sharding<@mesh2, [{dp, mp}, {}]>},
    %p8: tensor<8x16xi8> {dist.input_range = array<i64: -100, 100>,
                          dist.sharding = #dist.sharding<@mesh2, [{}, {mp}], partial = sum{dp}>},
    %g16: tensor<16x8xi16> {dist.input_range = array<i64: -1000, 1000>,
                            dist.sharding = #dist.sharding<@mesh2, [{mp}, {dp}]>},
    %p1: tensor<16xi1> {dist.sharding = #dist.sharding<@mesh2, [{dp}], partial = max{mp}>})
    -> (tensor<8x16xf16> {dist.sharding = #dist.sharding<@mesh2, [{dp}, {}]>},
        tensor<8x16xbf16> {dist.sharding = #dist.sharding<@mesh2, [{}, {dp, mp}]>},
        tensor<8x16xi8> {dist.sharding = #dist.sharding<@mesh2, [{}, {mp}]>},
        tensor<16x8xi16> {dist.sharding = #dist.sharding<@mesh2, [{}, {}]>},
        tensor<16xi1> {dist.sharding = #dist.sharding<@mesh2, [{}]>}) {
  // f16: partial sums over mp, all_reduce on mp only.
  %zh = arith.constant 0.0 : f16
  %eh = tensor.empty() : tensor<8x16xf16>
  %fh = linalg.fill ins(%zh : f16) outs(%eh : tensor<8x16xf16>) -> tensor<8x16xf16>
  %mh = linalg.matmul ins(%h, %hw : tensor<8x32xf16>, tensor<32x16xf16>)
      outs(%fh : tensor<8x16xf16>) -> tensor<8x16xf16>
  // bf16: partial sums over both axes, result split over both: reduce_scatter.
  %zb = arith.constant 0.0 : bf16
  %eb = tensor.empty() : tensor<8x16xbf16>
  %fb = linalg.fill ins(%zb : bf16) outs(%eb : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %mb = linalg.matmul ins(%b, %bw : tensor<8x32xbf16>, tensor<32x16xbf16>)
      outs(%fb : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  // i8 partial over dp, split over mp: -x on each rank (linear), all_reduce
  // sum over dp.
  %p8d = arith.subi %p8, %p8 : tensor<8x16xi8>
  %p8e = arith.subi %p8d, %p8 : tensor<8x16xi8>
  // i16 split over both axes, gathered on both.
  %g = arith.muli %g16, %g16 : tensor<16x8xi16>
  // i1 partial max over mp, split over dp: all_reduce max on mp, then gathered.
  return %mh, %mb, %p8e, %g, %p1
      : tensor<8x16xf16>, tensor<8x16xbf16>, tensor<8x16xi8>, tensor<16x8xi16>, tensor<16xi1>
}
