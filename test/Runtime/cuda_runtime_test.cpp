//===- cuda_runtime_test.cpp - The mgpu functions over the CUDA driver ----===//
//
// With a GPU: memory, a memset on a stream, a copy back, events; prints "ok".
// A buffer, an event and the stream are released at exit, after the driver's
// own exit handler, as a program's global destructors release its kernels:
// that must neither fail nor print an error.
// With the argument "host-operand": the emulated kernels' check of their
// operands passes a device buffer and stops at a host one.
// Without a driver (CI): the first call stops with dist's message (checked by
// the test's expected output), not a crash or a failure to load.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void *mgpuEventCreate();
void mgpuEventRecord(void *event, void *stream);
void mgpuEventSynchronize(void *event);
void mgpuEventDestroy(void *event);
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *destination, void *source, size_t bytes, void *stream);
void mgpuMemset32(void *destination, unsigned int value, size_t count,
                  void *stream);
void dist_cuda_check_kernel_operand(const void *pointer, int64_t bytes,
                                    int64_t operand, const char *kernel);
}

namespace {
void *releasedAtExit[3]; // buffer, event, stream
} // namespace

int main(int argc, char **argv) {
  // Registered before the driver is loaded, so it runs after its handler.
  std::atexit([] {
    mgpuMemFree(releasedAtExit[0], releasedAtExit[2]);
    mgpuEventDestroy(releasedAtExit[1]);
    mgpuStreamDestroy(releasedAtExit[2]);
  });
  void *stream = mgpuStreamCreate();
  const int n = 1024;
  void *device = mgpuMemAlloc(n * sizeof(uint32_t), stream, false);
  void *managed = mgpuMemAlloc(n * sizeof(uint32_t), stream, true);
  mgpuMemset32(device, 7, n, stream);
  mgpuMemcpy(managed, device, n * sizeof(uint32_t), stream);
  uint32_t host[n] = {};
  mgpuMemcpy(host, managed, n * sizeof(uint32_t), stream);
  void *event = mgpuEventCreate();
  mgpuEventRecord(event, stream);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  if (argc > 1 && std::string(argv[1]) == "host-operand") {
    dist_cuda_check_kernel_operand(device, n * sizeof(uint32_t), 0,
                                   "kernels::device_operand");
    dist_cuda_check_kernel_operand(host, n * sizeof(uint32_t), 1,
                                   "kernels::host_operand");
    std::printf("cuda runtime: the host operand passed\n");
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += host[i] != 7 || static_cast<uint32_t *>(managed)[i] != 7;
  mgpuMemFree(managed, stream);
  releasedAtExit[0] = device;
  releasedAtExit[1] = mgpuEventCreate();
  releasedAtExit[2] = stream;
  std::printf("cuda runtime: %s (%d wrong of %d)\n", wrong ? "FAIL" : "ok",
              wrong, n);
  return wrong != 0;
}
