//===- CudaRuntime.cpp - The host functions GPU programs call -------------===//
//
// dist-lower-to-nvvm's host code calls the `mgpu*` functions of MLIR's GPU
// lowering (module load, kernel launch, memory, streams, events). Debian
// ships no MLIR CUDA runtime library, so dist provides them over the CUDA
// driver API (CudaDriver.h: opened on first use, never linked, so the library
// loads on machines without a driver, and a GPU program run there stops with
// a message instead of failing to load; one device per rank). A failing
// driver call prints the call, the driver's error and the rank, and exits.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <cublas_v2.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#define DIST_STRINGIFY(x) #x
#define DIST_SYMBOL(x) DIST_STRINGIFY(x)

namespace {

const char *rankText() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "RANK"})
    if (const char *rank = std::getenv(name))
      return rank;
  return "0";
}

/// Ends the process without running destructors: a program's global
/// destructor would unload its kernels through this library again.
[[noreturn]] void fail(const char *message, const char *detail) {
  std::fprintf(stderr, "dist cuda runtime error on rank %s: %s%s\n",
               rankText(), message, detail ? detail : "");
  std::fflush(stderr);
  std::_Exit(1);
}

int defaultDevice = -1;

/// DIST_CUDA_PROFILE=1: the time in cuBLAS and in the kernels, printed at
/// exit: each product and launch is timed on the GPU by events recorded on
/// its stream before and after it (the host does not wait; the times are
/// read back every kProfileBatch calls and at exit). =2 also each kernel's
/// and each product shape's time, the longest first.
struct Profile {
  struct Entry {
    int64_t calls = 0;
    double seconds = 0;
  };
  /// A call whose events are not read yet.
  struct Pending {
    Entry *total;
    std::string detail;
    CUevent start, end;
  };
  static constexpr size_t kProfileBatch = 4096;
  int level = 0;
  Entry blas, kernels;
  std::map<std::string, Entry> details;
  std::map<void *, std::string> kernelNames; // CUfunction -> its name
  std::vector<Pending> pending;
  std::vector<CUevent> spareEvents;
  /// What dist_cuda_profile_restart named ("step 2"): the totals count
  /// from there.
  std::string since;
  bool collectsAtExit = false;

  Profile() {
    const char *value = std::getenv("DIST_CUDA_PROFILE");
    level = value ? std::atoi(value) : 0;
    if (level > 0)
      std::atexit([] { profile().print(); });
  }
  static Profile &profile() {
    static Profile &instance = *new Profile();
    return instance;
  }
  bool on() const { return level > 0; }
  void record(Entry &total, const std::string &detail, double seconds) {
    ++total.calls;
    total.seconds += seconds;
    if (level > 1) {
      Entry &entry = details[detail];
      ++entry.calls;
      entry.seconds += seconds;
    }
  }
  /// Runs `call` (which queues work on `stream`) between two events.
  template <typename Call>
  void time(Entry &total, std::string detail, CUstream stream, Call &&call);
  /// Reads the pending calls' times (waiting for their end events).
  void collect();
  /// The totals and details count from here on.
  void restart(const char *label) {
    collect();
    blas = kernels = Entry();
    details.clear();
    since = label ? label : "";
  }
  void print() const {
    std::fprintf(stderr,
                 "dist cuda profile on rank %s: %lld cuBLAS call(s) in %.3f ms, "
                 "%lld kernel launch(es) in %.3f ms%s%s\n",
                 rankText(), (long long)blas.calls, blas.seconds * 1e3,
                 (long long)kernels.calls, kernels.seconds * 1e3,
                 since.empty() ? "" : ", since ", since.c_str());
    std::vector<std::pair<std::string, Entry>> sorted(details.begin(),
                                                      details.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](auto &x, auto &y) {
      return x.second.seconds > y.second.seconds;
    });
    for (auto &[what, entry] : sorted)
      std::fprintf(stderr, "dist cuda profile on rank %s: %s: %lld in %.3f ms\n",
                   rankText(), what.c_str(), (long long)entry.calls,
                   entry.seconds * 1e3);
  }
};

/// The driver (CudaDriver.h), the calling thread in the device's context.
distcuda::Driver &driver() {
  std::string error;
  distcuda::Driver *loaded = distcuda::loadDriver(defaultDevice, error);
  if (!loaded)
    fail(error.c_str(), nullptr);
  return *loaded;
}

