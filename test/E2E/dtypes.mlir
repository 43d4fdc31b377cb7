// dist-run's inputs, outputs and comparison for every element type it
// supports: f16, bf16, f32, f64, i1, i8, i16, i32 and i64, as tensors and as
// scalars. The layouts split rows or replicate, so the distributed run needs
// no collective on the narrow types. f16 and bf16 results are judged against
// the f64 reference; f64 and integer results elementwise.
//
// dtypes_collectives.mlir sends these types through real collectives (a
// partial i8 input reduced by a sum, i16 and i1 all_gathers, an i1 max,
// f16/bf16 matmuls whose reduction dim is split, ...) on 2, 4 and 8 ranks.

// RUN: dist-run %s | FileCheck %s
// CHECK: dist-run: @dtypes on 2 rank(s), mesh @mesh_2 [a = 2]
// CHECK-NEXT: result #0 tensor<8x16xf16> {{.*}} error vs f64 reference: {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 tensor<8x4xbf16> {{.*}} error vs f64 reference: {{.*}}: PASS{{$}}
// CHECK-NEXT: result #2 tensor<8xi8> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #3 tensor<8xi16> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #4 tensor<8xi1> {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #5 tensor<8xf64> {{.*}}: max abs err {{.*}}: PASS{{$}}
// CHECK-NEXT: result #6 i64 {{.*}}: max abs err 0.00e+00, max rel err 0.00e+00: PASS{{$}}
// CHECK-NEXT: result #7 f16 {{.*}} error vs f64 reference: {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 8 of 8 result(s) match the serial run

// A corrupted rank is caught on an f16 result too.
// RUN: not dist-run %s --corrupt-rank=1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: result #0 tensor<8x16xf16> {{.*}}: FAIL{{$}}
// CORRUPT: FAIL: 7 of 8 result(s) match the serial run

dist.mesh @mesh_2 [a = 2]

func.func @dtypes(
    %h: tensor<8x32xf16> {dist.sharding = #dist.sharding<@mesh_2, [{a}, {}]>},
    %hw: tensor<32x16xf16>,
    %b: tensor<8x4xbf16> {dist.sharding = #dist.sharding<@mesh_2, [{a}, {}]>},
    %i8: tensor<8xi8> {dist.input_range = array<i64: -100, 100>,
                       dist.sharding = #dist.sharding<@mesh_2, [{a}]>},
    %i16: tensor<8xi16> {dist.input_range = array<i64: -1000, 1000>},
    %p: tensor<8xi1> {dist.sharding = #dist.sharding<@mesh_2, [{a}]>},
    %d: tensor<8xf64> {dist.sharding = #dist.sharding<@mesh_2, [{a}]>},
    %n: i64 {dist.input_range = array<i64: 0, 1000>},
    %s: f16)
    -> (tensor<8x16xf16> {dist.sharding = #dist.sharding<@mesh_2, [{a}, {}]>},
        tensor<8x4xbf16> {dist.sharding = #dist.sharding<@mesh_2, [{a}, {}]>},
        tensor<8xi8> {dist.sharding = #dist.sharding<@mesh_2, [{a}]>},
        tensor<8xi16>,
        tensor<8xi1> {dist.sharding = #dist.sharding<@mesh_2, [{a}]>},
        tensor<8xf64> {dist.sharding = #dist.sharding<@mesh_2, [{a}]>},
        i64, f16) {
  // A matmul in f16 whose rows are split: each rank computes its rows.
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x16xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<8x16xf16>) -> tensor<8x16xf16>
  %mm = linalg.matmul ins(%h, %hw : tensor<8x32xf16>, tensor<32x16xf16>)
      outs(%z : tensor<8x16xf16>) -> tensor<8x16xf16>
  %b2 = arith.mulf %b, %b : tensor<8x4xbf16>
  // i8 wraps around: 2 * 100 is -56.
  %i8s = arith.addi %i8, %i8 : tensor<8xi8>
  %i16s = arith.muli %i16, %i16 : tensor<8xi16>
  %true = arith.constant dense<true> : tensor<8xi1>
  %np = arith.xori %p, %true : tensor<8xi1>
  %d2 = arith.mulf %d, %d : tensor<8xf64>
  %c3 = arith.constant 3 : i64
  %n3 = arith.muli %n, %c3 : i64
  %s2 = arith.mulf %s, %s : f16
  return %mm, %b2, %i8s, %i16s, %np, %d2, %n3, %s2
      : tensor<8x16xf16>, tensor<8x4xbf16>, tensor<8xi8>, tensor<8xi16>,
        tensor<8xi1>, tensor<8xf64>, i64, f16
}
