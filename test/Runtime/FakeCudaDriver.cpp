//===- FakeCudaDriver.cpp - A CUDA driver on the host, for tests ----------===//
//
// A libcuda.so.1 for machines without a GPU: "device" memory is host memory,
// streams and events are handles, and work is done when it is issued. With
// the fake NCCL (FakeNccl.cpp) it runs the nccl backend's code on the CPU:
// groups, unique ids, streams and events, host reductions, errors and
// timeouts. FAKE_CUDA_EVENTS_NEVER_COMPLETE=1 leaves pending every event
// recorded on a stream the driver made (a collective that never completes),
// and a host that synchronizes a stream waiting forever;
// FAKE_CUDA_NO_POOLS=1 makes a device without memory pools,
// FAKE_CUDA_OOM_ONCE=1 one out of memory until its pool is trimmed. The
// driver knows its allocations: freeing anything else is an error, and
// cuMemGetAddressRange finds the allocation of an address (how the fake
// cuBLAS and emulated kernels check that they get device memory). Only the
// entry points dist calls.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <unistd.h>

namespace {

struct FakeEvent {
  bool recorded = false;
  /// Recorded on a stream this driver made (the nccl backend's
  /// communication streams), not on one the caller passed in.
  bool onDriverStream = false;
  /// When it was recorded: the fake's work runs on the host at once, so
  /// two events' elapsed time is the host's time between their records.
  std::chrono::steady_clock::time_point when;
};

/// FAKE_CUDA_EVENTS_NEVER_COMPLETE=1: the work on the streams this driver
/// made never completes (a collective stuck in NCCL); the caller's own
/// work (events on streams it made up) does.
bool eventsNeverComplete() {
  const char *value = std::getenv("FAKE_CUDA_EVENTS_NEVER_COMPLETE");
  return value && std::strcmp(value, "1") == 0;
}

/// FAKE_CUDA_NO_POOLS=1: a device without memory pools.
/// FAKE_CUDA_OOM_ONCE=1: allocations run out of memory until the pool is
/// trimmed (memory the pool held for freed buffers given back).
bool isSet(const char *name) {
  const char *value = std::getenv(name);
  return value && std::strcmp(value, "1") == 0;
}

int contextStorage, poolStorage;
std::mutex streamsMutex;
std::set<CUstream> driverStreams;
std::set<CUdeviceptr> poolAllocations; // made by cuMemAllocAsync
bool trimmed = false;
std::mutex allocationsMutex;
std::map<CUdeviceptr, size_t> allocations; // start -> bytes

/// FAKE_CUDA_OOM_ONCE fails allocations until the pool was trimmed.
bool failsForMemory() { return isSet("FAKE_CUDA_OOM_ONCE") && !trimmed; }

} // namespace

#define FAKE_EXPORT __attribute__((visibility("default")))

extern "C" {

// As the real driver: its exit handler (registered by cuInit) deinitializes
// it, and every later call fails, cuGetErrorName included (seen on an H200:
// a step's global destructor unloading its kernels met this).
static std::atomic<bool> deinitialized{false};

FAKE_EXPORT CUresult cuInit(unsigned int) {
  static std::once_flag registered;
  std::call_once(registered,
                 [] { std::atexit([] { deinitialized.store(true); }); });
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  if (deinitialized.load()) {
    *name = nullptr;
    return CUDA_ERROR_DEINITIALIZED;
  }
  switch (error) {
  case CUDA_ERROR_NOT_SUPPORTED: *name = "CUDA_ERROR_NOT_SUPPORTED"; break;
  case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; break;
  case CUDA_ERROR_NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; break;
  default: *name = "CUDA_ERROR_FAKE";
  }
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&contextStorage);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext) {
  return deinitialized.load() ? CUDA_ERROR_DEINITIALIZED : CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }

// No kernels on this device.
FAKE_EXPORT CUresult cuModuleLoadData(CUmodule *, const void *) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
FAKE_EXPORT CUresult cuModuleUnload(CUmodule) { return CUDA_ERROR_NOT_SUPPORTED; }
FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
FAKE_EXPORT CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, unsigned, unsigned,
                                    CUstream, void **, void **) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  *stream = reinterpret_cast<CUstream>(new int(0)); // never freed
  std::lock_guard<std::mutex> lock(streamsMutex);
  driverStreams.insert(*stream);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }
