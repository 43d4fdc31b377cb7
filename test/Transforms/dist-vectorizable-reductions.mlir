// RUN: dist-opt %s --dist-vectorizable-reductions | FileCheck %s
// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s --check-prefix=LLVM

#in_t = affine_map<(d0, d1) -> (d1, d0)>
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>

// A bias gradient: out[j] = sum_i dy[i][j]. The loop over j walks dy
// contiguously and moves innermost; the add may reassociate.
func.func @column_sum(%dy: tensor<512x64xf32>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%init : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#in_t, #out], iterator_types = ["parallel", "reduction"]}
      ins(%dy : tensor<512x64xf32>) outs(%zeros : tensor<64xf32>) attrs = {dist.role = #dist.role<backward>} {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[INNER:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[OUTER:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @column_sum
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[INNER]]], iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<512x64xf32>)
// CHECK-SAME: dist.role = #dist.role<backward>
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32

// LLVM-LABEL: llvm.func @column_sum
// LLVM: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<reassoc>} : f32

// A row maximum (softmax): its loop order is already contiguous; the max
// may reassociate. Other flags on the combiner stay.
func.func @row_max(%x: tensor<8x128xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %m = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x128xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %acc, %v fastmath<nnan> : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %m : tensor<8xf32>
}
// CHECK-LABEL: func.func @row_max
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[OUTER]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc,nnan> : f32

// A fused body (sum of squares): only the combining add is flagged.
func.func @sum_of_squares(%x: tensor<8x128xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %m = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x128xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %m : tensor<8xf32>
}
// CHECK-LABEL: func.func @sum_of_squares
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32

// Elementwise ops are left alone, even with a transposed input.
func.func @elementwise(%x: tensor<8x16xf32>, %init: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %r = linalg.generic {indexing_maps = [#in_t, #in], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%init : tensor<16x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.addf %v, %v : f32
    linalg.yield %n : f32
  } -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
// CHECK-LABEL: func.func @elementwise
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
