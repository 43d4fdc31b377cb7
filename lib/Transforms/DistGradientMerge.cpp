//===- DistGradientMerge.cpp - Update once every k micro-steps ------------===//
//
// Rewrites a training step into a micro-step: gradients are added into
// accumulators kept as state, and the update (everything that reads a
// gradient, and every state a result updates) runs inside an scf.if that is
// taken once every k calls, on the merged gradient (the seeds' gradient
// merge). The merged gradient carries dist.grad_of, so dist-data-parallel
// reduces it there, once per k micro-steps.
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
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGRADIENTMERGE
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistGradientMergePass
    : public dist::impl::DistGradientMergeBase<DistGradientMergePass> {
  using DistGradientMergeBase::DistGradientMergeBase;
  void runOnOperation() override;

private:
  LogicalResult runOnStep(func::FuncOp func);
};

/// A gradient the step makes and what the merge adds for it.
struct MergedGradient {
  Operation *op;        // marked dist.grad_of
  unsigned param;       // its parameter argument
  Value accumulator;    // the new argument
  Value accumulated;    // accumulator + gradient (every micro-step)
  Value merged;         // accumulated (scaled), inside the scf.if
};
} // namespace

/// True if `op` or an op in its regions uses a value in `values`.
static bool usesAnyOf(Operation *op, const llvm::DenseSet<Value> &values) {
  WalkResult walk = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (values.contains(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

LogicalResult DistGradientMergePass::runOnStep(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  if (!func.getBody().hasOneBlock())
    return func.emitOpError()
           << "has " << func.getBody().getBlocks().size()
           << " blocks; dist-gradient-merge needs a step in one block";
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, DistDialect::getGradAccumulatorOfAttrName()))
      return emitError(func.getArgument(i).getLoc())
             << "argument " << i << " is already a gradient accumulator: "
             << "the step's gradients are merged already";
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());

  // The gradients, in the order backward makes them; one per parameter.
  SmallVector<MergedGradient> gradients;
  llvm::DenseMap<unsigned, Operation *> gradientOfParam;
  for (Operation &op : body.without_terminator()) {
    auto param = op.getAttrOfType<IntegerAttr>(DistDialect::getGradOfAttrName());
    if (!param)
      continue;
    auto type = op.getNumResults() == 1
                    ? dyn_cast<RankedTensorType>(op.getResult(0).getType())
                    : RankedTensorType();
    if (!type || !isa<FloatType>(type.getElementType()))
      return op.emitOpError() << "is marked the gradient of argument "
                              << param.getInt()
                              << " but its result is no float tensor";
    if (param.getInt() < 0 || param.getInt() >= func.getNumArguments())
      return op.emitOpError() << "is marked the gradient of argument "
                              << param.getInt() << ", but the function has "
                              << func.getNumArguments() << " argument(s)";
    auto [it, inserted] = gradientOfParam.try_emplace(param.getInt(), &op);
    if (!inserted)
      return (op.emitOpError() << "is a second gradient of argument "
                               << param.getInt()
                               << "; dist-gradient-merge accumulates one")
                 .attachNote(it->second->getLoc())
             << "the first";
    gradients.push_back({&op, (unsigned)param.getInt(), {}, {}, {}});
  }
  bool nestedGradient = false;
  func.walk([&](Operation *op) {
    nestedGradient |= op->getBlock() != &body &&
                      op->hasAttr(DistDialect::getGradOfAttrName());
  });
  if (nestedGradient)
    return func.emitOpError() << "makes a gradient inside a region; "
                                 "dist-gradient-merge needs them at the top "
                                 "level of the step";
  if (gradients.empty())
    return func.emitOpError()
           << "has parameters but no gradients (no op marked '"
           << DistDialect::getGradOfAttrName()
           << "'): dist-gradient-merge needs the backward pass of a step";

  // Everything downstream of a gradient: it moves into the update.
  llvm::DenseSet<Value> downstream;
  for (MergedGradient &g : gradients)
    downstream.insert(g.op->getResult(0));
  SmallVector<Operation *> update;
  for (Operation &op : body.without_terminator()) {
    if (!usesAnyOf(&op, downstream))
      continue;
    update.push_back(&op);
    downstream.insert(op.getResults().begin(), op.getResults().end());
  }

  // New state: an accumulator per gradient and the micro-step counter.
  Location loc = func.getLoc();
  auto counterType = RankedTensorType::get({}, IntegerType::get(context, 64));
  SmallVector<unsigned> argIndices;
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<Location> argLocs;
  unsigned numArgs = func.getNumArguments();
  Builder attrs(context);
  for (MergedGradient &g : gradients) {
    argIndices.push_back(numArgs);
    argTypes.push_back(g.op->getResult(0).getType());
    argAttrs.push_back(attrs.getDictionaryAttr({
        attrs.getNamedAttr(DistDialect::getNameAttrName(),
                           attrs.getStringAttr(derivedStateName(
                               func, g.param, "grad_accumulator"))),
        attrs.getNamedAttr(DistDialect::getGradAccumulatorOfAttrName(),
                           attrs.getI64IntegerAttr(g.param)),
        attrs.getNamedAttr(DistDialect::getInputFillAttrName(),
                           attrs.getF64FloatAttr(0.0)),
    }));
    argLocs.push_back(g.op->getLoc());
  }
  argIndices.push_back(numArgs);
  argTypes.push_back(counterType);
  StringAttr counterName = attrs.getStringAttr("gradient_merge.micro_step");
  argAttrs.push_back(attrs.getDictionaryAttr({
      attrs.getNamedAttr(DistDialect::getNameAttrName(), counterName),
      attrs.getNamedAttr(DistDialect::getInputRangeAttrName(),
                         attrs.getDenseI64ArrayAttr({0, 1})),
  }));
  argLocs.push_back(loc);
  if (failed(func.insertArguments(argIndices, argTypes, argAttrs, argLocs)))
    return func.emitOpError() << "could not take the accumulator arguments";
  for (auto [i, g] : llvm::enumerate(gradients))
    g.accumulator = func.getArgument(numArgs + i);
  Value counter = func.getArgument(func.getNumArguments() - 1);

  // Every micro-step: accumulate, right where backward makes the gradient.
  OpBuilder builder(context);
  auto roleOf = [](Operation *op) {
    return op->getAttr(DistDialect::getRoleAttrName());
  };
  for (MergedGradient &g : gradients) {
    builder.setInsertionPointAfter(g.op);
    auto add = arith::AddFOp::create(builder, g.op->getLoc(), g.accumulator,
                                     g.op->getResult(0));
    if (Attribute role = roleOf(g.op))
      add->setAttr(DistDialect::getRoleAttrName(), role);
    g.accumulated = add;
  }

  // The counter, and whether this micro-step updates.
  builder.setInsertionPoint(ret);
  auto [nextCounter, isUpdate] = buildOnceEveryK(builder, loc, counter, steps);

  // What the step returns, and what a micro-step without update returns
  // instead: the argument it updates (unchanged), or zeros.
  SmallVector<Value> returned(ret.getOperands());
  llvm::DenseMap<Value, unsigned> gradientIndex;
  for (auto [i, g] : llvm::enumerate(gradients))
    gradientIndex[g.op->getResult(0)] = i;
  SmallVector<unsigned> throughUpdate; // indices of results
  for (auto [r, value] : llvm::enumerate(returned))
    if (downstream.contains(value) || getUpdatedArgument(func, r))
      throughUpdate.push_back(r);

  SmallVector<Type> ifTypes;
  for (unsigned r : throughUpdate)
    ifTypes.push_back(returned[r].getType());
  for (MergedGradient &g : gradients)
    ifTypes.push_back(g.accumulator.getType());
  auto ifOp = scf::IfOp::create(builder, loc, ifTypes, isUpdate,
                                /*withElseRegion=*/true);
  for (Block *branch : {ifOp.thenBlock(), ifOp.elseBlock()}) {
    builder.setInsertionPointToEnd(branch);
    scf::YieldOp::create(builder, loc);
  }

  // The update: the merged gradients, then everything downstream of them.
  Block *thenBlock = ifOp.thenBlock();
  builder.setInsertionPointToStart(thenBlock);
  for (MergedGradient &g : gradients) {
    auto type = cast<RankedTensorType>(g.accumulator.getType());
    Value scale =
        buildSplatConstant(builder, g.op->getLoc(), type, average ? 1.0 / steps : 1.0);
    auto merged =
        arith::MulFOp::create(builder, g.op->getLoc(), g.accumulated, scale);
    for (StringRef name :
         {DistDialect::getGradOfAttrName(), DistDialect::getRoleAttrName()})
      if (Attribute attr = g.op->getAttr(name))
        merged->setAttr(name, attr);
    g.op->removeAttr(DistDialect::getGradOfAttrName());
    g.merged = merged;
  }
  Operation *yieldThen = thenBlock->getTerminator();
  for (Operation *op : update) {
    op->moveBefore(yieldThen);
    op->walk([&](Operation *nested) {
      for (OpOperand &use : nested->getOpOperands())
        if (auto it = gradientIndex.find(use.get()); it != gradientIndex.end())
          use.set(gradients[it->second].merged);
    });
  }
  SmallVector<Value> thenValues, elseValues;
  builder.setInsertionPoint(yieldThen);
  for (unsigned r : throughUpdate) {
    Value value = returned[r];
    if (auto it = gradientIndex.find(value); it != gradientIndex.end())
      value = gradients[it->second].merged; // a returned gradient
    thenValues.push_back(value);
  }
  for (MergedGradient &g : gradients)
    thenValues.push_back(buildSplatConstant(
        builder, loc, cast<RankedTensorType>(g.accumulator.getType()), 0.0));
  yieldThen->setOperands(thenValues);

  Block *elseBlock = ifOp.elseBlock();
  builder.setInsertionPoint(elseBlock->getTerminator());
  for (unsigned r : throughUpdate) {
    if (std::optional<unsigned> arg = getUpdatedArgument(func, r)) {
      elseValues.push_back(func.getArgument(*arg));
      continue;
    }
    auto type = dyn_cast<RankedTensorType>(returned[r].getType());
    if (!type)
      return ret.emitOpError()
             << "returns value " << r
             << ", which depends on a gradient but is no tensor; "
                "dist-gradient-merge returns zeros for it on micro-steps "
                "without an update";
    elseValues.push_back(buildSplatConstant(builder, loc, type, 0.0));
  }
  for (MergedGradient &g : gradients)
    elseValues.push_back(g.accumulated);
  elseBlock->getTerminator()->setOperands(elseValues);

  // The step's results: through the update where they must be, and the new
  // accumulators and counter.
  for (auto [i, r] : llvm::enumerate(throughUpdate))
    returned[r] = ifOp.getResult(i);
  unsigned numResults = func.getNumResults();
  SmallVector<unsigned> resultIndices;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  for (auto [i, g] : llvm::enumerate(gradients)) {
    returned.push_back(ifOp.getResult(throughUpdate.size() + i));
    resultIndices.push_back(numResults);
    resultTypes.push_back(g.accumulator.getType());
    unsigned arg = cast<BlockArgument>(g.accumulator).getArgNumber();
    resultAttrs.push_back(attrs.getDictionaryAttr({
        attrs.getNamedAttr(DistDialect::getNameAttrName(),
                           func.getArgAttr(arg, DistDialect::getNameAttrName())),
        attrs.getNamedAttr(DistDialect::getGradAccumulatorOfAttrName(),
                           attrs.getI64IntegerAttr(g.param)),
    }));
  }
  returned.push_back(nextCounter);
  resultIndices.push_back(numResults);
  resultTypes.push_back(counterType);
  resultAttrs.push_back(attrs.getDictionaryAttr(
      {attrs.getNamedAttr(DistDialect::getNameAttrName(), counterName)}));
  if (failed(func.insertResults(resultIndices, resultTypes, resultAttrs)))
    return func.emitOpError() << "could not take the accumulator results";
  ret->setOperands(returned);

  // What only the update uses runs only with it (the learning-rate
  // schedule, the step counter's increment).
  Region &thenRegion = ifOp.getThenRegion();
  SmallVector<Operation *> before;
  for (Operation &op : llvm::make_range(body.begin(), ifOp->getIterator()))
    before.push_back(&op);
  for (Operation *op : llvm::reverse(before)) {
    if (op->getNumResults() == 0 || op->use_empty() || !isMemoryEffectFree(op))
      continue;
    bool onlyInUpdate = llvm::all_of(op->getUsers(), [&](Operation *user) {
      return thenRegion.isAncestor(user->getParentRegion());
    });
    if (onlyInUpdate)
      op->moveBefore(&thenBlock->front());
  }
  return success();
}

void DistGradientMergePass::runOnOperation() {
  ModuleOp module = getOperation();
  if (steps < 1) {
    module.emitError() << "dist-gradient-merge: k must be at least 1, got "
                       << static_cast<int64_t>(steps);
    return signalPassFailure();
  }
  if (failed(forEachTrainingStep(module, "dist-gradient-merge",
                                 StepPhase::Global, [&](func::FuncOp func) {
                                   return runOnStep(func);
                                 })))
    signalPassFailure();
}
