// The register-tiled matmuls of dist-vectorize-matmul compute what loops
// compute: an f32 matmul whose tile sizes divide the shape (24x40: tiles of
// 8x20), one where they cannot (13 rows: tiles of one row of 32), an i32
// batch_matmul (12x48: tiles of 6x24), and f16 -> f32 and signed i8 -> i32
// matmuls, each against the same product written as a linalg.generic (which
// the pass leaves to the loop lowering). The
// inputs are small integers, so every sum is exact and the results must be
// equal; the checksums show the products are not trivially zero.

// RUN: dist-opt %s --dist-lower-to-llvm=blas=false | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: %clang -O1 -Wno-override-module %t.ll -o %t.exe -L%mlir_lib_dir -lmlir_c_runner_utils -Wl,-rpath,%mlir_lib_dir
// RUN: %t.exe | FileCheck %s
// RUN: dist-opt %s --dist-lower-to-llvm=blas=false | FileCheck %s --check-prefix=IR

// The three products are vector code: 8x20 tiles (8 FMAs a step), 1x32
// tiles, and 6x24 tiles of i32 multiply-adds.
// IR-COUNT-8: llvm.intr.fmuladd({{.*}}) : (vector<20xf32>, vector<20xf32>, vector<20xf32>) -> vector<20xf32>
// IR: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// IR-COUNT-6: llvm.mul {{.*}} : vector<24xi32>

// CHECK: 0
// CHECK-NEXT: 242
// CHECK-NEXT: 0
// CHECK-NEXT: 9
// CHECK-NEXT: 0
// CHECK-NEXT: -40
// CHECK-NEXT: 0
// CHECK-NEXT: 0

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bkn = affine_map<(b, m, n, k) -> (b, k, n)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>
#id2 = affine_map<(i, j) -> (i, j)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>

/// Element (i, j) = (i * 3 + j * 5 + seed) mod 7 - 3: integers in [-3, 3].
func.func @fill2(%t: tensor<?x?xf32>, %seed: index) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%t : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %a = arith.muli %i, %c3 : index
    %b = arith.muli %j, %c5 : index
    %s0 = arith.addi %a, %b : index
    %s = arith.addi %s0, %seed : index
    %m = arith.remui %s, %c7 : index
    %v0 = arith.subi %m, %c3 : index
    %v1 = arith.index_cast %v0 : index to i64
    %v = arith.sitofp %v1 : i64 to f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @fill3(%t: tensor<?x?x?xi32>) -> tensor<?x?x?xi32> {
  %r = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]} outs(%t : tensor<?x?x?xi32>) {
  ^bb0(%out: i32):
    %b = linalg.index 0 : index
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c2 = arith.constant 2 : index
    %c7 = arith.constant 7 : index
    %c11 = arith.constant 11 : index
    %c5 = arith.constant 5 : index
    %x = arith.muli %b, %c7 : index
    %y = arith.muli %i, %c2 : index
    %s0 = arith.addi %x, %y : index
    %s = arith.addi %s0, %j : index
    %m = arith.remui %s, %c11 : index
    %v0 = arith.subi %m, %c5 : index
    %v = arith.index_cast %v0 : index to i32
    linalg.yield %v : i32
  } -> tensor<?x?x?xi32>
  return %r : tensor<?x?x?xi32>
}

/// Prints sum |vectorized - loops| and the checksum sum(vectorized).
func.func @compare_f32(%m: index, %n: index, %k: index) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ea = tensor.empty(%m, %k) : tensor<?x?xf32>
  %eb = tensor.empty(%k, %n) : tensor<?x?xf32>
  %a_dyn = func.call @fill2(%ea, %c1) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  %b_dyn = func.call @fill2(%eb, %c2) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  %ec = tensor.empty(%m, %n) : tensor<?x?xf32>
  %c_dyn = linalg.fill ins(%zero : f32) outs(%ec : tensor<?x?xf32>) -> tensor<?x?xf32>
  // The loops' product, on dynamic shapes.
  %ref = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a_dyn, %b_dyn : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c_dyn : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %diff, %sum = func.call @vectorized_f32(%a_dyn, %b_dyn, %c_dyn, %ref) : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> (f32, f32)
  func.call @printF32(%diff) : (f32) -> ()
  func.call @printNewline() : () -> ()
  func.call @printF32(%sum) : (f32) -> ()
  func.call @printNewline() : () -> ()
  return
}

