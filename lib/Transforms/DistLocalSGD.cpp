//===- DistLocalSGD.cpp - Local updates, periodic parameter averaging -----===//
//
// Turns a data-parallel per-rank training step into LocalSGD (the seeds'
// LocalSGD transpiler): gradients are no longer reduced over the data-
// parallel axis (each rank steps on its own batch), and every k steps the
// parameters are averaged through their deltas against a snapshot kept as
// state: delta = snapshot - param, averaged over the axis, param = snapshot
// - delta, snapshot = param.
//
//===----------------------------------------------------------------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/StepState.h"
#include "TrainingStepUtils.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTLOCALSGD
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistLocalSGDPass
    : public dist::impl::DistLocalSGDBase<DistLocalSGDPass> {
  using DistLocalSGDBase::DistLocalSGDBase;
  void runOnOperation() override;

private:
  LogicalResult runOnStep(func::FuncOp func);
};
} // namespace

/// True if every input of `op` is a gradient (made by an op marked
/// dist.grad_of).
static bool reducesGradients(AllReduceOp op) {
  return !op.getInputs().empty() &&
         llvm::all_of(op.getInputs(), [](Value input) {
           Operation *producer = input.getDefiningOp();
           return producer &&
                  producer->hasAttr(DistDialect::getGradOfAttrName());
         });
}

