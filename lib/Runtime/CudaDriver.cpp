//===- CudaDriver.cpp - The CUDA driver, opened at run time ---------------===//

#include "CudaDriver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#define DIST_STRINGIFY(x) #x
#define DIST_SYMBOL(x) DIST_STRINGIFY(x)

using namespace distcuda;

namespace {

std::atomic<bool> exiting{false};

/// Opens and initializes the driver; returns the error, empty on success.
std::string initialize(Driver &driver, int preferredDevice) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!library)
    return std::string("cannot load the CUDA driver (GPU programs need an "
                       "NVIDIA driver and a GPU): ") +
           dlerror();
#define DIST_RESOLVE(name)                                                     \
  driver.name =                                                                \
      reinterpret_cast<decltype(driver.name)>(dlsym(library, DIST_SYMBOL(name))); \
  if (!driver.name)                                                            \
    return "the CUDA driver lacks " DIST_SYMBOL(name);
  DIST_CUDA_DRIVER_FUNCTIONS(DIST_RESOLVE)
#undef DIST_RESOLVE
  for (const char *name : {"cuEventElapsedTime_v2", "cuEventElapsedTime"})
    if (!driver.cuEventElapsedTime)
      driver.cuEventElapsedTime =
          reinterpret_cast<decltype(driver.cuEventElapsedTime)>(
              dlsym(library, name));
  if (!driver.cuEventElapsedTime)
    return "the CUDA driver lacks cuEventElapsedTime";
  CUresult result = driver.cuInit(0);
  if (result != CUDA_SUCCESS)
    return describeFailure(driver, result, "cuInit");
  // Exit handlers run in reverse order: this one before the driver's.
  std::atexit([] { exiting.store(true); });
  int count = 0;
  result = driver.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    return describeFailure(driver, result, "cuDeviceGetCount");
  if (count == 0)
    return "no CUDA device is present";
  int device = preferredDevice;
  if (device < 0) {
    if (const char *chosen = std::getenv("DIST_CUDA_DEVICE"))
      device = std::atoi(chosen);
    else if (const char *local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK"))
      device = std::atoi(local) % count;
    else if (const char *local = std::getenv("MPI_LOCALRANKID")) // MPICH
      device = std::atoi(local) % count;
    else if (const char *local = std::getenv("LOCAL_RANK")) // launch.py
      device = std::atoi(local) % count;
    else
      device = 0;
  }
  if (device < 0 || device >= count)
    return "DIST_CUDA_DEVICE=" + std::to_string(device) +
           " names no device (there are " + std::to_string(count) + ")";
  driver.device = device;
  CUdevice handle;
  result = driver.cuDeviceGet(&handle, device);
  if (result != CUDA_SUCCESS)
    return describeFailure(driver, result, "cuDeviceGet");
  result = driver.cuDevicePrimaryCtxRetain(&driver.context, handle);
  if (result != CUDA_SUCCESS)
    return describeFailure(driver, result, "cuDevicePrimaryCtxRetain");
  // A step's buffers are allocated and freed on its stream (mgpuMemAlloc):
  // the pool keeps freed memory for the next step instead of returning it
  // at every synchronization, as PyTorch's caching allocator does (and, like
  // it, gives it back when an allocation runs out of memory).
  int pools = 0;
  result = driver.cuDeviceGetAttribute(
      &pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, handle);
  if (result == CUDA_SUCCESS && pools &&
      driver.cuDeviceGetDefaultMemPool(&driver.pool, handle) == CUDA_SUCCESS) {
    cuuint64_t keepAll = ~cuuint64_t(0);
    result = driver.cuMemPoolSetAttribute(
        driver.pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keepAll);
    if (result != CUDA_SUCCESS)
      return describeFailure(driver, result, "cuMemPoolSetAttribute");
  } else {
    driver.pool = nullptr;
  }
  return "";
}

} // namespace

Driver *distcuda::loadDriver(int preferredDevice, std::string &error) {
  // Never destroyed: global destructors of programs may still call in.
  static Driver &instance = *new Driver();
  static std::string &loadError = *new std::string();
  static std::once_flag loaded;
  std::call_once(loaded,
                 [&] { loadError = initialize(instance, preferredDevice); });
  if (!loadError.empty()) {
    error = loadError;
    return nullptr;
  }
  // The calling thread works in the device's primary context.
  CUresult result = instance.cuCtxSetCurrent(instance.context);
  if (result != CUDA_SUCCESS) {
    error = describeFailure(instance, result, "cuCtxSetCurrent");
    return nullptr;
  }
  return &instance;
}

bool distcuda::processExiting() { return exiting.load(); }

std::string distcuda::describeFailure(const Driver &driver, CUresult result,
                                      const char *call) {
  const char *name = nullptr;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(result, &name);
  return std::string(call) + " failed: " + (name ? name : "unknown error") +
         " (device " + std::to_string(driver.device) + ")";
}
