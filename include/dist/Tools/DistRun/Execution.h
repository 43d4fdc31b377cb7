//===- Execution.h - JIT-compile a program and call it ----------*- C++ -*-===//
//
// A program with dist-run's wrapper (Program.h), lowered with
// dist-lower-to-llvm and JIT-compiled once, then called any number of times
// on host arrays. Buffers are MLIR's owning memref descriptors
// (mlir/ExecutionEngine/MemRefUtils.h).
//
//===----------------------------------------------------------------------===//

#ifndef DIST_TOOLS_DISTRUN_EXECUTION_H
#define DIST_TOOLS_DISTRUN_EXECUTION_H

#include "dist/Tools/DistRun/Program.h"

#include <memory>

namespace mlir {
class ExecutionEngine;
namespace dist::run {

struct CompileOptions {
  /// Matmuls through a CBLAS (which must be among `sharedLibraries`).
  bool blas = false;
  /// MLIR's runtime verification of memref ops (bounds of loads, stores and
  /// subviews): a violation prints the op and its location and aborts.
  bool runtimeVerification = false;
  /// Elementwise chains fused into one loop nest (dist-fuse-elementwise).
  bool fuseElementwise = true;
  /// Reductions reordered and flagged for LLVM's vectorizer
  /// (dist-vectorizable-reductions).
  bool vectorizableReductions = true;
  /// f32 exp, log, tanh and erf as polynomials (dist-approximate-math).
  bool approximateMath = true;
  /// Line tables of the MLIR source in the compiled code, so that a
  /// debugger or profiler attached to a run names the op's line.
  bool debugLines = false;
  /// Next values written into their arguments' buffers
  /// (dist-lower-to-llvm{update-in-place}); the wrapper reads them there.
  bool updateInPlace = true;
  /// Libraries the JIT loads (libmlir_c_runner_utils, a BLAS).
  SmallVector<std::string> sharedLibraries;
  /// Where to write the object file; empty for none.
  std::string objectDump;
  /// Run on an NVIDIA GPU: dist-lower-to-nvvm instead of dist-lower-to-llvm,
  /// the inputs copied to device buffers and the results back (the CUDA
  /// runtime library must be among `sharedLibraries`).
  bool gpu = false;
};

/// A value passed to or returned by the entry.
struct HostValue {
  hostdata::HostArray array;
  bool isScalar = false;
};

class CompiledProgram {
public:
  ~CompiledProgram();

  /// Lowers `module` (which has the run wrapper) to LLVM and JIT-compiles
  /// it. Diagnostics go to the context's handler; JIT errors to `error`.
  static FailureOr<std::unique_ptr<CompiledProgram>>
  compile(ModuleOp module, const CompileOptions &options, std::string &error);

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

private:
  CompiledProgram() = default;
  std::unique_ptr<ExecutionEngine> engine;
  /// The wrapper's packed C interface: one pointer per parameter.
  void (*packedEntry)(void **) = nullptr;
  /// Per result, the argument whose buffer the wrapper writes it into, or -1.
  SmallVector<int64_t> resultsInArguments;
  struct Frame;
  /// The memory that holds result `index` after a call.
  char *resultData(unsigned index) const;
  std::unique_ptr<Frame> frame;
};

} // namespace dist::run
} // namespace mlir

#endif // DIST_TOOLS_DISTRUN_EXECUTION_H
