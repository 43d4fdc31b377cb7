//===- CudaDriver.h - The CUDA driver, opened at run time -------*- C++ -*-===//
//
// What the CUDA runtime library (CudaRuntime.cpp) and the NCCL backend share:
// the driver (libcuda.so.1) is opened on first use, never linked, so both
// libraries load on machines without a driver; the device each rank uses is
// chosen once per process, so the program's kernels and its collectives run
// on the same device, in its primary context.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_LIB_RUNTIME_CUDADRIVER_H
#define DIST_LIB_RUNTIME_CUDADRIVER_H

#include <cuda.h>

#include <string>

namespace distcuda {

/// The driver entry points dist calls, resolved by their versioned names
/// (cuda.h maps cuMemAlloc to cuMemAlloc_v2, and so on).
#define DIST_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuInit) X(cuGetErrorName) X(cuDeviceGetCount) X(cuDeviceGet)               \
  X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuModuleLoadData)          \
  X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel)                   \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)                  \
  X(cuStreamQuery) X(cuStreamWaitEvent) X(cuEventCreate) X(cuEventDestroy)     \
  X(cuEventSynchronize) X(cuEventRecord) X(cuEventQuery) X(cuMemAlloc)         \
  X(cuMemAllocManaged) X(cuMemFree) X(cuMemcpy) X(cuMemcpyAsync)              \
  X(cuMemsetD32Async) X(cuMemsetD16Async) X(cuCtxSynchronize)               \
  X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuDeviceGetDefaultMemPool)            \
  X(cuMemPoolSetAttribute) X(cuMemPoolTrimTo) X(cuDeviceGetAttribute)          \
  X(cuPointerGetAttribute) X(cuMemGetAddressRange)

struct Driver {
#define DIST_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  DIST_CUDA_DRIVER_FUNCTIONS(DIST_CUDA_DRIVER_MEMBER)
#undef DIST_CUDA_DRIVER_MEMBER
  /// cuEventElapsedTime_v2 (CUDA 12.8's drivers on), else the first
  /// version (the same signature; it differs for events on other devices).
  decltype(&::cuEventElapsedTime) cuEventElapsedTime = nullptr;
  CUcontext context = nullptr;
  int device = -1;
  /// The device's default memory pool, where allocations on a stream come
  /// from; null when the device has none (then every allocation is
  /// cuMemAlloc and every free cuMemFree).
  CUmemoryPool pool = nullptr;
};

/// The driver, loaded and initialized by the first call in the process, with
/// the calling thread in the chosen device's primary context. The device is
/// `preferredDevice` when the first call passes one (>= 0), else
/// DIST_CUDA_DEVICE, else the local rank (OMPI_COMM_WORLD_LOCAL_RANK,
/// MPI_LOCALRANKID or LOCAL_RANK) modulo the devices present, else 0. (The
/// nccl backend loads the driver at dist_init: a program's later
/// mgpuSetDefaultDevice does not move the rank to another device.) Returns null with `error` set when there is
/// no driver or no device (every later call returns the same error).
__attribute__((visibility("default"))) Driver *
loadDriver(int preferredDevice, std::string &error);

/// True once the process exits (an exit handler registered right after
/// cuInit, so it runs before the driver's own, which deinitializes it).
/// From then on the driver refuses every call, cuCtxSetCurrent included,
/// and releases the process's modules, memory, streams and events itself:
/// what a program's global destructors would release is left to it.
__attribute__((visibility("default"))) bool processExiting();

/// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (device 0)".
__attribute__((visibility("default"))) std::string
describeFailure(const Driver &driver, CUresult result, const char *call);

} // namespace distcuda

#endif // DIST_LIB_RUNTIME_CUDADRIVER_H
