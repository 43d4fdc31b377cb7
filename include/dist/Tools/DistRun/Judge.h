//===- Judge.h - Whether the runs of a program agree ------------*- C++ -*-===//
//
// After the runs, dist-run rebuilds every result of every step from the
// ranks' blocks (dist/Support/HostArray.h) and judges it: f16, bf16 and f32
// results against the f64 reference (the reference rule of
// dist/Support/Verdict.h), other results, and every result under --strict,
// elementwise against the serial run, replicas included.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_TOOLS_DISTRUN_JUDGE_H
#define DIST_TOOLS_DISTRUN_JUDGE_H

#include "dist/Support/Verdict.h"
#include "dist/Tools/DistRun/Program.h"
#include "dist/Tools/DistRun/WorkDir.h"

namespace mlir::dist::run {

/// What is known of one result before the runs.
struct ResultSpec {
  /// The result's type and layout as the report prints them.
  std::string typeText, layoutText;
  BoundaryType global; // what the serial run returns
  BoundaryType local;  // what a rank returns
  meshmath::Layout layout;
  /// Judged against the reference run's result of type `referenceType`.
  bool useReference = false;
  hostdata::DType referenceType = hostdata::DType::F64;
  /// The perturbed run's error gives a second sample of the serial error.
  bool usePerturbed = false;
};

/// The results of the serial entry `serial` and of the partitioned entry
/// `partitioned` (in `partitionedModule`); fails with a diagnostic on an
/// unsupported type.
FailureOr<std::vector<ResultSpec>>
describeResults(func::FuncOp serial, func::FuncOp partitioned,
                ModuleOp partitionedModule);

/// Judges result `index` at `step` on a mesh of shape `meshShape`, and
/// prints its report line ("result #I <type> <layout>: ...: PASS") to `os`.
/// Returns whether it passes. `rule` judges a result against the reference.
llvm::Expected<bool> judgeResult(const WorkDir &dir, int64_t index, int step,
                                 const ResultSpec &spec,
                                 const meshmath::Shape &meshShape,
                                 const hostdata::Tolerance &tolerance,
                                 const hostdata::ReferenceRule &rule,
                                 raw_ostream &os);

} // namespace mlir::dist::run

#endif // DIST_TOOLS_DISTRUN_JUDGE_H
