//===- Steps.h - One run of a program over N steps --------------*- C++ -*-===//
//
// What each of dist-run's worker processes does with the program of its run
// (the serial run, the reference run, or one rank of the partitioned run):
// take its inputs from the work directory (a rank takes its block of every
// global input, by the argument's `dist.partitioned_as` layout), compile the
// program once, and call it `steps` times. After each step it writes its
// results (only the last step's when nothing reads the others) and feeds
// every result marked `dist.updates = I` into argument I of the next step
// (a rank keeps its own block, in place, when the argument has the result's
// layout, and otherwise the ranks exchange blocks through the work
// directory); the other arguments get their inputs again (an input file
// with a value per step, a dataset, gives step s its value (s - 1) mod n).
//
//===----------------------------------------------------------------------===//

#ifndef DIST_TOOLS_DISTRUN_STEPS_H
#define DIST_TOOLS_DISTRUN_STEPS_H

#include "dist/Tools/DistRun/Execution.h"
#include "dist/Tools/DistRun/WorkDir.h"

#include <functional>

namespace mlir::dist::run {

struct StepOptions {
  int steps = 1;
  CompileOptions compile;
  /// Testing: rank `corruptRank` adds 1 to the first element of its first
  /// result at step `corruptStep` (before feeding it back).
  int corruptRank = -1;
  int corruptStep = 1;
  /// Write the results of every step (for comparison, or kept files);
  /// otherwise only the last step's, and those that ranks exchange.
  bool resultsOfEveryStep = true;
  /// The serial (reference) run also runs on the perturbed inputs:
  /// kPerturbedRun (kPerturbedReferenceRun).
  bool perturbedRun = false;
};

/// The mesh shape a program runs on: its first mesh's, or one axis of
/// `ranks` devices.
meshmath::Shape getRunMeshShape(ModuleOp module, int64_t ranks);

/// Runs `module` (as written by dist-run, with its wrapper) as `run` of
/// `dir` on a world of `worldSize` ranks; `barrier` returns when every rank
/// called it (unused by the serial and reference runs). Diagnostics of the
/// lowering go to the context's handler.
llvm::Error runSteps(ModuleOp module, const WorkDir &dir, int run,
                     int64_t worldSize, const StepOptions &options,
                     const std::function<void()> &barrier);

/// Prepares the partitioned run of `module` (with its wrapper) in `dir` for
/// dist-step on another machine: every rank's blocks of the inputs
/// (WorkDir::block) and the manifest. Refused when a result feeds an
/// argument of another layout (the ranks would exchange blocks).
llvm::Error exportRanks(ModuleOp module, const WorkDir &dir, int64_t worldSize,
                        const StepOptions &options);

} // namespace mlir::dist::run

#endif // DIST_TOOLS_DISTRUN_STEPS_H
