//===- FakeCublas.cpp - cuBLAS's products on the host, for tests ----------===//
//
// A libcublas.so.13 beside the fake driver (FakeCudaDriver.cpp): the
// products dist's CUDA runtime calls (cublasSgemm, cublasDgemm,
// cublasGemmEx with f16/bf16 inputs accumulating in f32, and their strided
// batched forms; cublasSetMathMode's TF32 mode rounds f32 inputs to TF32),
// column-major as
// cuBLAS defines them, computed on the host when they are issued. Every
// matrix must lie in memory of the fake driver (device memory) and every
// leading dimension must be one cuBLAS accepts, so that a product the real
// library would reject or fault on fails here too, with its reason on
// stderr. Naive loops (for tests, not for speed) that sum in f64 and round
// once: more accurate than any library's f32 accumulation, so that the
// fake's own rounding never decides a comparison with the serial run (a sum
// over k in f32, one term after another, is less accurate than OpenBLAS's
// or cuBLAS's blocked sums, and an Adam update of a near-zero gradient
// amplifies the difference).
//
//===----------------------------------------------------------------------===//

#include <cublas_v2.h>
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <type_traits>

namespace {

int handleStorage;
/// cublasSetMathMode's mode: CUBLAS_TF32_TENSOR_OP_MATH rounds the inputs of
/// f32 products (cublasSgemm and its batched form) to TF32, as tensor cores
/// read them.
cublasMath_t mathMode = CUBLAS_DEFAULT_MATH;

/// `value` with its mantissa rounded to TF32's 10 bits, to nearest even.
float roundToTf32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7f800000) != 0x7f800000) // NaN and infinities stay
    bits = (bits + 0xfff + ((bits >> 13) & 1)) & 0xffffe000;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

cublasStatus_t reject(const char *call, const char *reason) {
  std::fprintf(stderr, "fake cuBLAS: %s: %s\n", call, reason);
  return CUBLAS_STATUS_INVALID_VALUE;
}

/// Whether the `rows` x `columns` column-major matrix at `pointer` with
/// leading dimension `ld` (elements of `bytes` each) lies in one allocation
/// of the fake driver.
bool onDevice(const void *pointer, int64_t rows, int64_t columns, int64_t ld,
              int64_t bytes) {
  if (rows == 0 || columns == 0)
    return true;
  CUdeviceptr start = reinterpret_cast<CUdeviceptr>(pointer), base = 0;
  size_t size = 0;
  if (cuMemGetAddressRange(&base, &size, start) != CUDA_SUCCESS)
    return false;
  uint64_t end = start + ((columns - 1) * ld + rows) * bytes;
  return end <= base + size;
}