/// Checks the result of driver call `call`.
void check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  fail(distcuda::describeFailure(driver(), result, call).c_str(), nullptr);
}

template <typename Call>
void Profile::time(Entry &total, std::string detail, CUstream stream,
                   Call &&call) {
  distcuda::Driver &cuda = driver();
  CUevent events[2];
  for (CUevent &event : events) {
    if (spareEvents.empty()) {
      check(cuda.cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
    } else {
      event = spareEvents.back();
      spareEvents.pop_back();
    }
  }
  // Registered after cuInit, so that it runs before the driver's own exit
  // handler (which deinitializes it) and after nothing that queues work.
  if (!collectsAtExit) {
    collectsAtExit = true;
    std::atexit([] { profile().collect(); });
  }
  check(cuda.cuEventRecord(events[0], stream), "cuEventRecord");
  call();
  check(cuda.cuEventRecord(events[1], stream), "cuEventRecord");
  pending.push_back({&total, std::move(detail), events[0], events[1]});
  if (pending.size() >= kProfileBatch)
    collect();
}

void Profile::collect() {
  distcuda::Driver &cuda = driver();
  for (Pending &call : pending) {
    check(cuda.cuEventSynchronize(call.end), "cuEventSynchronize");
    float milliseconds = 0;
    check(cuda.cuEventElapsedTime(&milliseconds, call.start, call.end),
          "cuEventElapsedTime");
    record(*call.total, call.detail, milliseconds * 1e-3);
    spareEvents.push_back(call.start);
    spareEvents.push_back(call.end);
  }
  pending.clear();
}

CUstream asStream(void *stream) { return reinterpret_cast<CUstream>(stream); }
CUevent asEvent(void *event) { return reinterpret_cast<CUevent>(event); }
CUmodule asModule(void *module) { return reinterpret_cast<CUmodule>(module); }
CUdeviceptr asDevicePointer(const void *pointer) {
  return reinterpret_cast<CUdeviceptr>(pointer);
}

} // namespace

#define DIST_EXPORT extern "C" __attribute__((visibility("default")))

DIST_EXPORT void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

DIST_EXPORT void *mgpuModuleLoad(void *data, size_t /*size*/) {
  CUmodule module = nullptr;
  check(driver().cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

DIST_EXPORT void mgpuModuleUnload(void *module) {
  // A program's global destructor, after the driver's teardown.
  if (distcuda::processExiting())
    return;
  check(driver().cuModuleUnload(asModule(module)),
        "cuModuleUnload");
}

DIST_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  CUfunction function = nullptr;
  check(driver().cuModuleGetFunction(&function,
                                     asModule(module), name),
        "cuModuleGetFunction");
  if (Profile::profile().level > 1)
    Profile::profile().kernelNames[function] = name;
  return function;
}

DIST_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                  intptr_t gridY, intptr_t gridZ,
                                  intptr_t blockX, intptr_t blockY,
                                  intptr_t blockZ, int32_t sharedBytes,
                                  void *stream, void **params, void **extra,
                                  size_t /*paramsCount*/) {
  auto launch = [&] {
    check(driver().cuLaunchKernel(reinterpret_cast<CUfunction>(function),
                                  gridX, gridY, gridZ, blockX, blockY, blockZ,
                                  sharedBytes, asStream(stream), params,
                                  extra),
          "cuLaunchKernel");
  };
  Profile &profile = Profile::profile();
  if (!profile.on())
    return launch();
  std::string name;
  if (profile.level > 1) {
    auto known = profile.kernelNames.find(function);
    name = "kernel " +
           (known == profile.kernelNames.end() ? std::string("?")
                                                : known->second);
  }
  profile.time(profile.kernels, std::move(name), asStream(stream), launch);
}

