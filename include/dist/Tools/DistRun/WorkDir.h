//===- WorkDir.h - The files of a dist-run work directory -------*- C++ -*-===//
//
// dist-run's driver and its worker processes talk through one directory: the
// programs (serial.mlir, reference.mlir, partitioned.mlir), the global
// inputs (arg<I>.bin, arg<I>.reference.bin, arg<I>.perturbed.bin,
// arg<I>.perturbed-reference.bin), every run's results after every step
// (result<I>.step<S>.<run>.bin) and its per-step times (times.<run>.txt). A
// run is the serial run, the reference run, the perturbed runs (the serial
// and the reference program on inputs moved by one ulp), or a rank.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_TOOLS_DISTRUN_WORKDIR_H
#define DIST_TOOLS_DISTRUN_WORKDIR_H

#include "dist/Support/HostArray.h"

#include "mlir/Support/LLVM.h"

#include "llvm/Support/Error.h"

#include <string>

namespace mlir::dist::run {

/// The serial run, the reference run, their runs on the perturbed inputs,
/// or rank N (N >= 0).
constexpr int kSerialRun = -1;
constexpr int kReferenceRun = -2;
constexpr int kPerturbedRun = -3;
constexpr int kPerturbedReferenceRun = -4;

class WorkDir {
public:
  explicit WorkDir(StringRef path) : path(path.str()) {}

  /// "serial", "reference", "perturbed", "perturbed-reference" or
  /// "rank<N>".
  static std::string runName(int run);

  const std::string &str() const { return path; }
  /// The program `run` runs: serial.mlir (also the perturbed run's),
  /// reference.mlir (also the perturbed reference's), partitioned.mlir.
  std::string program(int run) const;
  /// Argument `index`'s global input for `run`: the reference's is widened,
  /// the perturbed runs' moved by one ulp (and widened for the reference);
  /// the serial run and the ranks share one.
  std::string arg(int64_t index, int run) const;
  /// Result `index` of `step` (1-based) of `run`.
  std::string result(int64_t index, int step, int run) const;
  /// The wall time of every step of `run`, in seconds, one per line.
  std::string times(int run) const;
  /// An exported partitioned run (dist-run --export-ranks): rank `run`'s
  /// block of argument `index` (its values of every step), the shared
  /// object and its manifest (what dist-step reads), and what the judge
  /// needs to know about the run.
  std::string block(int64_t index, int run) const;
  std::string sharedObject() const { return path + "/partitioned.so"; }
  std::string manifest() const { return path + "/partitioned.manifest"; }
  std::string exportInfo() const { return path + "/export.txt"; }

private:
  std::string path;
};

/// Writes the raw bytes of `array` to `path`.
llvm::Error writeArray(StringRef path, const hostdata::HostArray &array);
/// Reads `path` into `array`, whose type and shape give the expected size.
llvm::Error readArray(StringRef path, hostdata::HostArray &array);
/// Writes `arrays` one after the other (an argument's value for each step).
llvm::Error writeArrays(StringRef path, ArrayRef<hostdata::HostArray> arrays);
/// Reads `path`, one or more arrays of `like`'s type and shape one after the
/// other, into `arrays`.
llvm::Error readArrays(StringRef path, const hostdata::HostArray &like,
                       std::vector<hostdata::HostArray> &arrays);
llvm::Error writeTimes(StringRef path, ArrayRef<double> seconds);
/// The times in `path`; empty if it cannot be read.
std::vector<double> readTimes(StringRef path);

} // namespace mlir::dist::run

#endif // DIST_TOOLS_DISTRUN_WORKDIR_H