float toFloat(const void *data, cudaDataType type, int64_t index) {
  switch (type) {
  case CUDA_R_32F:
    return static_cast<const float *>(data)[index];
  case CUDA_R_16F:
    return static_cast<float>(static_cast<const _Float16 *>(data)[index]);
  default: { // CUDA_R_16BF: the upper half of an f32
    uint32_t bits = uint32_t(static_cast<const uint16_t *>(data)[index]) << 16;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  }
}

void fromFloat(void *data, cudaDataType type, int64_t index, float value) {
  switch (type) {
  case CUDA_R_32F:
    static_cast<float *>(data)[index] = value;
    return;
  case CUDA_R_16F:
    static_cast<_Float16 *>(data)[index] = static_cast<_Float16>(value);
    return;
  default: { // CUDA_R_16BF, rounded to nearest even
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    uint32_t rounded = (bits & 0x7fffffff) > 0x7f800000
                           ? (bits | 0x00400000) // NaN stays NaN
                           : bits + 0x7fff + ((bits >> 16) & 1);
    static_cast<uint16_t *>(data)[index] = uint16_t(rounded >> 16);
    return;
  }
  }
}

int64_t elementBytes(cudaDataType type) {
  return type == CUDA_R_64F ? 8 : type == CUDA_R_32F ? 4 : 2;
}

/// C = alpha op(A) op(B) + beta C (m x n, k the inner extent), column-major:
/// op(A)(i, l) is A[i + l lda] untransposed, A[l + i lda] transposed.
/// Checks what cuBLAS checks, then the operands' memory.
template <typename Accumulator, typename Load, typename Store>
cublasStatus_t gemm(const char *call, cublasHandle_t handle,
                    cublasOperation_t transA, cublasOperation_t transB, int m,
                    int n, int k, Accumulator alpha, const void *a, int lda,
                    const void *b, int ldb, Accumulator beta, void *c, int ldc,
                    int64_t inputBytes, int64_t outputBytes, Load loadA,
                    Load loadB, Load loadC, Store storeC) {
  if (handle != reinterpret_cast<cublasHandle_t>(&handleStorage)) {
    reject(call, "not a handle of cublasCreate");
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  for (cublasOperation_t op : {transA, transB})
    if (op != CUBLAS_OP_N && op != CUBLAS_OP_T)
      return reject(call, "an operation other than N or T");
  if (m < 0 || n < 0 || k < 0)
    return reject(call, "a negative extent");
  int rowsA = transA == CUBLAS_OP_N ? m : k, colsA = transA == CUBLAS_OP_N ? k : m;
  int rowsB = transB == CUBLAS_OP_N ? k : n, colsB = transB == CUBLAS_OP_N ? n : k;
  if (lda < std::max(1, rowsA) || ldb < std::max(1, rowsB) ||
      ldc < std::max(1, m))
    return reject(call, "a leading dimension smaller than its matrix's rows");
  if (!onDevice(a, rowsA, colsA, lda, inputBytes) ||
      !onDevice(b, rowsB, colsB, ldb, inputBytes) ||
      !onDevice(c, m, n, ldc, outputBytes))
    return reject(call, "a matrix outside the device's memory");
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int l = 0; l < k; ++l) {
        int64_t atA = transA == CUBLAS_OP_N ? i + int64_t(l) * lda
                                            : l + int64_t(i) * lda;
        int64_t atB = transB == CUBLAS_OP_N ? l + int64_t(j) * ldb
                                            : j + int64_t(l) * ldb;
        sum += loadA(a, atA) * loadB(b, atB);
      }
      int64_t atC = i + int64_t(j) * ldc;
      // beta = 0 ignores C (it may hold NaN), as cuBLAS does.
      double previous = beta == 0 ? 0 : double(beta) * loadC(c, atC);
      storeC(c, atC, Accumulator(double(alpha) * sum + previous));
    }
  return CUBLAS_STATUS_SUCCESS;
}

template <typename T>
cublasStatus_t typedGemm(const char *call, cublasHandle_t handle,
                         cublasOperation_t transA, cublasOperation_t transB,
                         int m, int n, int k, const T *alpha, const T *a,
                         int lda, const T *b, int ldb, const T *beta, T *c,
                         int ldc) {
  auto load = [](const void *data, int64_t index) {
    return static_cast<const T *>(data)[index];
  };
  auto loadInput = [](const void *data, int64_t index) {
    T value = static_cast<const T *>(data)[index];
    if constexpr (std::is_same_v<T, float>)
      if (mathMode == CUBLAS_TF32_TENSOR_OP_MATH)
        return roundToTf32(value);
    return value;
  };
  auto store = [](void *data, int64_t index, T value) {
    static_cast<T *>(data)[index] = value;
  };
  using Load = std::function<T(const void *, int64_t)>;
  return gemm<T, Load>(call, handle, transA, transB, m, n, k, *alpha, a, lda,
                       b, ldb, *beta, c, ldc, sizeof(T), sizeof(T),
                       Load(loadInput), Load(loadInput), Load(load), store);
}

