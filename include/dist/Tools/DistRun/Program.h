//===- Program.h - The programs dist-run builds and runs --------*- C++ -*-===//
//
// What dist-run does to a module before running it, as functions that tests
// and other drivers can call: the entry function and the host types of its
// boundary, the run wrapper that every run calls, the serial program, and
// its widened copy that serves as the higher-precision reference.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_TOOLS_DISTRUN_PROGRAM_H
#define DIST_TOOLS_DISTRUN_PROGRAM_H

#include "dist/Support/HostArray.h"
#include "dist/Tools/DistRun/PackedProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::dist::run {

/// The name of the function dist-run adds to every program it runs.
constexpr const char *kWrapperName = "__dist_run_entry";


/// The host element type of `type`: f16, bf16, f32, f64, i1, i8, i16, i32,
/// i64 or index; std::nullopt for anything else.
std::optional<hostdata::DType> getHostType(Type type);

/// What the host holds for one function argument or result: a static tensor
/// or a scalar (rank 0, passed by value).
struct BoundaryType {
  hostdata::DType dtype = hostdata::DType::F32;
  meshmath::Shape shape;
  bool isScalar = false;

  hostdata::HostArray makeArray() const { return {dtype, shape}; }
};

/// The boundary type of `type`; reports, at `loc` and prefixed with `what`
/// ("argument 1"), dynamic shapes, ranks above kMaxRank and unsupported
/// types.
FailureOr<BoundaryType> describeBoundary(Type type, Location loc,
                                         const Twine &what);

/// The function named `name`, or the module's only public function with a
/// body when `name` is empty; reports at the module's location otherwise.
func::FuncOp findEntry(ModuleOp module, StringRef name);

/// The layout of a boundary value of a partitioned function with attributes
/// `attrs` (its `dist.partitioned_as`), or replicated; `rank` is the tensor's.
meshmath::Layout getBoundaryLayout(ModuleOp module, DictionaryAttr attrs,
                                   size_t rank);

/// For each result of `entry`, the argument whose buffer holds it after a
/// call through the run wrapper, or -1 (its own `out` buffer): a result that
/// updates an argument (`dist.updates`) of its tensor type and layout, so
/// that the next step finds it where it is.
SmallVector<int64_t> getResultsKeptInArguments(ModuleOp module,
                                               func::FuncOp entry);

/// Adds `__dist_run_entry(args..., outs...)` with a C interface: it calls
/// `entry` on the arguments and copies every result into the buffer of the
/// matching `out` argument (a memref of the result's type; a scalar result as
/// a 0-d memref), or, for the results kept in arguments
/// (getResultsKeptInArguments), into the buffer of that argument: such an
/// argument is a memref of the wrapper, given to the entry as a `restrict`
/// tensor of it, so the lowering may let the entry update it in place (the
/// result's `out` argument is then unused).
/// The caller owns every buffer, so a run allocates and frees nothing across
/// calls.
void addRunWrapper(ModuleOp module, func::FuncOp entry);

/// For each result of the run wrapper's entry, the argument buffer the
/// wrapper writes it into, or -1 for its `out` buffer (read from the
/// wrapper's body, so it holds for any wrapper).
SmallVector<int64_t> getWrapperResultsInArguments(ModuleOp module);

/// The run wrapper's call of the entry, or null.
func::CallOp getWrapperCall(ModuleOp module);

/// The entry that the run wrapper of `module` calls, or null.
func::FuncOp getWrappedEntry(ModuleOp module);

/// The serial program of an annotated global program: upstream shard
/// annotations imported, then dist-strip-annotations.
LogicalResult buildSerialProgram(ModuleOp module);

/// Rewrites `module` so that it computes in f64 what it computed in f16,
/// bf16 and f32: types (of values, functions, block arguments and inside
/// other types), constants (converted exactly), and casts between float
/// types that become no-ops (`arith.extf`, `arith.truncf`) are removed.
/// Returns true if anything was widened. Fails, with `reason` set and the
/// module in an unspecified state, for what has no widened meaning: bitcasts
/// of floats, external functions with narrow float types, resource-backed
/// constants, or a rewritten module that does not verify.
FailureOr<bool> widenFloatsToF64(ModuleOp module, std::string &reason);

/// The state marking of `fn` (`dist.updates`, or `dist.name` shared by a
/// result and an argument): for each result, the argument it updates, or -1.
SmallVector<int64_t> getUpdatedArguments(func::FuncOp fn);

/// Prints `module` with its locations (so that re-parsing it keeps the
/// user's file and line in every diagnostic) to `path`.
LogicalResult writeModuleWithLocations(ModuleOp module, StringRef path);

} // namespace mlir::dist::run

#endif // DIST_TOOLS_DISTRUN_PROGRAM_H
