//===- PackedProgram.cpp - A compiled step called on host buffers ---------===//

#include "dist/Tools/DistRun/PackedProgram.h"

#include "mlir/ExecutionEngine/MemRefUtils.h"

#include <cassert>
#include <cstring>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::run;

namespace {
/// An owning memref descriptor of any rank and element width, with
/// identity strides: its data is the row-major array.
class Buffer {
public:
  virtual ~Buffer() = default;
  /// The StridedMemRefType that the C interface takes a pointer to.
  virtual void *descriptor() = 0;
  virtual char *data() = 0;
};

template <typename T, int Rank> class BufferOf : public Buffer {
public:
  explicit BufferOf(ArrayRef<int64_t> shape) : memref(shape) {}
  void *descriptor() override { return &*memref; }
  char *data() override { return reinterpret_cast<char *>(memref->data); }

private:
  OwningMemRef<T, Rank> memref;
};

template <typename T, int Rank = 0>
std::unique_ptr<Buffer> makeBufferOfRank(ArrayRef<int64_t> shape) {
  if constexpr (Rank > kMaxRank) {
    return nullptr;
  } else {
    if ((int)shape.size() == Rank)
      return std::make_unique<BufferOf<T, Rank>>(shape);
    return makeBufferOfRank<T, Rank + 1>(shape);
  }
}

/// A buffer of `array`'s shape whose elements are `array`'s bytes.
std::unique_ptr<Buffer> makeBuffer(const hostdata::HostArray &array) {
  ArrayRef<int64_t> shape(array.shape());
  switch (hostdata::byteWidth(array.dtype())) {
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
  auto newFrame = std::make_unique<Frame>();
  auto makeSlot = [&](const HostValue &value,
                      Frame::Slot &slot) -> LogicalResult {
    slot.shape = value.array.shape();
    slot.dtype = value.array.dtype();
    slot.numBytes = value.array.numBytes();
    if (value.isScalar)
      return success();
    slot.buffer = makeBuffer(value.array);
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
  std::memcpy(slot.buffer ? slot.buffer->data() : slot.scalar,
              value.array.data(), slot.numBytes);
}

/// The memory that holds result `index` after a call.
char *PackedProgram::resultData(unsigned index) const {
  Frame::Slot &slot = frame->results[index];
  if (slot.argument >= 0)
    return frame->args[slot.argument].buffer->data();
  return slot.buffer->data();
}

void PackedProgram::getResult(unsigned index,
                                hostdata::HostArray &array) const {
  assert(array.numBytes() == frame->results[index].numBytes &&
         "a result of another size");
  std::memcpy(array.data(), resultData(index), array.numBytes());
}

void PackedProgram::setResult(unsigned index,
                                const hostdata::HostArray &array) {
  assert(array.numBytes() == frame->results[index].numBytes &&
         "a result of another size");
  std::memcpy(resultData(index), array.data(), array.numBytes());
}

void PackedProgram::feedResultToArgument(unsigned result, unsigned argument) {
  Frame::Slot &from = frame->results[result], &to = frame->args[argument];
  assert(from.numBytes == to.numBytes && "a result of another size");
  // Already there: the step updated the argument in place.
  if (from.argument == (int64_t)argument)
    return;
  if (!to.buffer || from.argument >= 0)
    std::memcpy(to.buffer ? to.buffer->data() : to.scalar,
                resultData(result), to.numBytes);
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