/// Runs `product(i)` for each of `batchCount` products, stopping at the
/// first that fails.
template <typename Product>
cublasStatus_t batched(const char *call, int batchCount, Product product) {
  if (batchCount < 0)
    return reject(call, "a negative batch count");
  for (int64_t i = 0; i < batchCount; ++i)
    if (cublasStatus_t status = product(i); status != CUBLAS_STATUS_SUCCESS)
      return status;
  return CUBLAS_STATUS_SUCCESS;
}

/// cublas?gemmStridedBatched: product i's operands start i strides
/// (elements) after the first's.
template <typename T>
cublasStatus_t typedStridedBatched(const char *call, cublasHandle_t handle,
                                   cublasOperation_t transA,
                                   cublasOperation_t transB, int m, int n,
                                   int k, const T *alpha, const T *a, int lda,
                                   long long strideA, const T *b, int ldb,
                                   long long strideB, const T *beta, T *c,
                                   int ldc, long long strideC,
                                   int batchCount) {
  return batched(call, batchCount, [&](int64_t i) {
    return typedGemm(call, handle, transA, transB, m, n, k, alpha,
                     a + i * strideA, lda, b + i * strideB, ldb, beta,
                     c + i * strideC, ldc);
  });
}

/// cublasGemmEx's products: f16/bf16 inputs, an f32 or same-type output.
cublasStatus_t mixedGemm(const char *call, cublasHandle_t handle,
                         cublasOperation_t transA, cublasOperation_t transB,
                         int m, int n, int k, const void *alpha, const void *a,
                         cudaDataType typeA, int lda, const void *b,
                         cudaDataType typeB, int ldb, const void *beta,
                         void *c, cudaDataType typeC, int ldc,
                         cublasComputeType_t compute, cublasGemmAlgo_t) {
  auto isHalf = [](cudaDataType type) {
    return type == CUDA_R_16F || type == CUDA_R_16BF;
  };
  if (compute != CUBLAS_COMPUTE_32F)
    return reject(call, "a compute type other than CUBLAS_COMPUTE_32F");
  if (typeA != typeB || !isHalf(typeA) ||
      (typeC != CUDA_R_32F && typeC != typeA))
    return reject(call, "types other than f16/bf16 inputs with an f32 or "
                        "same-type output");
  auto loadA = [typeA](const void *data, int64_t index) {
    return toFloat(data, typeA, index);
  };
  auto loadC = [typeC](const void *data, int64_t index) {
    return toFloat(data, typeC, index);
  };
  auto storeC = [typeC](void *data, int64_t index, float value) {
    fromFloat(data, typeC, index, value);
  };
  // Lambdas of one signature: loads as function objects of one type.
  using Load = std::function<float(const void *, int64_t)>;
  return gemm<float, Load>(
      call, handle, transA, transB, m, n, k, *static_cast<const float *>(alpha),
      a, lda, b, ldb, *static_cast<const float *>(beta), c, ldc,
      elementBytes(typeA), elementBytes(typeC), Load(loadA), Load(loadA),
      Load(loadC), storeC);
}

} // namespace

#define FAKE_EXPORT __attribute__((visibility("default")))

