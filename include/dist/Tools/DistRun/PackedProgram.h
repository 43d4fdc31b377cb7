//===- PackedProgram.h - A compiled step called on host buffers -*- C++ -*-===//
//
// A step compiled with dist-run's wrapper, called through the wrapper's packed
// C interface (one pointer per parameter) on host buffers: MLIR's owning
// memref descriptors (mlir/ExecutionEngine/MemRefUtils.h, header only). No
// JIT here: dist-run's CompiledProgram fills the entry from its
// ExecutionEngine, dist-step from a shared object compiled ahead of time.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_TOOLS_DISTRUN_PACKEDPROGRAM_H
#define DIST_TOOLS_DISTRUN_PACKEDPROGRAM_H

#include "dist/Support/HostArray.h"

#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/LogicalResult.h"

#include <memory>
#include <string>

namespace mlir::dist::run {

/// The largest rank of a tensor that dist-run passes (the rank of MLIR's
/// owning memref descriptors is a template parameter).
constexpr int kMaxRank = 8;

/// A value passed to or returned by the entry.
struct HostValue {
  hostdata::HostArray array;
  bool isScalar = false;
};

class PackedProgram {
public:
  virtual ~PackedProgram();

  /// Calls the entry on `args` (in the argument types) and copies its results
  /// into `results` (whose types and shapes are set): bind, setArgument for
  /// each argument, invoke, getResult for each result.
  LogicalResult call(ArrayRef<HostValue> args,
                     MutableArrayRef<HostValue> results, std::string &error);

  /// Repeated calls keep their buffers: `bind` allocates one per argument
  /// and result of the entry (of the values' types and shapes), and a
  /// training loop copies only what changes between calls. Binding again
  /// with other shapes replaces the buffers.
  LogicalResult bind(ArrayRef<HostValue> args, ArrayRef<HostValue> results,
                     std::string &error);
  /// Copies `value` into argument `index`'s buffer (the entry may write its
  /// arguments: give an argument its value again before each call).
  void setArgument(unsigned index, const HostValue &value);
  /// Copies result `index` of the last call into `array`, or `array` into it.
  void getResult(unsigned index, hostdata::HostArray &array) const;
  void setResult(unsigned index, const hostdata::HostArray &array);
  /// Result `result` of the last call becomes argument `argument` of the
  /// next: nothing to do when the wrapper writes it into that argument
  /// (getWrapperResultsInArguments), else the two buffers swap (a copy for a
  /// scalar argument), so a training step's state moves without a copy.
  /// Their types must agree.
  void feedResultToArgument(unsigned result, unsigned argument);
  /// Calls the entry on the bound buffers.
  void invoke();
  /// A GPU entry: DIST_CUDA_PROFILE counts from here on, its totals naming
  /// `since` (dist_cuda_profile_restart); nothing otherwise.
  void restartDeviceProfile(const char *since);

protected:
  PackedProgram();
  /// The wrapper's packed C interface: one pointer per parameter.
  void (*packedEntry)(void **) = nullptr;
  /// Per result, the argument whose buffer the wrapper writes it into, or -1.
  SmallVector<int64_t> resultsInArguments;
  /// The entry works on GPU buffers (dist-lower-to-nvvm): bind allocates
  /// them with the CUDA runtime library's functions, which the program
  /// loaded, and only values set or read cross between host and device.
  bool deviceBuffers = false;

public:
  struct Frame;

private:
  std::unique_ptr<Frame> frame;
};

} // namespace mlir::dist::run

#endif // DIST_TOOLS_DISTRUN_PACKEDPROGRAM_H
