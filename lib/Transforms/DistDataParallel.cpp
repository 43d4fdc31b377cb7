//===- DistDataParallel.cpp - A training step made data parallel ----------===//
//
// Annotates a global training step: the batch split over an axis, the state
// replicated over it, and every gradient pinned to its parameter's layout
// where backward makes it (one reduction per gradient, on communicator
// i mod num-comms). Partitioning then does the rest.
//
//===----------------------------------------------------------------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/StepState.h"
#include "TrainingStepUtils.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTDATAPARALLEL
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistDataParallelPass
    : public dist::impl::DistDataParallelBase<DistDataParallelPass> {
  using DistDataParallelBase::DistDataParallelBase;
  void runOnOperation() override;

private:
  LogicalResult runOnStep(func::FuncOp func, MeshOp mesh);
};
} // namespace

LogicalResult DistDataParallelPass::runOnStep(func::FuncOp func, MeshOp mesh) {
  MLIRContext *context = func.getContext();
  StringRef shardingName = DistDialect::getShardingAttrName();
  StringRef meshRef = mesh.getSymName();

  // What is state: parameters, optimizer state, arguments a result updates.
  llvm::SmallDenseSet<unsigned> stateArgs;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, DistDialect::getParamAttrName()) ||
        func.getArgAttr(i, DistDialect::getStateOfAttrName()))
      stateArgs.insert(i);
  for (unsigned r = 0, e = func.getNumResults(); r < e; ++r)
    if (std::optional<unsigned> arg = getUpdatedArgument(func, r))
      stateArgs.insert(*arg);
  // Gradient accumulators (dist-gradient-merge) hold gradients, not state.
  llvm::SmallDenseSet<unsigned> accumulatorArgs;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, DistDialect::getGradAccumulatorOfAttrName())) {
      accumulatorArgs.insert(i);
      stateArgs.erase(i);
    }

  SmallVector<Operation *> gradientOps;
  func.walk([&](Operation *op) {
    if (op->hasAttr(DistDialect::getGradOfAttrName()))
      gradientOps.push_back(op);
  });
  if (gradientOps.empty())
    return func.emitOpError()
           << "has parameters but no gradients (no op marked '"
           << DistDialect::getGradOfAttrName()
           << "'): dist-data-parallel needs the backward pass of a step";

  auto shardingOf = [&](unsigned i) {
    return func.getArgAttrOfType<ShardingAttr>(i, shardingName);
  };
  auto argLoc = [&](unsigned i) { return func.getArgument(i).getLoc(); };
  auto replicated = [&](int64_t rank) {
    return ShardingAttr::get(context, meshRef,
                             SmallVector<SmallVector<StringRef>>(rank));
  };
  SmallVector<ShardingAttr> newArgShardings(func.getNumArguments());
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    auto type = dyn_cast<RankedTensorType>(func.getArgument(i).getType());
    if (!type)
      continue;
    ShardingAttr sharding = shardingOf(i);
    if (sharding && sharding.getMesh().getValue() != meshRef)
      return emitError(argLoc(i))
             << "argument " << i << " is laid out on mesh "
             << sharding.getMesh() << ", not on @" << meshRef
             << " where dist-data-parallel splits the batch";
    if (stateArgs.contains(i)) {
      if (shardingUsesAxis(sharding, axis))
        return emitError(argLoc(i))
               << "argument " << i << " is state (a parameter, optimizer "
               << "state or an updated value) laid out over '" << axis
               << "'; data parallelism keeps state replicated over it";
      // Kept as written (its other axes stay); replicated when unannotated.
      newArgShardings[i] = sharding ? sharding : replicated(type.getRank());
      continue;
    }
    if (accumulatorArgs.contains(i)) {
      // Each rank adds its own gradients: their sum is partial over the axis
      // until the merged gradient is reduced.
      if (shardingUsesAxis(sharding, axis))
        return emitError(argLoc(i))
               << "argument " << i << " is a gradient accumulator laid out "
               << "over '" << axis << "'; data parallelism keeps it partial "
               << "over it";
      SmallVector<StringRef> partial;
      if (sharding)
        for (StringAttr a : sharding.getPartialAxes())
          partial.push_back(a.getValue());
      partial.push_back(axis);
      newArgShardings[i] = ShardingAttr::get(
          context, meshRef, getDimAxisNames(sharding, type.getRank()), partial);
      continue;
    }
    // A scalar (a learning rate as a tensor) has no batch: replicated.
    if (type.getRank() == 0)
      continue;
    // A batch argument: its first dim over the axis too.
    SmallVector<SmallVector<StringRef>> dims =
        getDimAxisNames(sharding, type.getRank());
    if (shardingUsesAxis(sharding, axis) &&
        !llvm::is_contained(dims.front(), StringRef(axis)))
      return emitError(argLoc(i))
             << "argument " << i << " is already laid out over '" << axis
             << "' along another dimension than its first (the batch)";
    if (!llvm::is_contained(dims.front(), StringRef(axis)))
      dims.front().push_back(axis);
    // A batch that the blocks do not divide is split into padded blocks
    // (docs/Design.md, "Uneven splits"): every gradient is a sum over the
    // rows, so the padded rows' exclusion keeps it exact.
    newArgShardings[i] =
        keepHalos(ShardingAttr::get(context, meshRef, dims), sharding);
  }
  for (auto [i, sharding] : llvm::enumerate(newArgShardings))
    if (sharding)
      func.setArgAttr(i, shardingName, sharding);
  // A result that updates an argument leaves in the argument's layout.
  for (unsigned r = 0, e = func.getNumResults(); r < e; ++r)
    if (std::optional<unsigned> arg = getUpdatedArgument(func, r))
      if (ShardingAttr sharding = newArgShardings[*arg])
        func.setResultAttr(r, shardingName, sharding);

  // Every gradient reduced where it is made, in its parameter's layout.
  OpBuilder builder(context);
  for (auto [i, op] : llvm::enumerate(gradientOps)) {
    auto param = op->getAttrOfType<IntegerAttr>(DistDialect::getGradOfAttrName());
    unsigned argument = param.getInt();
    Value gradient = op->getResult(0);
    auto type = dyn_cast<RankedTensorType>(gradient.getType());
    if (!type || argument >= func.getNumArguments())
      continue; // dist-verify reports malformed markings.
    ShardingAttr target = newArgShardings[argument];
    if (!target)
      target = replicated(type.getRank());
    builder.setInsertionPointAfter(op);
    IntegerAttr comm;
    if (int64_t c = (int64_t)i % numComms)
      comm = builder.getI64IntegerAttr(c);
    auto annotate = AnnotateOp::create(builder, op->getLoc(), type, gradient,
                                       target, comm);
    if (Attribute role = op->getAttr(DistDialect::getRoleAttrName()))
      annotate->setAttr(DistDialect::getRoleAttrName(), role);
    gradient.replaceAllUsesExcept(annotate.getResult(), annotate);
  }
  return success();
}

void DistDataParallelPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (numComms < 1) {
    module.emitError() << "dist-data-parallel: num-comms must be at least 1, "
                          "got "
                       << static_cast<int64_t>(numComms);
    return signalPassFailure();
  }
  FailureOr<MeshOp> mesh =
      findStepMesh(module, meshName, "dist-data-parallel");
  if (failed(mesh))
    return signalPassFailure();
  if (!mesh->getAxisIndex(StringAttr::get(&getContext(), axis))) {
    mesh->emitError() << "dist-data-parallel: axis '" << axis
                      << "' is not an axis of this mesh";
    return signalPassFailure();
  }
  if (failed(forEachTrainingStep(module, "dist-data-parallel",
                                 StepPhase::Global, [&](func::FuncOp func) {
                                   return runOnStep(func, *mesh);
                                 })))
    signalPassFailure();
}
