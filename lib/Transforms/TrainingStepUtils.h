//===- TrainingStepUtils.h - Helpers of the training-step rewrites -*- C++ -*-===//
//
// What dist-gradient-merge and dist-local-sgd both build: splat constants,
// names of the state they add, and the step counter that decides which calls
// run the periodic part.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_LIB_TRANSFORMS_TRAININGSTEPUTILS_H
#define DIST_LIB_TRANSFORMS_TRAININGSTEPUTILS_H

#include "dist/Dialect/Dist/IR/DistAttrs.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/BitVector.h"

#include <string>

namespace mlir::dist {

/// Erases arguments `arguments` (unused) and results `results` of step
/// `func`, with the return's operands, and renumbers the argument indices
/// that training markings hold: dist.grad_of on ops, dist.state_of and
/// dist.grad_accumulator_of on arguments and results, dist.updates on
/// results. No marking may name an erased argument.
void eraseStepArguments(func::FuncOp func, const llvm::BitVector &arguments,
                        const llvm::BitVector &results);

/// A constant tensor of `type` with every element `value`.
Value buildSplatConstant(OpBuilder &builder, Location loc,
                         RankedTensorType type, double value);

/// "<dist.name of argument `arg`>.<suffix>" ("arg<N>.<suffix>" without one):
/// the name of state a pass adds for that argument.
std::string derivedStateName(func::FuncOp func, unsigned arg,
                             StringRef suffix);

/// The next value of a call counter (`counter` + 1, a tensor<i64>) and an i1
/// that is true when it is a multiple of `k`, marked dist.true_once_every.
std::pair<Value, Value> buildOnceEveryK(OpBuilder &builder, Location loc,
                                        Value counter, int64_t k);

/// The mesh a training-step pass works on: the one named `meshName`, or the
/// module's only one. Reports, as `passName`, a missing name or no/several
/// meshes without a name.
FailureOr<MeshOp> findStepMesh(ModuleOp module, StringRef meshName,
                               StringRef passName);

/// The axes of each of `rank` dims of `sharding` as plain lists (all empty
/// if it is null).
SmallVector<SmallVector<StringRef>> getDimAxisNames(ShardingAttr sharding,
                                                    int64_t rank);

/// `rebuilt` with the halos and overlaps of `original` (may be null) on the
/// dims whose axes it kept (a pass that rebuilds a layout from axis names
/// must not drop a stencil's halo). A partial `rebuilt` gets none.
ShardingAttr keepHalos(ShardingAttr rebuilt, ShardingAttr original);

/// Whether `sharding` (may be null) splits a dim over `axis` or is partial
/// over it.
bool shardingUsesAxis(ShardingAttr sharding, StringRef axis);

/// Which program a training-step pass takes.
enum class StepPhase { Global, PerRank };

/// Calls `rewrite` on every training step of `module` (a function with an
/// argument marked dist.param), after checking that it is a program of
/// `phase` (a per-rank program has partitioned arguments). Reports, as
/// `passName`, a step of the other phase and a module without steps; fails
/// if anything failed.
LogicalResult
forEachTrainingStep(ModuleOp module, StringRef passName, StepPhase phase,
                    function_ref<LogicalResult(func::FuncOp)> rewrite);

} // namespace mlir::dist

#endif // DIST_LIB_TRANSFORMS_TRAININGSTEPUTILS_H
