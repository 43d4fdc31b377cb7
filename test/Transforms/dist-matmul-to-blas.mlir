// RUN: dist-opt %s --dist-matmul-to-blas | FileCheck %s
// RUN: dist-opt %s --dist-matmul-to-blas=library=cublas | FileCheck %s --check-prefix=CUBLAS

// With library=cublas the same calls go to dist's CUDA runtime (the CBLAS
// signature over cuBLAS, on device buffers), with a CUDA stream last: null
// (the host waits) until dist-gpu-streams, marked on the declaration.
// CUBLAS-LABEL: func.func @sgemm
// CUBLAS: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CUBLAS: call @dist_cublas_sgemm({{.*}}, %[[NULL]]) : (i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32, !llvm.ptr) -> ()
// CUBLAS-LABEL: func.func @dgemm_views
// CUBLAS: call @dist_cublas_dgemm
// CUBLAS-NOT: @cblas_


// Tests that an f32 matmul on buffers calls cblas_sgemm in row-major order
// (101), without transposes (111), M = 64, N = 16, K = 32, alpha = beta = 1
// (linalg.matmul accumulates into C), with each operand's row stride as its
// leading dimension.
// CHECK-LABEL: func.func @sgemm
// CHECK-SAME: (%[[A:.*]]: memref<64x32xf32>, %[[B:.*]]: memref<32x16xf32>, %[[C:.*]]: memref<64x16xf32>)
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK: %[[M:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[K:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[AP:.*]] = llvm.inttoptr
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[AS:[a-z_0-9]+]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[LDA:.*]] = arith.index_cast %[[AS]]#0 : index to i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// CHECK: call @cblas_sgemm(%[[ROW]], %[[NT]], %[[NT]]{{.*}}, %[[M]], %[[N]], %[[K]], %[[ONE]], %[[AP]], %[[LDA]], %{{.*}}, %{{.*}}, %[[ONE]], %{{.*}}, %{{.*}}) : (i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32) -> ()
// CHECK-NOT: linalg.matmul
func.func @sgemm(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Tests f64 (cblas_dgemm) on views whose rows are contiguous (row stride 32,
// an offset).
// CHECK-LABEL: func.func @dgemm_views
// CHECK: call @cblas_dgemm
// CHECK-NOT: linalg.matmul
func.func @dgemm_views(%a: memref<8x4xf64, strided<[32, 1], offset: 4>>, %b: memref<4x8xf64>,
                       %c: memref<8x8xf64, strided<[32, 1]>>) {
  linalg.matmul ins(%a, %b : memref<8x4xf64, strided<[32, 1], offset: 4>>, memref<4x8xf64>)
                outs(%c : memref<8x8xf64, strided<[32, 1]>>)
  return
}

// Tests what stays a loop nest: integer matmuls and tensors.
// CHECK-LABEL: func.func @unchanged
// CHECK-COUNT-2: linalg.matmul
// CHECK-NOT: call
// CHECK: return
func.func @unchanged(%ai: memref<4x4xi32>, %ci: memref<4x4xi32>,
                     %t: tensor<4x4xf32>) -> tensor<4x4xf32> {
  linalg.matmul ins(%ai, %ai : memref<4x4xi32>, memref<4x4xi32>) outs(%ci : memref<4x4xi32>)
  %r = linalg.matmul ins(%t, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%t : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// Tests contractions in other layouts: a column-major A (strides [1, 4])
// and a transposed map are read transposed (CblasTrans = 112, leading
// dimension 4).
// CHECK-LABEL: func.func @transposed
// CHECK: call @cblas_sgemm(%c101_i32{{[_0-9]*}}, %c112_i32{{[_0-9]*}}, %c111_i32{{[_0-9]*}}, %c4_i32{{[_0-9]*}}, %c4_i32{{[_0-9]*}}, %c4_i32{{[_0-9]*}}, %{{[^,]*}}, %{{[^,]*}}, %c4_i32{{[_0-9]*}}, %{{[^,]*}}, %c4_i32{{[_0-9]*}}, %{{[^,]*}}, %{{[^,]*}}, %c4_i32{{[_0-9]*}})
// CHECK: call @cblas_sgemm(%c101_i32{{[_0-9]*}}, %c112_i32{{[_0-9]*}}, %c111_i32{{[_0-9]*}},
// CHECK-NOT: linalg.matmul
func.func @transposed(%as: memref<4x4xf32, strided<[1, 4]>>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%as, %b : memref<4x4xf32, strided<[1, 4]>>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                ins(%b, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// Tests attention's scores, "biad,bjad->baij": batch loops over b and a,
// one sgemm each on Q (rows i, stride a*d = 32) times K transposed.
// CHECK-LABEL: func.func @attention_scores
// CHECK: scf.for %{{.*}} = %c0{{[_0-9]*}} to %c2{{[_0-9]*}} step %c1{{[_0-9]*}} {
// CHECK:   scf.for %{{.*}} = %c0{{[_0-9]*}} to %c4{{[_0-9]*}} step %c1{{[_0-9]*}} {
// CHECK:     call @cblas_sgemm(%c101_i32{{[_0-9]*}}, %c111_i32{{[_0-9]*}}, %c112_i32{{[_0-9]*}}, %c16_i32{{[_0-9]*}}, %c16_i32{{[_0-9]*}}, %c8_i32{{[_0-9]*}}, %{{[^,]*}}, %{{[^,]*}}, %c32_i32{{[_0-9]*}}, %{{[^,]*}}, %c32_i32{{[_0-9]*}}, %{{[^,]*}}, %{{[^,]*}}, %c16_i32{{[_0-9]*}})
// CHECK-NOT: linalg.generic
func.func @attention_scores(%q: memref<2x16x4x8xf32>, %k: memref<2x16x4x8xf32>, %s: memref<2x4x16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, a, i, j, d) -> (b, i, a, d)>,
                                   affine_map<(b, a, i, j, d) -> (b, j, a, d)>,
                                   affine_map<(b, a, i, j, d) -> (b, a, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x16x4x8xf32>, memref<2x16x4x8xf32>) outs(%s : memref<2x4x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// Tests that a zero fill of exactly C, with only allocations and pure ops
// between it and the contraction, becomes beta = 0 (the fill is erased):
// for a matmul and for a batched contraction. (The program's zero is -0.0,
// so that the only +0.0 is beta's.)
// CHECK-LABEL: func.func @zero_fill_is_beta_zero
// CHECK-NOT: linalg.fill
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: call @cblas_sgemm({{.*}}, %[[ZERO]], %{{[^,]*}}, %{{[^,]*}}) :
// CHECK-NOT: linalg.fill
// CHECK: scf.for
// CHECK: %[[ZERO2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: call @cblas_sgemm({{.*}}, %[[ZERO2]], %{{[^,]*}}, %{{[^,]*}}) :
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @zero_fill_is_beta_zero(%a: memref<8x4xf32>, %b: memref<4x8xf32>,
                                  %x: memref<2x8x4xf32>, %y: memref<2x4x8xf32>)
    -> (memref<8x8xf32>, memref<2x8x8xf32>) {
  %zero = arith.constant -0.0 : f32
  %c = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x8xf32>)
  %other = memref.alloc() : memref<8x8xf32>
  %unused = arith.addf %zero, %zero : f32
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%c : memref<8x8xf32>)
  %d = memref.alloc() : memref<2x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%d : memref<2x8x8xf32>)
  linalg.batch_matmul ins(%x, %y : memref<2x8x4xf32>, memref<2x4x8xf32>) outs(%d : memref<2x8x8xf32>)
  memref.dealloc %other : memref<8x8xf32>
  return %c, %d : memref<8x8xf32>, memref<2x8x8xf32>
}

// Tests fills that stay (beta = 1): a nonzero fill, a fill of another
// buffer, and a zero fill that an op reading or writing memory separates
// from the matmul.
// CHECK-LABEL: func.func @fills_that_stay
// CHECK-COUNT-3: linalg.fill
// CHECK-NOT: arith.constant 0.000000e+00 : f32
// CHECK: return
func.func @fills_that_stay(%a: memref<8x4xf32>, %b: memref<4x8xf32>, %c: memref<8x8xf32>,
                           %view: memref<8x8xf32>) {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant -0.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.fill ins(%zero : f32) outs(%view : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<8x8xf32>)
  memref.copy %c, %view : memref<8x8xf32> to memref<8x8xf32>
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// Tests a zero fill of a fresh allocation far from its product (the
// bufferized step fills its zero buffers early): other memory ops between
// them do not matter when none uses the buffer (%early: beta 0, fill
// erased); a use between them (%used: copied out after its fill), a view
// (%viewed: the product writes a view), or a view made before the fill and
// written through after it (%aliased) keeps the fill and beta 1.
// CHECK-LABEL: func.func @early_fill
// CHECK-COUNT-2: linalg.fill
// CHECK-NOT: linalg.fill
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: call @cblas_sgemm({{.*}}, %[[ZERO]], %{{[^,]*}}, %{{[^,]*}}) :
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @cblas_sgemm({{.*}}, %[[ONE]], %{{[^,]*}}, %{{[^,]*}}) :
// CHECK: %[[ONE2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @cblas_sgemm({{.*}}, %[[ONE2]], %{{[^,]*}}, %{{[^,]*}}) :
// CHECK: memref.subview
// CHECK-NEXT: linalg.fill
// CHECK: %[[ONE3:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @cblas_sgemm({{.*}}, %[[ONE3]], %{{[^,]*}}, %{{[^,]*}}) :
// CHECK: return
func.func @early_fill(%a: memref<8x4xf32>, %b: memref<4x8xf32>, %sink: memref<8x8xf32>)
    -> (memref<8x8xf32>, memref<8x8xf32>, memref<64xf32>, memref<8x8xf32>) {
  %zero = arith.constant -0.0 : f32
  %early = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%early : memref<8x8xf32>)
  %used = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%used : memref<8x8xf32>)
  %flat = memref.alloc() : memref<64xf32>
  %viewed = memref.expand_shape %flat [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%viewed : memref<8x8xf32>)
  memref.copy %sink, %sink : memref<8x8xf32> to memref<8x8xf32>
  memref.copy %used, %sink : memref<8x8xf32> to memref<8x8xf32>
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%early : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%used : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%viewed : memref<8x8xf32>)
  %aliased = memref.alloc() : memref<8x8xf32>
  %alias = memref.subview %aliased[0, 0] [8, 8] [1, 1] : memref<8x8xf32> to memref<8x8xf32, strided<[8, 1]>>
  linalg.fill ins(%zero : f32) outs(%aliased : memref<8x8xf32>)
  memref.copy %sink, %alias : memref<8x8xf32> to memref<8x8xf32, strided<[8, 1]>>
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%aliased : memref<8x8xf32>)
  return %early, %used, %flat, %aliased : memref<8x8xf32>, memref<8x8xf32>, memref<64xf32>, memref<8x8xf32>
}

// Mixed precision (cuBLAS only): 16-bit float inputs with an f32 (or equal)
// output call dist_cublas_gemm_ex, whose scalars are f32 and whose last two
// arguments are the input and output types as dist_dtype_t (bf16 3, f16 2,
// f32 0); it accumulates in f32. Attention's bf16 product goes there too,
// and the CBLAS (first RUN) leaves them all.
// CUBLAS-LABEL: func.func @mixed
// CUBLAS: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CUBLAS: %[[BF16:.*]] = arith.constant 3 : i32
// CUBLAS: %[[F32:.*]] = arith.constant 0 : i32
// CUBLAS: call @dist_cublas_gemm_ex({{.*}}, %[[ONE]], {{.*}}, %[[ONE]], {{.*}}, %[[BF16]], %[[F32]], %{{.*}}) : (i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32, i32, i32, !llvm.ptr) -> ()
// CUBLAS: %[[F16:.*]] = arith.constant 2 : i32
// CUBLAS: %[[F16B:.*]] = arith.constant 2 : i32
// CUBLAS: call @dist_cublas_gemm_ex({{.*}}, %[[F16]], %[[F16B]], %{{.*}})
// With cuBLAS the heads (the longest batch dim, 4) are one strided batched
// call (A's and B's heads 8 elements apart, C's 256), the batch (2) a loop.
// CUBLAS: scf.for %{{.*}} = %{{.*}} to %c2{{[_0-9]*}}
// CUBLAS-NOT: scf.for
// CUBLAS: call @dist_cublas_gemm_ex_strided_batched(%c101_i32{{[_0-9]*}}, %c111_i32{{[_0-9]*}}, %c112_i32{{[_0-9]*}}, %c16_i32{{[_0-9]*}}, %c16_i32{{[_0-9]*}}, %c8_i32{{[_0-9]*}}, %{{[^,]*}}, %{{[^,]*}}, %c32_i32{{[_0-9]*}}, %c8_i64{{[_0-9]*}}, %{{[^,]*}}, %c32_i32{{[_0-9]*}}, %c8_i64{{[_0-9]*}}, %{{[^,]*}}, %{{[^,]*}}, %c16_i32{{[_0-9]*}}, %c256_i64{{[_0-9]*}}, %c4_i32{{[_0-9]*}}, %c3_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{.*}}) : (i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, i64, !llvm.ptr, i32, i64, f32, !llvm.ptr, i32, i64, i32, i32, i32, !llvm.ptr) -> ()
// CUBLAS-NOT: linalg.matmul
// CUBLAS-NOT: linalg.generic
// CUBLAS: return
// CHECK-LABEL: func.func @mixed
// CHECK-COUNT-2: linalg.matmul
// CHECK: linalg.generic
// CHECK-NOT: call @
func.func @mixed(%a: memref<8x4xbf16>, %b: memref<4x8xbf16>, %c: memref<8x8xf32>,
                 %ha: memref<8x4xf16>, %hb: memref<4x8xf16>, %hc: memref<8x8xf16>,
                 %q: memref<2x16x4x8xbf16>, %k: memref<2x16x4x8xbf16>, %s: memref<2x4x16x16xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xbf16>, memref<4x8xbf16>) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%ha, %hb : memref<8x4xf16>, memref<4x8xf16>) outs(%hc : memref<8x8xf16>)
  linalg.generic {indexing_maps = [affine_map<(b, a, i, j, d) -> (b, i, a, d)>,
                                   affine_map<(b, a, i, j, d) -> (b, j, a, d)>,
                                   affine_map<(b, a, i, j, d) -> (b, a, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x16x4x8xbf16>, memref<2x16x4x8xbf16>) outs(%s : memref<2x4x16x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// A mixed-precision product into a zero-filled f32 buffer that is only
// rounded to bf16 (the next op touching memory, past allocations and other
// buffers' deallocations) writes the bf16 buffer directly: output type bf16
// (3), beta 0, the rounding copy and the f32 buffer gone, the bf16 buffer's
// allocation moved before the call. The CBLAS leaves it all.
// CUBLAS-LABEL: func.func @rounded_product
// CUBLAS-SAME: (%[[A:.*]]: memref<8x4xbf16>, %[[B:.*]]: memref<4x8xbf16>, %[[DEAD:.*]]: memref<4xf32>)
// CUBLAS-NOT: xf32>
// CUBLAS: %[[OUT:.*]] = memref.alloc() : memref<8x8xbf16>
// CUBLAS-NOT: memref<8x8xf32>
// CUBLAS: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CUBLAS: %[[BF16:.*]] = arith.constant 3 : i32
// CUBLAS: %[[BF16OUT:.*]] = arith.constant 3 : i32
// CUBLAS: call @dist_cublas_gemm_ex({{.*}}, %[[ZERO]], %{{.*}}, %{{.*}}, %[[BF16]], %[[BF16OUT]], %{{.*}})
// CUBLAS-NEXT: memref.dealloc %[[DEAD]]
// CUBLAS-NOT: linalg
// CUBLAS: return %[[OUT]]
// CHECK-LABEL: func.func @rounded_product
// CHECK: linalg.matmul
// CHECK: arith.truncf
func.func @rounded_product(%a: memref<8x4xbf16>, %b: memref<4x8xbf16>, %dead: memref<4xf32>) -> memref<8x8xbf16> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xbf16>, memref<4x8xbf16>) outs(%c : memref<8x8xf32>)
  memref.dealloc %dead : memref<4xf32>
  %out = memref.alloc() : memref<8x8xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<8x8xf32>) outs(%out : memref<8x8xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %c : memref<8x8xf32>
  return %out : memref<8x8xbf16>
}

// Attention's batched scores, rounded likewise: one strided batched call
// writing bf16.
// CUBLAS-LABEL: func.func @rounded_scores
// CUBLAS: call @dist_cublas_gemm_ex_strided_batched({{.*}}, %c3_i32{{[_0-9]*}}, %c3_i32{{[_0-9]*}}, %{{.*}})
// CUBLAS-NOT: linalg
// CUBLAS-NOT: xf32>
// CUBLAS: return
func.func @rounded_scores(%q: memref<2x16x4x8xbf16>, %k: memref<2x16x4x8xbf16>) -> memref<2x4x16x16xbf16> {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x4x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x4x16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, a, i, j, d) -> (b, i, a, d)>,
                                   affine_map<(b, a, i, j, d) -> (b, j, a, d)>,
                                   affine_map<(b, a, i, j, d) -> (b, a, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x16x4x8xbf16>, memref<2x16x4x8xbf16>) outs(%s : memref<2x4x16x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  %out = memref.alloc() : memref<2x4x16x16xbf16>
  linalg.generic {indexing_maps = [affine_map<(b, a, i, j) -> (b, a, i, j)>, affine_map<(b, a, i, j) -> (b, a, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : memref<2x4x16x16xf32>) outs(%out : memref<2x4x16x16xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %s : memref<2x4x16x16xf32>
  return %out : memref<2x4x16x16xbf16>
}

// What keeps the f32 result: it is read again after the rounding, not to
// be rounded (%c2's copy), it is accumulated into (no zero fill, %c3), or
// a reader computes with the f32 value before rounding (%c6). When the
// rounded buffer is a view made after the product (%c5: it could not move
// before the call without its source), the copy stays but reads a bf16
// product (it only rounds what it reads).
// CUBLAS-LABEL: func.func @rounding_kept
// CUBLAS: call @dist_cublas_gemm_ex({{.*}}, %c3_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{.*}})
// CUBLAS: arith.truncf
// CUBLAS: call @dist_cublas_gemm_ex({{.*}}, %c3_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{.*}})
// CUBLAS: arith.truncf
// CUBLAS: call @dist_cublas_gemm_ex({{.*}}, %c3_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{.*}})
// CUBLAS: arith.truncf
// CUBLAS: %[[C5:.*]] = memref.alloc() : memref<8x8xbf16>
// CUBLAS: call @dist_cublas_gemm_ex({{.*}}, %c3_i32{{[_0-9]*}}, %c3_i32{{[_0-9]*}}, %{{.*}})
// CUBLAS: linalg.generic {{.*}} ins(%[[C5]] : memref<8x8xbf16>)
// CUBLAS-NEXT: ^bb0(%[[X:.*]]: bf16, %{{.*}}: bf16):
// CUBLAS-NEXT: linalg.yield %[[X]] : bf16
// CUBLAS: memref.dealloc %[[C5]] : memref<8x8xbf16>
// CUBLAS: call @dist_cublas_gemm_ex({{.*}}, %c3_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{.*}})
// CUBLAS: arith.addf
// CUBLAS-NEXT: arith.truncf
// CUBLAS: return
func.func @rounding_kept(%a: memref<8x4xbf16>, %b: memref<4x8xbf16>, %sink: memref<8x8xf32>,
                         %c3: memref<8x8xf32>, %d: memref<8x8xbf16>) -> (memref<8x8xbf16>, memref<8x8xbf16>, memref<8x8xbf16>) {
  %zero = arith.constant 0.0 : f32
  %c2 = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%c2 : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xbf16>, memref<4x8xbf16>) outs(%c2 : memref<8x8xf32>)
  %out2 = memref.alloc() : memref<8x8xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c2 : memref<8x8xf32>) outs(%out2 : memref<8x8xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.copy %c2, %sink : memref<8x8xf32> to memref<8x8xf32>
  linalg.matmul ins(%a, %b : memref<8x4xbf16>, memref<4x8xbf16>) outs(%c3 : memref<8x8xf32>)
  %out3 = memref.alloc() : memref<8x8xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c3 : memref<8x8xf32>) outs(%out3 : memref<8x8xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  %c4 = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%c4 : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xbf16>, memref<4x8xbf16>) outs(%c4 : memref<8x8xf32>)
  memref.copy %c4, %sink : memref<8x8xf32> to memref<8x8xf32>
  %out4 = memref.alloc() : memref<8x8xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c4 : memref<8x8xf32>) outs(%out4 : memref<8x8xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  %c5 = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%c5 : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xbf16>, memref<4x8xbf16>) outs(%c5 : memref<8x8xf32>)
  %flat = memref.alloc() : memref<64xbf16>
  %out5 = memref.expand_shape %flat [[0, 1]] output_shape [8, 8] : memref<64xbf16> into memref<8x8xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c5 : memref<8x8xf32>) outs(%out5 : memref<8x8xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %c5 : memref<8x8xf32>
  %c6 = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%c6 : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xbf16>, memref<4x8xbf16>) outs(%c6 : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c6 : memref<8x8xf32>) outs(%d : memref<8x8xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %s = arith.addf %x, %x : f32
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %c6 : memref<8x8xf32>
  return %out2, %out3, %out4 : memref<8x8xbf16>, memref<8x8xbf16>, memref<8x8xbf16>
}

// A product whose f32 result every reader only rounds (fused elementwise
// ops that start with truncf: a bias add and GELU, read here by two of
// them, one also reading a bf16 bias) is made in bf16: a new bf16 buffer
// the call writes and the readers read, their truncf ops gone, the f32
// buffer's deallocation moved to it.
// CUBLAS-LABEL: func.func @rounding_readers
// CUBLAS-SAME: (%[[A:.*]]: memref<8x4xbf16>, %[[B:.*]]: memref<4x8xbf16>, %[[BIAS:.*]]: memref<8xbf16>
// CUBLAS-NOT: xf32>
// CUBLAS: %[[P:.*]] = memref.alloc() : memref<8x8xbf16>
// CUBLAS: call @dist_cublas_gemm_ex({{.*}}, %c3_i32{{[_0-9]*}}, %c3_i32{{[_0-9]*}}, %{{.*}})
// CUBLAS: linalg.generic {{.*}} ins(%[[P]], %[[BIAS]] : memref<8x8xbf16>, memref<8xbf16>)
// CUBLAS-NEXT: ^bb0(%[[X:.*]]: bf16, %[[Y:.*]]: bf16, %{{.*}}: bf16):
// CUBLAS-NEXT: arith.extf %[[X]]
// CUBLAS: linalg.generic {{.*}} ins(%[[P]] : memref<8x8xbf16>)
// CUBLAS-NEXT: ^bb0(%[[Z:.*]]: bf16, %{{.*}}: bf16):
// CUBLAS-NEXT: arith.extf %[[Z]]
// CUBLAS: memref.dealloc %[[P]] : memref<8x8xbf16>
// CUBLAS-NOT: xf32>
// CUBLAS: return
func.func @rounding_readers(%a: memref<8x4xbf16>, %b: memref<4x8xbf16>, %bias: memref<8xbf16>,
                            %h: memref<8x8xbf16>, %g: memref<8x8xbf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xbf16>, memref<4x8xbf16>) outs(%c : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<8x8xf32>, memref<8xbf16>) outs(%h : memref<8x8xbf16>) {
  ^bb0(%x: f32, %y: bf16, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    %xf = arith.extf %t : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %s = arith.addf %xf, %yf : f32
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<8x8xf32>) outs(%g : memref<8x8xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    %xf = arith.extf %t : bf16 to f32
    %e = math.exp %xf : f32
    %r = arith.truncf %e : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %c : memref<8x8xf32>
  return
}

// The CBLAS functions are declared once, at the end of the module.
// CHECK-DAG: func.func private @cblas_sgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
// CHECK-DAG: func.func private @cblas_dgemm(i32, i32, i32, i32, i32, i32, f64, !llvm.ptr, i32, !llvm.ptr, i32, f64, !llvm.ptr, i32)
