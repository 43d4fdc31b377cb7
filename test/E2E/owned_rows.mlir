// End-to-end: slices that lie inside one block of a split dim are read and
// written without a collective (ranged dims). A read of one row of a
// buffer split by rows over x is owned by that row's rank; computing on it
// and writing it back runs on that rank alone (an scf.if), the others keep
// their rows. With blocks of two rows, the read moves into the block (row 3
// is row 1 of rank 1's block). A slice across two blocks still gathers.
// Each must match the serial run.

// RUN: dist-run %s --entry update_row | FileCheck %s --check-prefix=VERDICT
// RUN: dist-run %s --entry update_in_block | FileCheck %s --check-prefix=VERDICT
// RUN: dist-run %s --entry across_blocks | FileCheck %s --check-prefix=VERDICT
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s
// RUN: dist-opt %s --dist-auto-partition | dist-opt --dist-comm-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMM

// VERDICT-NOT: FAIL
// VERDICT: PASS: {{[0-9]+}} of {{[0-9]+}} result(s) match the serial run

dist.mesh @mesh [x = 4]

// CHECK-LABEL: func.func @update_row
// CHECK-SAME: tensor<1x6xf32>
// CHECK-NOT: dist.all_gather
// CHECK: %[[RANK:.*]] = dist.process_index on @mesh [x] : index
// CHECK: %[[IS2:.*]] = arith.cmpi eq, %[[RANK]], %c2
// CHECK: %[[NEW:.*]] = scf.if %[[IS2]] -> (tensor<1x6xf32>) {
// CHECK-NEXT: tensor.extract_slice %arg0[0, 1] [1, 4] [1, 1] : tensor<1x6xf32> to tensor<4xf32>
// CHECK: tensor.insert_slice %{{.*}} into %arg0[0, 1] [1, 4] [1, 1] : tensor<4xf32> into tensor<1x6xf32>
// CHECK: } else {
// CHECK-NEXT: scf.yield %arg0 : tensor<1x6xf32>
// CHECK: return %[[NEW]]
func.func @update_row(%pool: tensor<4x6xf32> {dist.sharding = #dist.sharding<@mesh, [{x}, {}]>},
                      %g: tensor<4xf32>)
    -> (tensor<4x6xf32> {dist.sharding = #dist.sharding<@mesh, [{x}, {}]>}) {
  %row = tensor.extract_slice %pool[2, 1] [1, 4] [1, 1] : tensor<4x6xf32> to tensor<4xf32>
  %scaled = arith.mulf %row, %g : tensor<4xf32>
  %next = arith.addf %scaled, %row : tensor<4xf32>
  %written = tensor.insert_slice %next into %pool[2, 1] [1, 4] [1, 1] : tensor<4xf32> into tensor<4x6xf32>
  %pinned = dist.annotate %written as <@mesh, [{x}, {}]> : tensor<4x6xf32>
  return %pinned : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @update_in_block
// CHECK-NOT: dist.all_gather
// CHECK: arith.cmpi eq, %{{.*}}, %c1
// CHECK: tensor.extract_slice %arg0[1, 2] [1, 3] [1, 1] : tensor<2x6xf32> to tensor<3xf32>
// CHECK: tensor.insert_slice %{{.*}} into %arg0[1, 2] [1, 3] [1, 1] : tensor<3xf32> into tensor<2x6xf32>
func.func @update_in_block(%pool: tensor<8x6xf32> {dist.sharding = #dist.sharding<@mesh, [{x}, {}]>})
    -> (tensor<8x6xf32> {dist.sharding = #dist.sharding<@mesh, [{x}, {}]>}) {
  %part = tensor.extract_slice %pool[3, 2] [1, 3] [1, 1] : tensor<8x6xf32> to tensor<3xf32>
  %squared = arith.mulf %part, %part : tensor<3xf32>
  %written = tensor.insert_slice %squared into %pool[3, 2] [1, 3] [1, 1] : tensor<3xf32> into tensor<8x6xf32>
  %pinned = dist.annotate %written as <@mesh, [{x}, {}]> : tensor<8x6xf32>
  return %pinned : tensor<8x6xf32>
}

// CHECK-LABEL: func.func @across_blocks
// CHECK: dist.all_gather
func.func @across_blocks(%pool: tensor<4x6xf32> {dist.sharding = #dist.sharding<@mesh, [{x}, {}]>})
    -> tensor<2x6xf32> {
  %rows = tensor.extract_slice %pool[1, 0] [2, 6] [1, 1] : tensor<4x6xf32> to tensor<2x6xf32>
  %doubled = arith.addf %rows, %rows : tensor<2x6xf32>
  return %doubled : tensor<2x6xf32>
}

// COMM: dist.all_gather over [x] (4 ranks)
// COMM: dist-comm-report: 1 collective;