LogicalResult DistLocalSGDPass::runOnStep(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  StringAttr axisName = StringAttr::get(context, axis);
  if (!func.getBody().hasOneBlock())
    return func.emitOpError()
           << "has " << func.getBody().getBlocks().size()
           << " blocks; dist-local-sgd needs a step in one block";
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());

  // The gradient reductions over the axis: each rank keeps its own
  // gradient, as the mean over its own batch.
  SmallVector<AllReduceOp> reductions;
  func.walk([&](AllReduceOp op) {
    if (reducesGradients(op) && llvm::is_contained(op.getAxes(), axisName))
      reductions.push_back(op);
  });
  if (reductions.empty())
    return func.emitOpError()
           << "reduces no gradient over '" << axis
           << "': dist-local-sgd takes a data-parallel step (run "
              "dist-data-parallel before partitioning)";
  FlatSymbolRefAttr meshRef = reductions.front().getMeshAttr();
  SymbolTableCollection symbolTables;
  auto mesh = symbolTables.lookupNearestSymbolFrom<MeshOp>(func, meshRef);
  if (!mesh)
    return reductions.front().emitOpError()
           << "names no mesh " << meshRef;
  std::optional<int64_t> axisSize = mesh.getAxisSize(axisName);
  if (!axisSize)
    return mesh.emitOpError() << "has no axis '" << axis << "'";
  OpBuilder builder(context);
  for (AllReduceOp op : reductions) {
    if (op.getToken())
      return op.emitOpError()
             << "is async; run dist-local-sgd before dist-make-async";
    if (op.getMeshAttr() != meshRef)
      return op.emitOpError() << "reduces over mesh " << op.getMeshAttr()
                              << ", another gradient over " << meshRef;
    std::optional<ReductionKind> kind = op.getKind();
    if (kind != ReductionKind::sum && kind != ReductionKind::avg)
      return op.emitOpError()
             << "reduces gradients by " << stringifyReductionKind(*kind)
             << "; dist-local-sgd replaces sums and averages";
    builder.setInsertionPoint(op);
    // A partial gradient is this rank's share of the sum over the axis;
    // its own estimate of that sum is the share times the group size.
    SmallVector<Value> local;
    for (Value input : op.getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      if (kind == ReductionKind::avg) {
        local.push_back(input);
        continue;
      }
      auto scaled = arith::MulFOp::create(
          builder, op.getLoc(), input,
          buildSplatConstant(builder, op.getLoc(), type, (double)*axisSize));
      scaled->setAttr(DistDialect::getRoleAttrName(),
                      RoleAttr::get(context, Role::backward));
      local.push_back(scaled);
    }
    // Other axes of the group (a Megatron axis) are still reduced.
    SmallVector<Attribute> rest;
    for (Attribute a : op.getAxes())
      if (a != axisName)
        rest.push_back(a);
    if (!rest.empty()) {
      auto reduced = AllReduceOp::create(
          builder, op.getLoc(), op.getResultTypes(), /*token=*/Type(), local,
          meshRef.getValue(), builder.getArrayAttr(rest), op.getComm(),
          op.getOriginAttr(), *kind);
      reduced->setDiscardableAttrs(op->getDiscardableAttrDictionary());
      local.assign(reduced.getResults().begin(), reduced.getResults().end());
    }
    op.replaceAllUsesWith(local);
    op.erase();
  }

  // The parameters the step updates, and what it returns for them.
  SmallVector<std::pair<unsigned, unsigned>> updated; // (argument, result)
  for (unsigned r = 0, e = func.getNumResults(); r < e; ++r)
    if (std::optional<unsigned> arg = getUpdatedArgument(func, r))
      if (func.getArgAttr(*arg, DistDialect::getParamAttrName()))
        updated.push_back({*arg, r});
  if (updated.empty())
    return func.emitOpError() << "returns no updated parameter ('"
                              << DistDialect::getParamAttrName()
                              << "' argument with a result that updates it)";

  // New state: a snapshot per parameter (the parameters as last averaged)
  // and the step counter.
  Builder attrs(context);
  unsigned numArgs = func.getNumArguments();
  SmallVector<unsigned> argIndices;
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<Location> argLocs;
  for (auto [arg, result] : updated) {
    std::string snapshotName =
        derivedStateName(func, arg, "local_sgd_snapshot");
    SmallVector<NamedAttribute> named = {
        attrs.getNamedAttr(DistDialect::getNameAttrName(),
                           attrs.getStringAttr(snapshotName)),
        attrs.getNamedAttr(DistDialect::getInputFillAttrName(),
                           attrs.getF64FloatAttr(0.0))};
    if (Attribute layout =
            func.getArgAttr(arg, DistDialect::getPartitionedAsAttrName()))
      named.push_back(
          attrs.getNamedAttr(DistDialect::getPartitionedAsAttrName(), layout));
    argIndices.push_back(numArgs);
    argTypes.push_back(func.getArgument(arg).getType());
    argAttrs.push_back(attrs.getDictionaryAttr(named));
    argLocs.push_back(func.getArgument(arg).getLoc());
  }
  auto counterType = RankedTensorType::get({}, IntegerType::get(context, 64));
  StringAttr counterName = attrs.getStringAttr("local_sgd.step");
  argIndices.push_back(numArgs);
  argTypes.push_back(counterType);
  argAttrs.push_back(attrs.getDictionaryAttr({
      attrs.getNamedAttr(DistDialect::getNameAttrName(), counterName),
      attrs.getNamedAttr(DistDialect::getInputRangeAttrName(),
                         attrs.getDenseI64ArrayAttr({0, 1})),
  }));
  argLocs.push_back(func.getLoc());
  for (Type type : ArrayRef<Type>(argTypes).drop_back())
    if (!isa<RankedTensorType>(type) ||
        !isa<FloatType>(cast<RankedTensorType>(type).getElementType()))
      return func.emitOpError() << "has a parameter of type " << type
                                << "; dist-local-sgd averages float tensors";
  if (failed(func.insertArguments(argIndices, argTypes, argAttrs, argLocs)))
    return func.emitOpError() << "could not take the snapshot arguments";
  Value counter = func.getArgument(func.getNumArguments() - 1);

  // The first call takes its snapshot from the parameters it gets.
  Location loc = func.getLoc();
  auto optimizerRole = RoleAttr::get(context, Role::optimizer);
  builder.setInsertionPoint(ret);
  Value count = tensor::ExtractOp::create(builder, loc, counter);
  Value zero = arith::ConstantOp::create(builder, loc, builder.getI64IntegerAttr(0));
  Value isFirst = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                        count, zero);
  SmallVector<Value> snapshots;
  for (auto [i, pair] : llvm::enumerate(updated))
    snapshots.push_back(arith::SelectOp::create(
        builder, loc, isFirst, func.getArgument(pair.first),
        func.getArgument(numArgs + i)));
  auto [nextCounter, isSync] = buildOnceEveryK(builder, loc, counter, steps);

  // Every k-th step: average the deltas against the snapshot.
  SmallVector<Type> ifTypes;
  for (auto [arg, result] : updated)
    ifTypes.push_back(func.getArgument(arg).getType());
  ifTypes.append(ifTypes);
  auto ifOp = scf::IfOp::create(builder, loc, ifTypes, isSync,
                                /*withElseRegion=*/true);
  SmallVector<Value> thenParams, elseParams;
  builder.setInsertionPointToStart(ifOp.thenBlock());
  SmallVector<Value> deltas;
  for (auto [i, pair] : llvm::enumerate(updated)) {
    auto delta = arith::SubFOp::create(builder, loc, snapshots[i],
                                       ret.getOperand(pair.second));
    delta->setAttr(DistDialect::getRoleAttrName(), optimizerRole);
    deltas.push_back(delta);
  }
  SmallVector<Type> deltaTypes(ValueRange(deltas).getTypes());
  auto summed = AllReduceOp::create(
      builder, loc, deltaTypes, /*token=*/Type(), deltas, meshRef.getValue(),
      builder.getArrayAttr({axisName}), /*comm=*/0, OriginAttr(),
      ReductionKind::sum);
  summed->setAttr(DistDialect::getRoleAttrName(), optimizerRole);
  for (auto [i, pair] : llvm::enumerate(updated)) {
    auto type = cast<RankedTensorType>(deltas[i].getType());
    auto mean = arith::MulFOp::create(
        builder, loc, summed.getResult(i),
        buildSplatConstant(builder, loc, type, 1.0 / *axisSize));
    auto averaged = arith::SubFOp::create(builder, loc, snapshots[i], mean);
    for (Operation *op : {mean.getOperation(), averaged.getOperation()})
      op->setAttr(DistDialect::getRoleAttrName(), optimizerRole);
    thenParams.push_back(averaged);
  }
  SmallVector<Value> thenValues(thenParams);
  thenValues.append(thenParams); // the new snapshots
  scf::YieldOp::create(builder, loc, thenValues);
  builder.setInsertionPointToStart(ifOp.elseBlock());
  SmallVector<Value> elseValues;
  for (auto [arg, result] : updated)
    elseValues.push_back(ret.getOperand(result));
  elseValues.append(snapshots);
  scf::YieldOp::create(builder, loc, elseValues);

  // Results: the parameters through the averaging, then the new state.
  SmallVector<Value> returned(ret.getOperands());
  for (auto [i, pair] : llvm::enumerate(updated))
    returned[pair.second] = ifOp.getResult(i);
  unsigned numResults = func.getNumResults();
  SmallVector<unsigned> resultIndices;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  for (auto [i, pair] : llvm::enumerate(updated)) {
    returned.push_back(ifOp.getResult(updated.size() + i));
    resultIndices.push_back(numResults);
    resultTypes.push_back(ifTypes[i]);
    SmallVector<NamedAttribute> named = {attrs.getNamedAttr(
        DistDialect::getNameAttrName(),
        func.getArgAttr(numArgs + i, DistDialect::getNameAttrName()))};
    if (Attribute layout = func.getArgAttr(
            numArgs + i, DistDialect::getPartitionedAsAttrName()))
      named.push_back(
          attrs.getNamedAttr(DistDialect::getPartitionedAsAttrName(), layout));
    resultAttrs.push_back(attrs.getDictionaryAttr(named));
  }
  returned.push_back(nextCounter);
  resultIndices.push_back(numResults);
  resultTypes.push_back(counterType);
  resultAttrs.push_back(attrs.getDictionaryAttr(
      {attrs.getNamedAttr(DistDialect::getNameAttrName(), counterName)}));
  if (failed(func.insertResults(resultIndices, resultTypes, resultAttrs)))
    return func.emitOpError() << "could not take the snapshot results";
  ret->setOperands(returned);
  return success();
}

void DistLocalSGDPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (steps < 1) {
    module.emitError() << "dist-local-sgd: k must be at least 1, got "
                       << static_cast<int64_t>(steps);
    return signalPassFailure();
  }
  if (failed(forEachTrainingStep(module, "dist-local-sgd", StepPhase::PerRank,
                                 [&](func::FuncOp func) {
                                   return runOnStep(func);
                                 })))
    signalPassFailure();
}
