// RUN: dist-opt %s --dist-lower-to-llvm=blas=false | FileCheck %s
// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s --check-prefix=BLAS

// Tests that the CPU pipeline takes a per-rank program on tensors all the
// way to the LLVM dialect: softmax decomposed, elementwise arith on tensors
// turned into loops (softmax's exp a polynomial), buffers freed, the collective a runtime call, the mesh
// and the partitioning attributes gone. Without a BLAS the matmul is register
// tiles of FMAs on vectors (dist-vectorize-matmul), not scalar loops.
// CHECK-NOT: dist.
// CHECK-LABEL: llvm.func @block
// CHECK: llvm.call @malloc
// CHECK: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK: llvm.call @dist_get_group
// CHECK: llvm.call @dist_all_reduce
// CHECK-NOT: llvm.intr.exp
// CHECK: llvm.intr.fma
// CHECK: llvm.call @free
// CHECK-NOT: memref.
// CHECK-NOT: linalg.
// CHECK-NOT: llvm.call @cblas_sgemm
// CHECK-DAG: llvm.func @dist_all_reduce(!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr) attributes {dist.stream_argument = 5 : i64, sym_visibility = "private"}
// CHECK-DAG: llvm.func @dist_get_group(!llvm.ptr, i32, !llvm.ptr, i32, i32) -> !llvm.ptr attributes {dist.no_stream_sync, sym_visibility = "private"}
// BLAS-LABEL: llvm.func @block
// BLAS: llvm.call @cblas_sgemm
// BLAS-NOT: llvm.intr.fmuladd
dist.mesh @mesh_4 [mp = 4]
func.func @block(%x: tensor<8x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {mp}]>},
                 %w: tensor<16x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{mp}, {}]>})
    -> (tensor<8x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_4, [{}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = dist.all_reduce %y on @mesh_4 [mp] sum : tensor<8x16xf32>
  %h = arith.mulf %r, %r : tensor<8x16xf32>
  %s = linalg.softmax dimension(1) ins(%h : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}