extern "C" {

FAKE_EXPORT cublasStatus_t cublasCreate(cublasHandle_t *handle) {
  *handle = reinterpret_cast<cublasHandle_t>(&handleStorage);
  return CUBLAS_STATUS_SUCCESS;
}

// Work is done when issued: the stream only has to be one.
FAKE_EXPORT cublasStatus_t cublasSetStream(cublasHandle_t handle,
                                           cudaStream_t) {
  return handle == reinterpret_cast<cublasHandle_t>(&handleStorage)
             ? CUBLAS_STATUS_SUCCESS
             : CUBLAS_STATUS_NOT_INITIALIZED;
}

FAKE_EXPORT cublasStatus_t cublasSetMathMode(cublasHandle_t handle,
                                             cublasMath_t mode) {
  if (handle != reinterpret_cast<cublasHandle_t>(&handleStorage))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_DEFAULT_MATH && mode != CUBLAS_TF32_TENSOR_OP_MATH)
    return reject("cublasSetMathMode", "a mode other than CUBLAS_DEFAULT_MATH "
                                       "or CUBLAS_TF32_TENSOR_OP_MATH");
  mathMode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasSgemm(cublasHandle_t handle,
                                       cublasOperation_t transA,
                                       cublasOperation_t transB, int m, int n,
                                       int k, const float *alpha,
                                       const float *a, int lda, const float *b,
                                       int ldb, const float *beta, float *c,
                                       int ldc) {
  return typedGemm("cublasSgemm", handle, transA, transB, m, n, k, alpha, a,
                   lda, b, ldb, beta, c, ldc);
}

FAKE_EXPORT cublasStatus_t cublasDgemm(cublasHandle_t handle,
                                       cublasOperation_t transA,
                                       cublasOperation_t transB, int m, int n,
                                       int k, const double *alpha,
                                       const double *a, int lda,
                                       const double *b, int ldb,
                                       const double *beta, double *c,
                                       int ldc) {
  return typedGemm("cublasDgemm", handle, transA, transB, m, n, k, alpha, a,
                   lda, b, ldb, beta, c, ldc);
}


FAKE_EXPORT cublasStatus_t
cublasGemmEx(cublasHandle_t handle, cublasOperation_t transA,
             cublasOperation_t transB, int m, int n, int k, const void *alpha,
             const void *a, cudaDataType typeA, int lda, const void *b,
             cudaDataType typeB, int ldb, const void *beta, void *c,
             cudaDataType typeC, int ldc, cublasComputeType_t compute,
             cublasGemmAlgo_t algo) {
  return mixedGemm("cublasGemmEx", handle, transA, transB, m, n, k, alpha, a,
                   typeA, lda, b, typeB, ldb, beta, c, typeC, ldc, compute,
                   algo);
}

FAKE_EXPORT cublasStatus_t cublasSgemmStridedBatched(
    cublasHandle_t handle, cublasOperation_t transA, cublasOperation_t transB,
    int m, int n, int k, const float *alpha, const float *a, int lda,
    long long strideA, const float *b, int ldb, long long strideB,
    const float *beta, float *c, int ldc, long long strideC, int batchCount) {
  return typedStridedBatched("cublasSgemmStridedBatched", handle, transA,
                             transB, m, n, k, alpha, a, lda, strideA, b, ldb,
                             strideB, beta, c, ldc, strideC, batchCount);
}

FAKE_EXPORT cublasStatus_t cublasDgemmStridedBatched(
    cublasHandle_t handle, cublasOperation_t transA, cublasOperation_t transB,
    int m, int n, int k, const double *alpha, const double *a, int lda,
    long long strideA, const double *b, int ldb, long long strideB,
    const double *beta, double *c, int ldc, long long strideC,
    int batchCount) {
  return typedStridedBatched("cublasDgemmStridedBatched", handle, transA,
                             transB, m, n, k, alpha, a, lda, strideA, b, ldb,
                             strideB, beta, c, ldc, strideC, batchCount);
}

FAKE_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transA, cublasOperation_t transB,
    int m, int n, int k, const void *alpha, const void *a, cudaDataType typeA,
    int lda, long long strideA, const void *b, cudaDataType typeB, int ldb,
    long long strideB, const void *beta, void *c, cudaDataType typeC, int ldc,
    long long strideC, int batchCount, cublasComputeType_t compute,
    cublasGemmAlgo_t algo) {
  auto at = [](const void *base, cudaDataType type, int64_t elements) {
    return static_cast<const char *>(base) + elements * elementBytes(type);
  };
  return batched("cublasGemmStridedBatchedEx", batchCount, [&](int64_t i) {
    return mixedGemm("cublasGemmStridedBatchedEx", handle, transA, transB, m,
                     n, k, alpha, at(a, typeA, i * strideA), typeA, lda,
                     at(b, typeB, i * strideB), typeB, ldb, beta,
                     const_cast<char *>(at(c, typeC, i * strideC)), typeC,
                     ldc, compute, algo);
  });
}

} // extern "C"
