//===- PackedProgram.cpp - A compiled step called on host buffers ---------===//

#include "dist/Tools/DistRun/PackedProgram.h"

#include "mlir/ExecutionEngine/MemRefUtils.h"

#include <dlfcn.h>

#include <cassert>
#include <cstring>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::run;

namespace {
/// An owning memref descriptor of any rank and element width, with
/// identity strides: its data is the row-major array, in host memory or on
/// the GPU (a step compiled by dist-lower-to-nvvm works on device buffers).
class Buffer {
public:
  virtual ~Buffer() = default;
  /// The StridedMemRefType that the C interface takes a pointer to.
  virtual void *descriptor() = 0;
  /// Copies `bytes` from host memory into the buffer, and back.
  virtual void copyIn(const void *from, size_t bytes) = 0;
  virtual void copyOut(void *to, size_t bytes) const = 0;
  /// Copies `bytes` from another buffer of the same kind.
  virtual void copyFrom(const Buffer &other, size_t bytes) = 0;
};

template <typename T, int Rank> class HostBuffer : public Buffer {
public:
  explicit HostBuffer(ArrayRef<int64_t> shape) : memref(shape) {}
  void *descriptor() override { return &*memref; }
  void copyIn(const void *from, size_t bytes) override {
    std::memcpy(data(), from, bytes);
  }
  void copyOut(void *to, size_t bytes) const override {
    std::memcpy(to, data(), bytes);
  }
  void copyFrom(const Buffer &other, size_t bytes) override {
    other.copyOut(data(), bytes);
  }

private:
  char *data() const { return reinterpret_cast<char *>(memref->data); }
  mutable OwningMemRef<T, Rank> memref;
};

/// The CUDA runtime library's memory functions (libdist_cuda_runtime.so,
/// which the GPU program loaded), found at run time: nothing here links
/// CUDA.
struct DeviceMemory {
  void *(*alloc)(uint64_t bytes, void *stream, bool hostShared) = nullptr;
  void (*free)(void *pointer, void *stream) = nullptr;
  void (*copy)(void *to, void *from, size_t bytes, void *stream) = nullptr;
  void (*synchronize)(void *stream) = nullptr;
  /// DIST_CUDA_PROFILE's restart (optional: a runtime without it has no
  /// profile to restart).
  void (*restartProfile)(const char *since) = nullptr;