// Work that never completes never lets a synchronizing host go.
FAKE_EXPORT CUresult cuStreamSynchronize(CUstream) {
  while (eventsNeverComplete())
    sleep(1);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuStreamQuery(CUstream) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuStreamWaitEvent(CUstream, CUevent event, unsigned int) {
  return event ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new FakeEvent());
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuEventDestroy(CUevent event) {
  delete reinterpret_cast<FakeEvent *>(event);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
  auto *fake = reinterpret_cast<FakeEvent *>(event);
  fake->recorded = true;
  fake->when = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(streamsMutex);
  fake->onDriverStream = driverStreams.count(stream) != 0;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuEventQuery(CUevent event) {
  auto *fake = reinterpret_cast<FakeEvent *>(event);
  if (!fake->recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  return eventsNeverComplete() && fake->onDriverStream ? CUDA_ERROR_NOT_READY
                                                       : CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuEventSynchronize(CUevent event) {
  return cuEventQuery(event) == CUDA_ERROR_INVALID_HANDLE
             ? CUDA_ERROR_INVALID_HANDLE
             : CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventElapsedTime(float *milliseconds, CUevent start,
                                        CUevent end) {
  auto *first = reinterpret_cast<FakeEvent *>(start);
  auto *last = reinterpret_cast<FakeEvent *>(end);
  if (!first || !last || !first->recorded || !last->recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  *milliseconds =
      std::chrono::duration<float, std::milli>(last->when - first->when)
          .count();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemAlloc(CUdeviceptr *pointer, size_t bytes) {
  if (failsForMemory())
    return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = reinterpret_cast<CUdeviceptr>(std::calloc(bytes, 1));
  if (!*pointer)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> lock(allocationsMutex);
  allocations[*pointer] = bytes;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes,
                                       unsigned int) {
  return cuMemAlloc(pointer, bytes);
}
FAKE_EXPORT CUresult cuMemFree(CUdeviceptr pointer) {
  if (!pointer)
    return CUDA_SUCCESS;
  {
    std::lock_guard<std::mutex> lock(allocationsMutex);
    if (!allocations.erase(pointer))
      return CUDA_ERROR_INVALID_VALUE; // not an allocation of this driver
  }
  poolAllocations.erase(pointer);
  std::free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes,
                                     CUstream) {
  if (isSet("FAKE_CUDA_NO_POOLS"))
    return CUDA_ERROR_NOT_SUPPORTED;
  CUresult result = cuMemAlloc(pointer, bytes);
  if (result == CUDA_SUCCESS)
    poolAllocations.insert(*pointer);
  return result;
}
// Only the pool's memory (the driver refuses other memory).
FAKE_EXPORT CUresult cuMemFreeAsync(CUdeviceptr pointer, CUstream) {
  if (!poolAllocations.count(pointer))
    return CUDA_ERROR_INVALID_VALUE;
  return cuMemFree(pointer);
}
FAKE_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice) {
  *pool = reinterpret_cast<CUmemoryPool>(&poolStorage);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute,
                                           void *) {
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool, size_t) {
  trimmed = true;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute,
                                          CUdevice) {
  *value = !isSet("FAKE_CUDA_NO_POOLS"); // memory pools, the only one asked
  return CUDA_SUCCESS;
}
// The pool of an allocation (the only attribute asked): null unless
// cuMemAllocAsync made it.
FAKE_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute,
                                           CUdeviceptr pointer) {
  *static_cast<CUmemoryPool *>(data) =
      poolAllocations.count(pointer)
          ? reinterpret_cast<CUmemoryPool>(&poolStorage)
          : nullptr;
  return CUDA_SUCCESS;
}
// The allocation holding `pointer` (CUDA_ERROR_NOT_FOUND: host memory).
FAKE_EXPORT CUresult cuMemGetAddressRange(CUdeviceptr *base, size_t *bytes,
                                          CUdeviceptr pointer) {
  std::lock_guard<std::mutex> lock(allocationsMutex);
  auto next = allocations.upper_bound(pointer);
  if (next == allocations.begin())
    return CUDA_ERROR_NOT_FOUND;
  auto allocation = std::prev(next);
  if (pointer >= allocation->first + allocation->second)
    return CUDA_ERROR_NOT_FOUND;
  if (base)
    *base = allocation->first;
  if (bytes)
    *bytes = allocation->second;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemcpy(CUdeviceptr to, CUdeviceptr from, size_t bytes) {
  std::memmove(reinterpret_cast<void *>(to), reinterpret_cast<void *>(from),
               bytes);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemcpyAsync(CUdeviceptr to, CUdeviceptr from,
                                   size_t bytes, CUstream) {
  return cuMemcpy(to, from, bytes);
}
FAKE_EXPORT CUresult cuMemsetD32Async(CUdeviceptr to, unsigned int value,
                                      size_t count, CUstream) {
  auto *words = reinterpret_cast<unsigned int *>(to);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemsetD16Async(CUdeviceptr to, unsigned short value,
                                      size_t count, CUstream) {
  auto *words = reinterpret_cast<unsigned short *>(to);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
  return CUDA_SUCCESS;
}

} // extern "C"