/// The static-shape matmuls the pass vectorizes, selected by the shape.
func.func @vectorized_f32(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %ref: tensor<?x?xf32>) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %c24 = arith.constant 24 : index
  %is24 = arith.cmpi eq, %m, %c24 : index
  %r = scf.if %is24 -> tensor<?x?xf32> {
    %as = tensor.cast %a : tensor<?x?xf32> to tensor<24x37xf32>
    %bs = tensor.cast %b : tensor<?x?xf32> to tensor<37x40xf32>
    %cs = tensor.cast %c : tensor<?x?xf32> to tensor<24x40xf32>
    %p = linalg.matmul ins(%as, %bs : tensor<24x37xf32>, tensor<37x40xf32>) outs(%cs : tensor<24x40xf32>) -> tensor<24x40xf32>
    %pd = tensor.cast %p : tensor<24x40xf32> to tensor<?x?xf32>
    scf.yield %pd : tensor<?x?xf32>
  } else {
    %as = tensor.cast %a : tensor<?x?xf32> to tensor<13x9xf32>
    %bs = tensor.cast %b : tensor<?x?xf32> to tensor<9x64xf32>
    %cs = tensor.cast %c : tensor<?x?xf32> to tensor<13x64xf32>
    %p = linalg.matmul ins(%as, %bs : tensor<13x9xf32>, tensor<9x64xf32>) outs(%cs : tensor<13x64xf32>) -> tensor<13x64xf32>
    %pd = tensor.cast %p : tensor<13x64xf32> to tensor<?x?xf32>
    scf.yield %pd : tensor<?x?xf32>
  }
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %d = linalg.generic {indexing_maps = [#id2, #id2, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%r, %ref : tensor<?x?xf32>, tensor<?x?xf32>) outs(%z : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %s = arith.subf %x, %y : f32
    %abs = math.absf %s : f32
    %t = arith.addf %acc, %abs : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%r : tensor<?x?xf32>) outs(%z : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %t = arith.addf %acc, %x : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %d0 = tensor.extract %d[] : tensor<f32>
  %s0 = tensor.extract %sum[] : tensor<f32>
  return %d0, %s0 : f32, f32
}

/// batch_matmul on i32 (2 batches of 12x9 times 9x48) against loops.
func.func @compare_i32() {
  %zero = arith.constant 0 : i32
  %c2 = arith.constant 2 : index
  %c9 = arith.constant 9 : index
  %c12 = arith.constant 12 : index
  %c48 = arith.constant 48 : index
  %ea = tensor.empty(%c2, %c12, %c9) : tensor<?x?x?xi32>
  %eb = tensor.empty(%c2, %c9, %c48) : tensor<?x?x?xi32>
  %a_dyn = func.call @fill3(%ea) : (tensor<?x?x?xi32>) -> tensor<?x?x?xi32>
  %b_dyn = func.call @fill3(%eb) : (tensor<?x?x?xi32>) -> tensor<?x?x?xi32>
  %a = tensor.cast %a_dyn : tensor<?x?x?xi32> to tensor<2x12x9xi32>
  %b = tensor.cast %b_dyn : tensor<?x?x?xi32> to tensor<2x9x48xi32>
  %e = tensor.empty() : tensor<2x12x48xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<2x12x48xi32>) -> tensor<2x12x48xi32>
  %p = linalg.batch_matmul ins(%a, %b : tensor<2x12x9xi32>, tensor<2x9x48xi32>) outs(%c : tensor<2x12x48xi32>) -> tensor<2x12x48xi32>
  %ref = linalg.generic {indexing_maps = [#bmk, #bkn, #bmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x12x9xi32>, tensor<2x9x48xi32>) outs(%c : tensor<2x12x48xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %m = arith.muli %x, %y : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  } -> tensor<2x12x48xi32>
  %zero64 = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<i64>
  %z = linalg.fill ins(%zero64 : i64) outs(%e0 : tensor<i64>) -> tensor<i64>
  %d = linalg.generic {indexing_maps = [#id3, #id3, affine_map<(b, i, j) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%p, %ref : tensor<2x12x48xi32>, tensor<2x12x48xi32>) outs(%z : tensor<i64>) {
  ^bb0(%x: i32, %y: i32, %acc: i64):
    %s = arith.subi %x, %y : i32
    %abs = math.absi %s : i32
    %w = arith.extsi %abs : i32 to i64
    %t = arith.addi %acc, %w : i64
    linalg.yield %t : i64
  } -> tensor<i64>
  %sum = linalg.generic {indexing_maps = [#id3, affine_map<(b, i, j) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%p : tensor<2x12x48xi32>) outs(%z : tensor<i64>) {
  ^bb0(%x: i32, %acc: i64):
    %w = arith.extsi %x : i32 to i64
    %t = arith.addi %acc, %w : i64
    linalg.yield %t : i64
  } -> tensor<i64>
  %d0 = tensor.extract %d[] : tensor<i64>
  %s0 = tensor.extract %sum[] : tensor<i64>
  func.call @printI64(%d0) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%s0) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

/// Narrow operands, wide result: f16 x f16 -> f32 and i8 x i8 -> i32 (signed:
/// the operands hold negative values), 16x8 times 8x32, against loops.
/// Prints sum |vectorized - loops| for each.
func.func @compare_mixed() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %ea = tensor.empty(%c16, %c8) : tensor<?x?xf32>
  %eb = tensor.empty(%c8, %c32) : tensor<?x?xf32>
  %a_dyn = func.call @fill2(%ea, %c1) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  %b_dyn = func.call @fill2(%eb, %c2) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  %a = tensor.cast %a_dyn : tensor<?x?xf32> to tensor<16x8xf32>
  %b = tensor.cast %b_dyn : tensor<?x?xf32> to tensor<8x32xf32>
  %a16 = arith.truncf %a : tensor<16x8xf32> to tensor<16x8xf16>
  %b16 = arith.truncf %b : tensor<8x32xf32> to tensor<8x32xf16>
  %ai = arith.fptosi %a : tensor<16x8xf32> to tensor<16x8xi8>
  %bi = arith.fptosi %b : tensor<8x32xf32> to tensor<8x32xi8>
  %zf = arith.constant 0.0 : f32
  %zi = arith.constant 0 : i32
  %ef = tensor.empty() : tensor<16x32xf32>
  %ei = tensor.empty() : tensor<16x32xi32>
  %cf = linalg.fill ins(%zf : f32) outs(%ef : tensor<16x32xf32>) -> tensor<16x32xf32>
  %ci = linalg.fill ins(%zi : i32) outs(%ei : tensor<16x32xi32>) -> tensor<16x32xi32>
  %pf = linalg.matmul ins(%a16, %b16 : tensor<16x8xf16>, tensor<8x32xf16>) outs(%cf : tensor<16x32xf32>) -> tensor<16x32xf32>
  %rf = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a16, %b16 : tensor<16x8xf16>, tensor<8x32xf16>) outs(%cf : tensor<16x32xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xw = arith.extf %x : f16 to f32
    %yw = arith.extf %y : f16 to f32
    %p = arith.mulf %xw, %yw : f32
    %t = arith.addf %acc, %p : f32
    linalg.yield %t : f32
  } -> tensor<16x32xf32>
  %pi = linalg.matmul ins(%ai, %bi : tensor<16x8xi8>, tensor<8x32xi8>) outs(%ci : tensor<16x32xi32>) -> tensor<16x32xi32>
  %ri = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ai, %bi : tensor<16x8xi8>, tensor<8x32xi8>) outs(%ci : tensor<16x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extsi %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %t = arith.addi %acc, %p : i32
    linalg.yield %t : i32
  } -> tensor<16x32xi32>
  // Both differences as f32: |pf - rf| + |pi - ri|, summed separately.
  %e0 = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zf : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %d = linalg.generic {indexing_maps = [#id2, #id2, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%pf, %rf : tensor<16x32xf32>, tensor<16x32xf32>) outs(%z : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %s = arith.subf %x, %y : f32
    %abs = math.absf %s : f32
    %t = arith.addf %acc, %abs : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %di = linalg.generic {indexing_maps = [#id2, #id2, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%pi, %ri : tensor<16x32xi32>, tensor<16x32xi32>) outs(%z : tensor<f32>) {
  ^bb0(%x: i32, %y: i32, %acc: f32):
    %s = arith.subi %x, %y : i32
    %abs = math.absi %s : i32
    %w = arith.sitofp %abs : i32 to f32
    %t = arith.addf %acc, %w : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %d0 = tensor.extract %d[] : tensor<f32>
  %di0 = tensor.extract %di[] : tensor<f32>
  func.call @printF32(%d0) : (f32) -> ()
  func.call @printNewline() : () -> ()
  func.call @printF32(%di0) : (f32) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func private @printF32(f32)
func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() -> i32 {
  %c9 = arith.constant 9 : index
  %c13 = arith.constant 13 : index
  %c24 = arith.constant 24 : index
  %c37 = arith.constant 37 : index
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  func.call @compare_f32(%c24, %c40, %c37) : (index, index, index) -> ()
  func.call @compare_f32(%c13, %c64, %c9) : (index, index, index) -> ()
  func.call @compare_i32() : () -> ()
  func.call @compare_mixed() : () -> ()
  %ok = arith.constant 0 : i32
  return %ok : i32
}