  static const DeviceMemory *get(std::string &error) {
    static DeviceMemory memory = [] {
      DeviceMemory m;
      m.alloc = reinterpret_cast<decltype(m.alloc)>(
          dlsym(RTLD_DEFAULT, "mgpuMemAlloc"));
      m.free = reinterpret_cast<decltype(m.free)>(
          dlsym(RTLD_DEFAULT, "mgpuMemFree"));
      m.copy = reinterpret_cast<decltype(m.copy)>(
          dlsym(RTLD_DEFAULT, "mgpuMemcpy"));
      m.synchronize = reinterpret_cast<decltype(m.synchronize)>(
          dlsym(RTLD_DEFAULT, "mgpuStreamSynchronize"));
      m.restartProfile = reinterpret_cast<decltype(m.restartProfile)>(
          dlsym(RTLD_DEFAULT, "dist_cuda_profile_restart"));
      return m;
    }();
    if (!memory.alloc || !memory.free || !memory.copy || !memory.synchronize) {
      error = "device buffers need libdist_cuda_runtime.so loaded "
              "(mgpuMemAlloc, mgpuMemFree, mgpuMemcpy, mgpuStreamSynchronize)";
      return nullptr;
    }
    return &memory;
  }
};

/// A buffer on the GPU: the step reads and writes it there, and only what
/// changes between steps crosses (copies on the null stream, waited for).
template <int Rank> class DeviceBuffer : public Buffer {
public:
  DeviceBuffer(const DeviceMemory &memory, ArrayRef<int64_t> shape,
               int64_t elementBytes)
      : memory(memory) {
    int64_t stride = 1;
    if constexpr (Rank > 0) {
      for (int d = Rank - 1; d >= 0; --d) {
        descriptorValue.sizes[d] = shape[d];
        descriptorValue.strides[d] = stride;
        stride *= shape[d];
      }
    }
    bytes = (size_t)(stride * elementBytes);
    auto *data = static_cast<uint8_t *>(memory.alloc(bytes, nullptr, false));
    descriptorValue.basePtr = descriptorValue.data = data;
    descriptorValue.offset = 0;
  }
  ~DeviceBuffer() override {
    memory.free(descriptorValue.basePtr, nullptr);
  }
  void *descriptor() override { return &descriptorValue; }
  void copyIn(const void *from, size_t count) override {
    transfer(descriptorValue.data, from, count);
  }
  void copyOut(void *to, size_t count) const override {
    transfer(to, descriptorValue.data, count);
  }
  void copyFrom(const Buffer &other, size_t count) override {
    auto &device = static_cast<const DeviceBuffer<Rank> &>(other);
    transfer(descriptorValue.data, device.descriptorValue.data, count);
  }

private:
  void transfer(void *to, const void *from, size_t count) const {
    if (!count)
      return;
    memory.copy(to, const_cast<void *>(from), count, nullptr);
    memory.synchronize(nullptr);
  }
  const DeviceMemory &memory;
  StridedMemRefType<uint8_t, Rank> descriptorValue;
  size_t bytes = 0;
};

template <int Rank = 0>
std::unique_ptr<Buffer> makeDeviceBufferOfRank(const DeviceMemory &memory,
                                               ArrayRef<int64_t> shape,
                                               int64_t elementBytes) {
  if constexpr (Rank > kMaxRank) {
    return nullptr;
  } else {
    if ((int)shape.size() == Rank)
      return std::make_unique<DeviceBuffer<Rank>>(memory, shape, elementBytes);
    return makeDeviceBufferOfRank<Rank + 1>(memory, shape, elementBytes);
  }
}

template <typename T, int Rank = 0>
std::unique_ptr<Buffer> makeBufferOfRank(ArrayRef<int64_t> shape) {
  if constexpr (Rank > kMaxRank) {
    return nullptr;
  } else {
    if ((int)shape.size() == Rank)
      return std::make_unique<HostBuffer<T, Rank>>(shape);
    return makeBufferOfRank<T, Rank + 1>(shape);
  }
}

/// A buffer of `array`'s shape for its elements: on the GPU when `device`.
std::unique_ptr<Buffer> makeBuffer(const hostdata::HostArray &array,
                                   const DeviceMemory *device) {
  ArrayRef<int64_t> shape(array.shape());
  int64_t width = hostdata::byteWidth(array.dtype());
  if (device)
    return makeDeviceBufferOfRank(*device, shape, width);
  switch (width) {
  case 1:
    return makeBufferOfRank<uint8_t>(shape);
  case 2:
    return makeBufferOfRank<uint16_t>(shape);
  case 4:
    return makeBufferOfRank<uint32_t>(shape);
  default:
    return makeBufferOfRank<uint64_t>(shape);
  }
}
} // namespace

/// An argument or result of the entry between calls: a buffer, or a scalar
/// argument's bytes.
struct PackedProgram::Frame {
  struct Slot {
    std::unique_ptr<Buffer> buffer;
    alignas(8) char scalar[8] = {}; // the widest scalar: i64, f64
    meshmath::Shape shape;
    hostdata::DType dtype;
    int64_t numBytes = 0;

    /// A result the wrapper writes into an argument's buffer: that
    /// argument's index (the slot has no buffer of its own).
    int64_t argument = -1;

    bool fits(const HostValue &value) const {
      return (buffer != nullptr || argument >= 0) != value.isScalar &&
             value.array.dtype() == dtype && value.array.shape() == shape;
    }
  };
  std::vector<Slot> args, results;
  /// invokePacked's parameters: a scalar's address, or the address of a
  /// pointer to a memref descriptor.
  std::vector<void *> descriptors;
  SmallVector<void *> packed;
};

