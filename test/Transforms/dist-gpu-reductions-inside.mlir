// RUN: dist-opt %s --dist-gpu-reductions-inside | FileCheck %s

// Tests that an op with a reduction dimension before a parallel one gets
// its parallel dimensions first (each group keeping its order, the maps
// and linalg.index renumbered), a named op generalized first; and that ops
// whose reductions are innermost already, or that have no reduction, stay.

// A column sum (a bias gradient): rows are reduced, columns parallel.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @column_sum
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[COL]]], iterator_types = ["parallel", "reduction"]}
#x = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @column_sum(%x: memref<8192x64xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [#x, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<8192x64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// Reduction, parallel, reduction, parallel: [1, 3, 0, 2]; linalg.index 1
// (the first parallel dimension) becomes index 0.
// CHECK-LABEL: func.func @mixed
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: linalg.index 0 : index
#in4 = affine_map<(a, b, c, d) -> (a, b, c, d)>
#out2 = affine_map<(a, b, c, d) -> (b, d)>
func.func @mixed(%x: memref<2x3x4x5xf32>, %out: memref<3x5xf32>) {
  linalg.generic {indexing_maps = [#in4, #out2], iterator_types = ["reduction", "parallel", "reduction", "parallel"]}
      ins(%x : memref<2x3x4x5xf32>) outs(%out : memref<3x5xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %f = arith.index_cast %i : index to i32
    %g = arith.sitofp %f : i32 to f32
    %p = arith.mulf %a, %g : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// A named reduction over the first dimension is generalized.
// CHECK-LABEL: func.func @named
// CHECK-NOT: linalg.reduce
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
func.func @named(%x: memref<16x8xf32>, %out: memref<8xf32>) {
  linalg.reduce ins(%x : memref<16x8xf32>) outs(%out : memref<8xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// Left: a row sum (reduction innermost), an elementwise op, a matmul.
// CHECK-LABEL: func.func @left
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: linalg.fill
// CHECK: linalg.matmul
#row = affine_map<(i, j) -> (i)>
func.func @left(%x: memref<8x64xf32>, %rows: memref<8xf32>, %a: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%rows : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
