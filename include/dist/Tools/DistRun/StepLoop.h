//===- StepLoop.h - Calling a compiled step N times -------------*- C++ -*-===//
//
// The loop of one run of dist-run (Steps.h), without MLIR: dist-run's
// workers run it on a JIT-compiled program, dist-step on a shared object
// compiled ahead of time. Each step's results are written to the work
// directory (every step's, or the last one's), and each result marked
// `dist.updates = I` becomes argument I of the next step: in place when the
// argument keeps the result's block, else through `exchange` (the ranks
// swap blocks through the work directory).
//
//===----------------------------------------------------------------------===//

#ifndef DIST_TOOLS_DISTRUN_STEPLOOP_H
#define DIST_TOOLS_DISTRUN_STEPLOOP_H

#include "dist/Tools/DistRun/PackedProgram.h"
#include "dist/Tools/DistRun/WorkDir.h"

#include <functional>

namespace mlir::dist::run {

struct StepLoopOptions {
  int steps = 1;
  /// Testing: rank `corruptRank` adds 1 to the first element of its first
  /// result at step `corruptStep` (before feeding it back).
  int corruptRank = -1;
  int corruptStep = 1;
  /// Write the results of every step; otherwise only the last step's, and
  /// those that ranks exchange.
  bool resultsOfEveryStep = true;
};

/// What a run passes and gets back.
struct StepLoopSpec {
  /// Per argument, its value of each step (step s takes value (s - 1) mod
  /// n: a dataset), and whether it is a scalar.
  std::vector<std::vector<hostdata::HostArray>> argSamples;
  std::vector<bool> argIsScalar;
  /// The results, typed and shaped.
  std::vector<HostValue> results;
  /// Per result, the argument it becomes at the next step, or -1; and
  /// whether that argument keeps the result's block (no exchange).
  SmallVector<int64_t> updates;
  std::vector<bool> feedsInPlace;
  /// The next value of argument `argument` from result `result` of `step`,
  /// assembled from every rank's files (after the loop's barrier).
  std::function<llvm::Error(unsigned result, unsigned argument, int step,
                            hostdata::HostArray &value)>
      exchange;
};

/// The manifest of an exported partitioned run (WorkDir::manifest), which
/// dist-step reads: the loop options, the world size, and each argument's
/// and result's element type, block shape and whether it is a scalar, with
/// the argument each result feeds. Every feed keeps its block (an export
/// with exchanges is refused).
struct StepManifest {
  StepLoopOptions options;
  int64_t worldSize = 1;
  /// The step works on GPU buffers (PackedProgram::deviceBuffers).
  bool deviceBuffers = false;
  struct Value {
    hostdata::DType dtype;
    std::vector<int64_t> shape;
    bool isScalar = false;
    int64_t updates = -1; // results: the argument it becomes, or -1
    /// Arguments: the smallest and largest value of rank 0's first input
    /// (what dist-step --synthetic-inputs draws from).
    double low = 0, high = 0;
  };
  std::vector<Value> args, results;
};

llvm::Error writeManifest(StringRef path, const StepManifest &manifest);
llvm::Expected<StepManifest> readManifest(StringRef path);

/// The spec of rank `run` of an exported run: its blocks from `dir`, or,
/// when `synthetic` (a benchmark on a machine the inputs were not carried
/// to), values drawn uniformly in each argument's [low, high] (integers:
/// the values between; constant when low = high).
llvm::Expected<StepLoopSpec> loadExportedSpec(const StepManifest &manifest,
                                              const WorkDir &dir, int run,
                                              bool synthetic = false);

/// Calls `step` `options.steps` times as `run` of `dir` (a rank when
/// `distributed`) and writes its results and times.
llvm::Error runStepLoop(PackedProgram &step, const WorkDir &dir, int run,
                        bool distributed, StepLoopSpec &spec,
                        const StepLoopOptions &options,
                        const std::function<void()> &barrier);

} // namespace mlir::dist::run

#endif // DIST_TOOLS_DISTRUN_STEPLOOP_H