DIST_EXPORT void *mgpuStreamCreate() {
  CUstream stream = nullptr;
  check(driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
  return stream;
}

DIST_EXPORT void mgpuStreamDestroy(void *stream) {
  if (distcuda::processExiting())
    return;
  check(driver().cuStreamDestroy(asStream(stream)), "cuStreamDestroy");
}

DIST_EXPORT void mgpuStreamSynchronize(void *stream) {
  check(driver().cuStreamSynchronize(asStream(stream)), "cuStreamSynchronize");
}

DIST_EXPORT void mgpuStreamWaitEvent(void *stream, void *event) {
  check(driver().cuStreamWaitEvent(asStream(stream),
                                   asEvent(event), 0),
        "cuStreamWaitEvent");
}

DIST_EXPORT void *mgpuEventCreate() {
  CUevent event = nullptr;
  check(driver().cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
  return event;
}

DIST_EXPORT void mgpuEventDestroy(void *event) {
  if (distcuda::processExiting())
    return;
  check(driver().cuEventDestroy(asEvent(event)),
        "cuEventDestroy");
}

DIST_EXPORT void mgpuEventSynchronize(void *event) {
  check(driver().cuEventSynchronize(asEvent(event)),
        "cuEventSynchronize");
}

DIST_EXPORT void mgpuEventRecord(void *event, void *stream) {
  check(driver().cuEventRecord(asEvent(event),
                               asStream(stream)),
        "cuEventRecord");
}

/// Runs `allocate` (a driver allocation); when the device is out of memory,
/// gives the pool's unused memory back and tries once more.
template <typename Allocate>
void allocateOrTrim(const char *call, Allocate &&allocate) {
  CUresult result = allocate();
  distcuda::Driver &cuda = driver();
  if (result == CUDA_ERROR_OUT_OF_MEMORY && cuda.pool) {
    // Memory freed on a stream returns to the pool once the device got
    // there: every stream's frees first.
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize");
    check(cuda.cuMemPoolTrimTo(cuda.pool, 0), "cuMemPoolTrimTo");
    result = allocate();
  }
  check(result, call);
}

/// On a stream (a step's buffers, dist-gpu-streams) the allocation is
/// ordered there, from the device's pool (no synchronization; the memory
/// returns to the pool when freed on the stream).
DIST_EXPORT void *mgpuMemAlloc(uint64_t bytes, void *stream,
                               bool isHostShared) {
  if (bytes == 0)
    return nullptr;
  distcuda::Driver &cuda = driver();
  CUdeviceptr pointer = 0;
  if (isHostShared)
    allocateOrTrim("cuMemAllocManaged", [&] {
      return cuda.cuMemAllocManaged(&pointer, bytes, CU_MEM_ATTACH_GLOBAL);
    });
  else if (stream && cuda.pool)
    allocateOrTrim("cuMemAllocAsync", [&] {
      return cuda.cuMemAllocAsync(&pointer, bytes, asStream(stream));
    });
  else
    allocateOrTrim("cuMemAlloc",
                   [&] { return cuda.cuMemAlloc(&pointer, bytes); });
  return reinterpret_cast<void *>(pointer);
}

/// On a stream, memory from the pool is freed after the work queued there
/// (which may still read it); other memory once the stream is done with it.
/// Without a stream, at once (the caller has synchronized).
DIST_EXPORT void mgpuMemFree(void *pointer, void *stream) {
  if (!pointer || distcuda::processExiting())
    return;
  distcuda::Driver &cuda = driver();
  if (stream && cuda.pool) {
    // Null, or an error from a driver without the attribute: not the pool's.
    CUmemoryPool pool = nullptr;
    if (cuda.cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
                                   asDevicePointer(pointer)) != CUDA_SUCCESS)
      pool = nullptr;
    if (pool) {
      check(cuda.cuMemFreeAsync(asDevicePointer(pointer), asStream(stream)),
            "cuMemFreeAsync");
      return;
    }
  }
  if (stream)
    mgpuStreamSynchronize(stream);
  check(cuda.cuMemFree(asDevicePointer(pointer)), "cuMemFree");
}

/// dist-gpu-emulate-kernels, where a kernel would be launched: counted
/// with the launches (DIST_CUDA_PROFILE=1).
DIST_EXPORT void dist_cuda_emulated_launch(const char *) {
  ++Profile::profile().kernels.calls;
}

/// DIST_CUDA_PROFILE counts from here on, the totals printed at exit say
/// `since` ("step 2": a training loop leaves its first step out, which
/// loads the kernels' and cuBLAS's code). Does nothing without the profile.
DIST_EXPORT void dist_cuda_profile_restart(const char *since) {
  Profile &profile = Profile::profile();
  if (profile.on())
    profile.restart(since);
}

/// dist-gpu-emulate-kernels, before a kernel runs on the host: operand
/// `operand` of `kernel` (`bytes` from `pointer`, its elements' extent) must
/// lie in one device allocation, or the kernel would fault on a GPU.
DIST_EXPORT void dist_cuda_check_kernel_operand(const void *pointer,
                                                int64_t bytes, int64_t operand,
                                                const char *kernel) {
  if (bytes <= 0)
    return;
  CUdeviceptr base = 0;
  size_t size = 0;
  CUdeviceptr start = asDevicePointer(pointer);
  if (driver().cuMemGetAddressRange(&base, &size, start) == CUDA_SUCCESS &&
      start + static_cast<uint64_t>(bytes) <= base + size)
    return;
  char text[256];
  std::snprintf(text, sizeof(text),
                "kernel %s: operand %lld (%lld bytes at %p) is not in device "
                "memory",
                kernel, static_cast<long long>(operand),
                static_cast<long long>(bytes), pointer);
  fail(text, nullptr);
}

DIST_EXPORT void mgpuMemcpy(void *destination, void *source, size_t bytes,
                            void *stream) {
  check(driver().cuMemcpyAsync(asDevicePointer(destination),
                               asDevicePointer(source), bytes,
                               asStream(stream)),
        "cuMemcpyAsync");
}

DIST_EXPORT void mgpuMemset32(void *destination, unsigned int value,
                              size_t count, void *stream) {
  check(driver().cuMemsetD32Async(asDevicePointer(destination),
                                  value, count, asStream(stream)),
        "cuMemsetD32Async");
}

DIST_EXPORT void mgpuMemset16(void *destination, unsigned short value,
                              size_t count, void *stream) {
  check(driver().cuMemsetD16Async(asDevicePointer(destination),
                                  value, count, asStream(stream)),
        "cuMemsetD16Async");
}

//===----------------------------------------------------------------------===//
// Matrix products: the CBLAS signature (what dist-matmul-to-blas emits) over
// cuBLAS on device buffers, dist-matmul-to-blas{library=cublas}.
//===----------------------------------------------------------------------===//

namespace {

/// cuBLAS, opened on first use like the driver.
struct Blas {
  decltype(&::cublasCreate) create = nullptr;
  decltype(&::cublasSetStream) setStream = nullptr;
  decltype(&::cublasSetMathMode) setMathMode = nullptr;
  decltype(&::cublasSgemm) sgemm = nullptr;
  decltype(&::cublasDgemm) dgemm = nullptr;
  // The exported cublasGemmEx (C++ also sees an inline overload).
  cublasStatus_t (*gemmEx)(cublasHandle_t, cublasOperation_t,
                           cublasOperation_t, int, int, int, const void *,
                           const void *, cudaDataType, int, const void *,
                           cudaDataType, int, const void *, void *,
                           cudaDataType, int, cublasComputeType_t,
                           cublasGemmAlgo_t) = nullptr;
  decltype(&::cublasSgemmStridedBatched) sgemmStridedBatched = nullptr;
  decltype(&::cublasDgemmStridedBatched) dgemmStridedBatched = nullptr;
  // The exported cublasGemmStridedBatchedEx (C++ also sees an overload).
  cublasStatus_t (*gemmStridedBatchedEx)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
      const void *, const void *, cudaDataType, int, long long, const void *,
      cudaDataType, int, long long, const void *, void *, cudaDataType, int,
      long long, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  cublasHandle_t handle = nullptr;
  /// DIST_CUBLAS_TF32=1: f32 products (cublasSgemm and its batched form)
  /// may round their inputs to TF32 on tensor cores, as PyTorch's
  /// torch.backends.cuda.matmul.allow_tf32. Off by default, as in PyTorch:
  /// f32 programs keep f32 products.
  bool tf32 = false;
};

/// DIST_CUBLAS_TF32: unset, 0 or 1.
bool tf32Requested() {
  const char *value = std::getenv("DIST_CUBLAS_TF32");
  if (!value || !*value || !std::strcmp(value, "0"))
    return false;
  if (!std::strcmp(value, "1"))
    return true;
  fail("DIST_CUBLAS_TF32 must be 0 or 1, not ", value);
}

Blas &blas() {
  static Blas instance;
  static std::once_flag loaded;
  std::call_once(loaded, [] {
    driver(); // the context cuBLAS works in
    void *library = dlopen("libcublas.so.13", RTLD_NOW | RTLD_GLOBAL);
    if (!library)
      library = dlopen("libcublas.so", RTLD_NOW | RTLD_GLOBAL);
    if (!library)
      fail("cannot load cuBLAS: ", dlerror());
#define DIST_RESOLVE_BLAS(member, name)                                        \
  instance.member = reinterpret_cast<decltype(instance.member)>(               \
      dlsym(library, DIST_SYMBOL(name)));                                      \
  if (!instance.member)                                                        \
    fail("cuBLAS lacks ", DIST_SYMBOL(name));
    DIST_RESOLVE_BLAS(create, cublasCreate)
    DIST_RESOLVE_BLAS(setStream, cublasSetStream)
    DIST_RESOLVE_BLAS(setMathMode, cublasSetMathMode)
    DIST_RESOLVE_BLAS(sgemm, cublasSgemm)
    DIST_RESOLVE_BLAS(dgemm, cublasDgemm)
    DIST_RESOLVE_BLAS(gemmEx, cublasGemmEx)
    DIST_RESOLVE_BLAS(sgemmStridedBatched, cublasSgemmStridedBatched)
    DIST_RESOLVE_BLAS(dgemmStridedBatched, cublasDgemmStridedBatched)
    DIST_RESOLVE_BLAS(gemmStridedBatchedEx, cublasGemmStridedBatchedEx)
#undef DIST_RESOLVE_BLAS
    if (instance.create(&instance.handle) != CUBLAS_STATUS_SUCCESS)
      fail("cublasCreate failed", nullptr);
    instance.tf32 = tf32Requested();
    if (instance.tf32 &&
        instance.setMathMode(instance.handle, CUBLAS_TF32_TENSOR_OP_MATH) !=
            CUBLAS_STATUS_SUCCESS)
      fail("cublasSetMathMode(CUBLAS_TF32_TENSOR_OP_MATH) failed "
           "(DIST_CUBLAS_TF32=1)",
           nullptr);
  });
  return instance;
}

// CBLAS enum values (cblas.h).
constexpr int kCblasRowMajor = 101;
constexpr int kCblasTrans = 112;

cublasOperation_t toCublas(int cblasTranspose) {
  return cblasTranspose == kCblasTrans ? CUBLAS_OP_T : CUBLAS_OP_N;
}

/// Runs `call` (a cuBLAS product) on `stream`, after the work queued there
/// (dist-gpu-streams' step stream: the host does not wait). Without a stream
/// it runs between two synchronizations of the context (the kernels before
/// it may be on any stream). DIST_CUDA_PROFILE=1 times it by events on its
/// stream.
/// A product's shape, as the profile names it.
struct BlasShape {
  int transA, transB, m, n, k;
  const void *a, *b, *c;
  int lda, ldb, ldc, batch = 1;
  /// A mixed product's input and output types ("bf16->f32"), "tf32" for an
  /// f32 product allowed TF32 (DIST_CUBLAS_TF32=1), or "".
  const char *types = "";
};

/// The name of a dist_dtype_t of a mixed product, for the profile.
const char *dtypeName(int dtype) {
  switch (dtype) {
  case 0: return "f32";
  case 2: return "f16";
  case 3: return "bf16";
  }
  return "?";
}

/// "IN->OUT" for a mixed product's profile line (static storage: the nine
/// pairs of the three types).
const char *mixedTypes(int input, int output) {
  static std::map<std::pair<int, int>, std::string> names;
  std::string &name = names[{input, output}];
  if (name.empty())
    name = std::string(dtypeName(input)) + "->" + dtypeName(output);
  return name.c_str();
}

/// The largest power of two (up to 256) an operand's address is a multiple
/// of: cuBLAS's fast kernels need 16-byte aligned operands.
int alignmentOf(const void *pointer) {
  auto address = reinterpret_cast<uintptr_t>(pointer);
  int alignment = 1;
  while (alignment < 256 && address % (2 * alignment) == 0)
    alignment *= 2;
  return alignment;
}

template <typename Call>
void runBlas(const char *name, int order, void *stream, const BlasShape &shape,
             Call &&call) {
  if (order != kCblasRowMajor)
    fail(name, ": only row-major products are supported");
  Blas &library = blas();
  Profile &profile = Profile::profile();
  auto synchronize = [&] {
    check(driver().cuCtxSynchronize(), "cuCtxSynchronize");
  };
  if (!stream)
    synchronize();
  if (library.setStream(library.handle, asStream(stream)) !=
      CUBLAS_STATUS_SUCCESS)
    fail(name, ": cublasSetStream failed");
  auto product = [&] {
    cublasStatus_t status = call();
    if (status == CUBLAS_STATUS_SUCCESS)
      return;
    char text[128];
    std::snprintf(text, sizeof(text), "%s failed: cuBLAS status %d", name,
                  static_cast<int>(status));
    fail(text, nullptr);
  };
  if (!profile.on()) {
    product();
  } else {
    char detail[224] = "";
    if (profile.level > 1)
      std::snprintf(detail, sizeof(detail),
                    "%s %c%c m=%d n=%d k=%d batch=%d ld=%d/%d/%d align=%d/%d/%d%s%s",
                    name, shape.transA == kCblasTrans ? 'T' : 'N',
                    shape.transB == kCblasTrans ? 'T' : 'N', shape.m, shape.n,
                    shape.k, shape.batch, shape.lda, shape.ldb, shape.ldc,
                    alignmentOf(shape.a), alignmentOf(shape.b),
                    alignmentOf(shape.c), *shape.types ? " " : "",
                    shape.types);
    profile.time(profile.blas, detail, asStream(stream), product);
  }
  if (!stream)
    synchronize();
}

/// "tf32" for an f32 product's profile line when DIST_CUBLAS_TF32=1 lets
/// it round its inputs to TF32, else "".
template <typename T>
const char *tf32Label() {
  return std::is_same_v<T, float> && blas().tf32 ? "tf32" : "";
}

/// C = alpha op(A) op(B) + beta C, row-major, as cuBLAS's column-major
/// C^T = alpha op(B)^T op(A)^T + beta C^T (a row-major matrix is its
/// transpose in column-major, with the same leading dimension).
template <typename T, typename Gemm>
void gemm(const char *name, Gemm function, int order, int transA, int transB,
          int m, int n, int k, T alpha, const T *a, int lda, const T *b,
          int ldb, T beta, T *c, int ldc, void *stream) {
  runBlas(name, order, stream,
          {transA, transB, m, n, k, a, b, c, lda, ldb, ldc, 1, tf32Label<T>()},
          [&] {
    return function(blas().handle, toCublas(transB), toCublas(transA), n, m, k,
                    &alpha, b, ldb, a, lda, &beta, c, ldc);
  });
}

/// `batchCount` products at once: operand X of product i starts `strideX`
/// elements after that of product i - 1 (0: the same matrix for all), as
/// cuBLAS's column-major C_i^T = op(B_i)^T op(A_i)^T.
template <typename T, typename Gemm>
void gemmStridedBatched(const char *name, Gemm function, int order,
                        int transA, int transB, int m, int n, int k, T alpha,
                        const T *a, int lda, int64_t strideA, const T *b,
                        int ldb, int64_t strideB, T beta, T *c, int ldc,
                        int64_t strideC, int batchCount, void *stream) {
  runBlas(name, order, stream,
          {transA, transB, m, n, k, a, b, c, lda, ldb, ldc, batchCount,
           tf32Label<T>()},
          [&] {
    return function(blas().handle, toCublas(transB), toCublas(transA), n, m,
                    k, &alpha, b, ldb, strideB, a, lda, strideA, &beta, c,
                    ldc, strideC, batchCount);
  });
}

/// cuBLAS's type for a dist_dtype_t of a mixed product (f32, f16, bf16).
cudaDataType_t toCudaType(int dtype) {
  switch (dtype) {
  case 0: return CUDA_R_32F;
  case 2: return CUDA_R_16F;
  case 3: return CUDA_R_16BF;
  }
  char text[96];
  std::snprintf(text, sizeof(text),
                "dist_cublas_gemm_ex: element type %d is not f32, f16 or bf16",
                dtype);
  fail(text, nullptr);
}

} // namespace

DIST_EXPORT void dist_cublas_sgemm(int order, int transA, int transB, int m,
                                   int n, int k, float alpha, const float *a,
                                   int lda, const float *b, int ldb,
                                   float beta, float *c, int ldc,
                                   void *stream) {
  gemm("cublasSgemm", blas().sgemm, order, transA, transB, m, n, k, alpha, a,
       lda, b, ldb, beta, c, ldc, stream);
}

DIST_EXPORT void dist_cublas_dgemm(int order, int transA, int transB, int m,
                                   int n, int k, double alpha, const double *a,
                                   int lda, const double *b, int ldb,
                                   double beta, double *c, int ldc,
                                   void *stream) {
  gemm("cublasDgemm", blas().dgemm, order, transA, transB, m, n, k, alpha, a,
       lda, b, ldb, beta, c, ldc, stream);
}

/// The CBLAS arguments with 16-bit float inputs and an f32 or 16-bit output
/// (dist_dtype_t codes, what dist-matmul-to-blas{library=cublas} emits for
/// mixed precision): cublasGemmEx accumulating in f32 (tensor cores), the
/// output rounded once.
DIST_EXPORT void dist_cublas_gemm_ex(int order, int transA, int transB, int m,
                                     int n, int k, float alpha, const void *a,
                                     int lda, const void *b, int ldb,
                                     float beta, void *c, int ldc,
                                     int inputType, int outputType,
                                     void *stream) {
  cudaDataType_t input = toCudaType(inputType), output = toCudaType(outputType);
  if (input == CUDA_R_32F)
    fail("dist_cublas_gemm_ex: f32 inputs go to dist_cublas_sgemm", nullptr);
  if (output != CUDA_R_32F && output != input)
    fail("dist_cublas_gemm_ex: the output must be f32 or of the inputs' type",
         nullptr);
  const char *types = Profile::profile().level > 1
                          ? mixedTypes(inputType, outputType)
                          : "";
  runBlas("cublasGemmEx", order, stream,
          {transA, transB, m, n, k, a, b, c, lda, ldb, ldc, 1, types}, [&] {
    return blas().gemmEx(blas().handle, toCublas(transB), toCublas(transA), n,
                         m, k, &alpha, b, input, ldb, a, input, lda, &beta, c,
                         output, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  });
}

DIST_EXPORT void dist_cublas_sgemm_strided_batched(
    int order, int transA, int transB, int m, int n, int k, float alpha,
    const float *a, int lda, int64_t strideA, const float *b, int ldb,
    int64_t strideB, float beta, float *c, int ldc, int64_t strideC,
    int batchCount, void *stream) {
  gemmStridedBatched("cublasSgemmStridedBatched", blas().sgemmStridedBatched,
                     order, transA, transB, m, n, k, alpha, a, lda, strideA,
                     b, ldb, strideB, beta, c, ldc, strideC, batchCount,
                     stream);
}

DIST_EXPORT void dist_cublas_dgemm_strided_batched(
    int order, int transA, int transB, int m, int n, int k, double alpha,
    const double *a, int lda, int64_t strideA, const double *b, int ldb,
    int64_t strideB, double beta, double *c, int ldc, int64_t strideC,
    int batchCount, void *stream) {
  gemmStridedBatched("cublasDgemmStridedBatched", blas().dgemmStridedBatched,
                     order, transA, transB, m, n, k, alpha, a, lda, strideA,
                     b, ldb, strideB, beta, c, ldc, strideC, batchCount,
                     stream);
}

/// dist_cublas_gemm_ex over `batchCount` strided products
/// (cublasGemmStridedBatchedEx, f32 accumulation).
DIST_EXPORT void dist_cublas_gemm_ex_strided_batched(
    int order, int transA, int transB, int m, int n, int k, float alpha,
    const void *a, int lda, int64_t strideA, const void *b, int ldb,
    int64_t strideB, float beta, void *c, int ldc, int64_t strideC,
    int batchCount, int inputType, int outputType, void *stream) {
  cudaDataType_t input = toCudaType(inputType), output = toCudaType(outputType);
  if (input == CUDA_R_32F)
    fail("dist_cublas_gemm_ex_strided_batched: f32 inputs go to "
         "dist_cublas_sgemm_strided_batched",
         nullptr);
  if (output != CUDA_R_32F && output != input)
    fail("dist_cublas_gemm_ex_strided_batched: the output must be f32 or of "
         "the inputs' type",
         nullptr);
  const char *types = Profile::profile().level > 1
                          ? mixedTypes(inputType, outputType)
                          : "";
  runBlas("cublasGemmStridedBatchedEx", order, stream,
          {transA, transB, m, n, k, a, b, c, lda, ldb, ldc, batchCount, types},
          [&] {
    return blas().gemmStridedBatchedEx(
        blas().handle, toCublas(transB), toCublas(transA), n, m, k, &alpha, b,
        input, ldb, strideB, a, input, lda, strideA, &beta, c, output, ldc,
        strideC, batchCount, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  });
}
