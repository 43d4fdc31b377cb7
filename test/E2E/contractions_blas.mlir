// Contractions that dist-matmul-to-blas turns into cblas_sgemm calls (batch
// loops, transposed operands, a column-major result) compute what the loop
// lowering computes: dist-run with and without BLAS on the same inputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: dist-run %s --keep --work-dir %t/blas | FileCheck %s
// RUN: dist-run %s --keep --work-dir %t/loops --blas=false | FileCheck %s
// All four are BLAS calls:
// RUN: dist-opt %s --dist-strip-annotations --dist-lower-to-llvm | grep -c "call @cblas_sgemm" | FileCheck %s --check-prefix=CALLS
// CALLS: 4
// RUN: %python %S/../Training/compare_raw.py \
// RUN:   f32 %t/loops/result0.step1.serial.bin %t/blas/result0.step1.serial.bin \
// RUN:   f32 %t/loops/result1.step1.serial.bin %t/blas/result1.step1.serial.bin \
// RUN:   f32 %t/loops/result2.step1.serial.bin %t/blas/result2.step1.serial.bin \
// RUN:   f32 %t/loops/result3.step1.serial.bin %t/blas/result3.step1.serial.bin \
// RUN:   f32 %t/loops/result3.step1.rank1.bin %t/blas/result3.step1.rank1.bin | FileCheck %s --check-prefix=SAME
// CHECK: PASS: 4 of 4 result(s) match the serial run
// SAME: PASS: all pairs equal

#q = affine_map<(b, a, i, j, d) -> (b, i, a, d)>
#k = affine_map<(b, a, i, j, d) -> (b, j, a, d)>
#s = affine_map<(b, a, i, j, d) -> (b, a, i, j)>
#bik = affine_map<(b, i, j, k) -> (b, i, k)>
#bkj = affine_map<(b, i, j, k) -> (b, k, j)>
#bji = affine_map<(b, i, j, k) -> (b, j, i)>
dist.mesh @mesh [dp = 2]
func.func @contractions(
    %q: tensor<2x16x4x8xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}, {}, {}]>},
    %k: tensor<2x16x4x8xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}, {}, {}]>},
    %x: tensor<2x12x6xf32>, %y: tensor<2x6x10xf32>)
    -> (tensor<2x4x16x16xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x10x12xf32>) {
  %zero = arith.constant 0.0 : f32
  // scores = q k^T per (b, a)
  %es = tensor.empty() : tensor<2x4x16x16xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %scores = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>) outs(%zs : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  // context = scores v ("baij,bjad->biad"), v = k
  %ec = tensor.empty() : tensor<2x16x4x8xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32>
  %context = linalg.generic {indexing_maps = [affine_map<(b, a, i, d, j) -> (b, a, i, j)>,
                                              affine_map<(b, a, i, d, j) -> (b, j, a, d)>,
                                              affine_map<(b, a, i, d, j) -> (b, i, a, d)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%scores, %k : tensor<2x4x16x16xf32>, tensor<2x16x4x8xf32>) outs(%zc : tensor<2x16x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4x8xf32>
  // dk = scores^T q ("baij,biad->bjad"): scores read transposed
  %dk = linalg.generic {indexing_maps = [affine_map<(b, a, j, d, i) -> (b, a, i, j)>,
                                         affine_map<(b, a, j, d, i) -> (b, i, a, d)>,
                                         affine_map<(b, a, j, d, i) -> (b, j, a, d)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%scores, %q : tensor<2x4x16x16xf32>, tensor<2x16x4x8xf32>) outs(%zc : tensor<2x16x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4x8xf32>
  // A column-major result: out[b, j, i] = sum_k x[b, i, k] y[b, k, j]
  %et = tensor.empty() : tensor<2x10x12xf32>
  %zt = linalg.fill ins(%zero : f32) outs(%et : tensor<2x10x12xf32>) -> tensor<2x10x12xf32>
  %t = linalg.generic {indexing_maps = [#bik, #bkj, #bji], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : tensor<2x12x6xf32>, tensor<2x6x10xf32>) outs(%zt : tensor<2x10x12xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x10x12xf32>
  return %scores, %context, %dk, %t : tensor<2x4x16x16xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x10x12xf32>
}
