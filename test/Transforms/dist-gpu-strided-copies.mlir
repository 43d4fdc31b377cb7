// RUN: dist-opt %s --dist-gpu-strided-copies | FileCheck %s

// A copy into a column of a matrix (strided), out of a slice at a dynamic
// offset (contiguous, but a view: upstream's gpu.memcpy lowering refuses
// it), and between whole buffers (kept: one transfer after dist-gpu-allocs).
// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[TILE:.*]]: memref<8x1xf32>, %[[COL:.*]]: memref<8x1xf32, strided<[4, 1], offset: 2>>, %[[ROW:.*]]: memref<1x8xf32, strided<[8, 1], offset: ?>>, %[[A:.*]]: memref<1x8xf32>, %[[B:.*]]: memref<1x8xf32>)
// CHECK-NEXT: linalg.copy ins(%[[TILE]] : memref<8x1xf32>) outs(%[[COL]] : memref<8x1xf32, strided<[4, 1], offset: 2>>)
// CHECK-NEXT: linalg.copy ins(%[[ROW]] : memref<1x8xf32, strided<[8, 1], offset: ?>>) outs(%[[A]] : memref<1x8xf32>)
// CHECK-NEXT: memref.copy %[[A]], %[[B]] : memref<1x8xf32> to memref<1x8xf32>
// CHECK-NEXT: return
func.func @copies(%tile: memref<8x1xf32>, %column: memref<8x1xf32, strided<[4, 1], offset: 2>>,
                  %row: memref<1x8xf32, strided<[8, 1], offset: ?>>,
                  %a: memref<1x8xf32>, %b: memref<1x8xf32>) {
  memref.copy %tile, %column : memref<8x1xf32> to memref<8x1xf32, strided<[4, 1], offset: 2>>
  memref.copy %row, %a : memref<1x8xf32, strided<[8, 1], offset: ?>> to memref<1x8xf32>
  memref.copy %a, %b : memref<1x8xf32> to memref<1x8xf32>
  return
}

// Unranked buffers are left (no loops to copy them with).
// CHECK-LABEL: func.func @unranked
// CHECK-NEXT: memref.copy
func.func @unranked(%a: memref<*xf32>, %b: memref<*xf32>) {
  memref.copy %a, %b : memref<*xf32> to memref<*xf32>
  return
}
