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

#include "dist/Tools/DistRun/PackedProgram.h"
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
  /// Run on an NVIDIA GPU: dist-lower-to-nvvm instead of dist-lower-to-llvm;
  /// the entry's arguments and results are device buffers that stay there
  /// between calls (the CUDA runtime library must be among
  /// `sharedLibraries`).
  bool gpu = false;
  /// With `gpu`: the kernels run on the host, thread by thread
  /// (dist-lower-to-nvvm{emulate-kernels}), for a driver whose device memory
  /// the host addresses (the fake driver of test/Runtime).
  bool emulateGpuKernels = false;
  /// With `gpu`: dist-lower-to-nvvm{vectorize-min-threads}.
  int64_t gpuVectorizeMinThreads = 65536;
  /// With `gpu`: dist-lower-to-nvvm{block-reduction-min-extent,
  /// block-reduction-min-outputs}.
  int64_t gpuBlockReductionMinExtent = 256;
  int64_t gpuBlockReductionMinOutputs = 1024;
};

class CompiledProgram : public PackedProgram {
public:
  ~CompiledProgram() override;

  /// Lowers `module` (which has the run wrapper) to LLVM and JIT-compiles
  /// it. Diagnostics go to the context's handler; JIT errors to `error`.
  static FailureOr<std::unique_ptr<CompiledProgram>>
  compile(ModuleOp module, const CompileOptions &options, std::string &error);

private:
  CompiledProgram();
  std::unique_ptr<ExecutionEngine> engine;
};

/// Lowers `module` (which has the run wrapper) as `compile` does and writes
/// it to `path`, a shared object that dist-step loads on a machine without
/// LLVM: the wrapper's packed C interface is `dist_step_packed` (one pointer
/// per parameter) and `dist_step_results_in_arguments` lists, per result,
/// the argument the wrapper writes it into (-1: none), ending with -2. Links
/// with `linker` (a clang) against `libraries` (paths), found at run time in
/// lib/ next to `path`, else where they are now.
LogicalResult compileSharedObject(ModuleOp module, const CompileOptions &options,
                                  StringRef path, StringRef linker,
                                  ArrayRef<std::string> libraries,
                                  std::string &error);

} // namespace dist::run
} // namespace mlir

#endif // DIST_TOOLS_DISTRUN_EXECUTION_H