LogicalResult PackedProgram::bind(ArrayRef<HostValue> args,
                                    ArrayRef<HostValue> results,
                                    std::string &error) {
  auto fits = [](ArrayRef<Frame::Slot> slots, ArrayRef<HostValue> values) {
    return slots.size() == values.size() &&
           llvm::all_of(llvm::zip(slots, values), [](auto pair) {
             return std::get<0>(pair).fits(std::get<1>(pair));
           });
  };
  if (frame && fits(frame->args, args) && fits(frame->results, results))
    return success();
  const DeviceMemory *device = nullptr;
  if (deviceBuffers && !(device = DeviceMemory::get(error)))
    return failure();
  auto newFrame = std::make_unique<Frame>();
  auto makeSlot = [&](const HostValue &value,
                      Frame::Slot &slot) -> LogicalResult {
    slot.shape = value.array.shape();
    slot.dtype = value.array.dtype();
    slot.numBytes = value.array.numBytes();
    if (value.isScalar)
      return success();
    slot.buffer = makeBuffer(value.array, device);
    if (slot.buffer)
      return success();
    error = "a tensor of rank " + std::to_string(slot.shape.size()) +
            " (dist-run passes ranks up to " + std::to_string(kMaxRank) + ")";
    return failure();
  };
  newFrame->args.resize(args.size());
  newFrame->results.resize(results.size());
  for (auto [value, slot] : llvm::zip(args, newFrame->args))
    if (failed(makeSlot(value, slot)))
      return failure();
  for (auto [i, value] : llvm::enumerate(results)) {
    Frame::Slot &slot = newFrame->results[i];
    int64_t arg = i < resultsInArguments.size() ? resultsInArguments[i] : -1;
    if (arg < 0) {
      if (failed(makeSlot(value, slot)))
        return failure();
      continue;
    }
    if ((size_t)arg >= args.size() ||
        args[arg].array.numBytes() != value.array.numBytes()) {
      error = "result " + std::to_string(i) + " is kept in argument " +
              std::to_string(arg) + ", which has another size";
      return failure();
    }
    slot.shape = value.array.shape();
    slot.dtype = value.array.dtype();
    slot.numBytes = value.array.numBytes();
    slot.argument = arg;
  }
  newFrame->descriptors.resize(args.size() + results.size());
  frame = std::move(newFrame);
  return success();
}

void PackedProgram::setArgument(unsigned index, const HostValue &value) {
  Frame::Slot &slot = frame->args[index];
  assert(slot.fits(value) && "an argument of another type than bound");
  if (slot.buffer)
    slot.buffer->copyIn(value.array.data(), slot.numBytes);
  else
    std::memcpy(slot.scalar, value.array.data(), slot.numBytes);
}

/// The buffer that holds result `index` after a call.
static Buffer &resultBuffer(PackedProgram::Frame &frame, unsigned index) {
  PackedProgram::Frame::Slot &slot = frame.results[index];
  if (slot.argument >= 0)
    return *frame.args[slot.argument].buffer;
  return *slot.buffer;
}

void PackedProgram::getResult(unsigned index,
                              hostdata::HostArray &array) const {
  assert(array.numBytes() == frame->results[index].numBytes &&
         "a result of another size");
  resultBuffer(*frame, index).copyOut(array.data(), array.numBytes());
}

void PackedProgram::setResult(unsigned index,
                              const hostdata::HostArray &array) {
  assert(array.numBytes() == frame->results[index].numBytes &&
         "a result of another size");
  resultBuffer(*frame, index).copyIn(array.data(), array.numBytes());
}

void PackedProgram::feedResultToArgument(unsigned result, unsigned argument) {
  Frame::Slot &from = frame->results[result], &to = frame->args[argument];
  assert(from.numBytes == to.numBytes && "a result of another size");
  // Already there: the step updated the argument in place.
  if (from.argument == (int64_t)argument)
    return;
  if (!to.buffer)
    resultBuffer(*frame, result).copyOut(to.scalar, to.numBytes);
  else if (from.argument >= 0)
    to.buffer->copyFrom(resultBuffer(*frame, result), to.numBytes);
  else
    std::swap(from.buffer, to.buffer);
}

void PackedProgram::invoke() {
  Frame &f = *frame;
  f.packed.clear();
  size_t next = 0;
  auto add = [&](Frame::Slot &slot) {
    // A result kept in an argument: the wrapper leaves its `out` parameter
    // alone; the argument's buffer stands in for it.
    Buffer *buffer =
        slot.argument >= 0 ? f.args[slot.argument].buffer.get() : slot.buffer.get();
    if (!buffer) {
      f.packed.push_back(slot.scalar);
      return;
    }
    f.descriptors[next] = buffer->descriptor();
    f.packed.push_back(&f.descriptors[next++]);
  };
  for (Frame::Slot &slot : f.args)
    add(slot);
  for (Frame::Slot &slot : f.results)
    add(slot);
  packedEntry(f.packed.data());
}

void PackedProgram::restartDeviceProfile(const char *since) {
  std::string error;
  if (!deviceBuffers)
    return;
  if (const DeviceMemory *device = DeviceMemory::get(error))
    if (device->restartProfile)
      device->restartProfile(since);
}

LogicalResult PackedProgram::call(ArrayRef<HostValue> args,
                                    MutableArrayRef<HostValue> results,
                                    std::string &error) {
  if (failed(bind(args, results, error)))
    return failure();
  for (auto [i, arg] : llvm::enumerate(args))
    setArgument(i, arg);
  invoke();
  for (auto [i, result] : llvm::enumerate(results))
    getResult(i, result.array);
  return success();
}

PackedProgram::PackedProgram() = default;
PackedProgram::~PackedProgram() = default;
