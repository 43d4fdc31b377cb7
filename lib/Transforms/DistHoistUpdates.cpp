//===- DistHoistUpdates.cpp - Optimizer updates as soon as they can run ---===//
//
// A step made of forward, backward and then the optimizer holds every
// gradient until the optimizer runs. Moving each update up to where its
// gradient is ready (and its parameter's last other read is done) lets the
// gradient die there: the optimizer-in-backward of PyTorch's
// post-accumulate-grad hooks, as a reordering of the step.
//
//===----------------------------------------------------------------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#define DEBUG_TYPE "dist-hoist-updates"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTHOISTUPDATES
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistHoistUpdatesPass
    : public dist::impl::DistHoistUpdatesBase<DistHoistUpdatesPass> {
  using DistHoistUpdatesBase::DistHoistUpdatesBase;
  void runOnOperation() override;
};
} // namespace

/// True for the ops this pass moves: the optimizer's and the learning-rate
/// schedule's (by `dist.role`; a collective among them moves alike on every
/// rank), and unmarked ops free of memory effects (the owners' rank tests,
/// index arithmetic). Unmarked collectives (a stage 3 fetch) stay.
static bool isMovable(Operation *op) {
  if (op->hasTrait<OpTrait::IsTerminator>())
    return false;
  auto role = op->getAttrOfType<RoleAttr>(DistDialect::getRoleAttrName());
  bool optimizer = role && (role.getValue() == Role::optimizer ||
                            role.getValue() == Role::lr_sched);
  if (role && !optimizer)
    return false;
  WalkResult walk = op->walk([&](Operation *nested) {
    if (isa<CollectiveOpInterface>(nested))
      return optimizer ? WalkResult::advance() : WalkResult::interrupt();
    // Ops with regions report their nested ops' effects through the walk.
    if (isMemoryEffectFree(nested) ||
        nested->hasTrait<OpTrait::IsTerminator>() ||
        nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

/// The values `op` uses, in its operands and inside its regions.
static SmallVector<Value> usedValues(Operation *op) {
  SmallVector<Value> values(op->getOperands());
  llvm::SetVector<Value> above;
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, above);
  values.append(above.begin(), above.end());
  return values;
}

/// True for an op whose one result only moves data of its operands (no
/// region, or a body that yields an input: a transpose, a broadcast, a
/// slice, a reshape): a read of its result reads them, and the lowering may
/// fold the op into its reader (a transpose into a matmul).
static bool onlyMovesData(Operation *op) {
  if (op->getNumResults() != 1 || !isMemoryEffectFree(op))
    return false;
  if (op->getNumRegions() == 0)
    return true;
  if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return false;
  Block &body = op->getRegion(0).front();
  Operation *yield = body.getTerminator();
  return yield->getNumOperands() == 1 &&
         isa<BlockArgument>(yield->getOperand(0)) &&
         cast<BlockArgument>(yield->getOperand(0)).getOwner() == &body;
}

static void hoistIn(Block &block) {
  // The function's arguments each value carries (the argument itself, or
  // data moved from it).
  llvm::DenseMap<Value, SmallVector<BlockArgument>> carried;
  std::function<ArrayRef<BlockArgument>(Value)> argumentsIn =
      [&](Value value) -> ArrayRef<BlockArgument> {
    if (auto it = carried.find(value); it != carried.end())
      return it->second;
    SmallVector<BlockArgument> args;
    if (auto arg = dyn_cast<BlockArgument>(value);
        arg && arg.getOwner() == &block)
      args.push_back(arg);
    else if (Operation *def = value.getDefiningOp();
             def && def->getBlock() == &block && onlyMovesData(def))
      for (Value operand : def->getOperands())
        for (BlockArgument arg : argumentsIn(operand))
          if (!llvm::is_contained(args, arg))
            args.push_back(arg);
    return carried[value] = std::move(args);
  };
  // The arguments each op reads, to keep the order of the reads of one
  // argument: an update comes after the other reads of what it updates
  // (also through a transpose the lowering folds into its reader), so that
  // it can be made in place.
  llvm::DenseMap<Operation *, SmallVector<BlockArgument>> argumentsRead;
  for (Operation &op : block)
    for (Value value : usedValues(&op))
      for (BlockArgument arg : argumentsIn(value))
        if (!llvm::is_contained(argumentsRead[&op], arg))
          argumentsRead[&op].push_back(arg);

  // The ops in their original order: each moves up to just after the last
  // op it must follow.
  SmallVector<Operation *> original;
  for (Operation &op : block)
    original.push_back(&op);
  llvm::DenseMap<BlockArgument, SmallVector<Operation *>> readersSoFar;
  for (Operation *op : original) {
    SmallVector<BlockArgument> reads = argumentsRead.lookup(op);
    if (isMovable(op)) {
      Operation *after = nullptr;
      auto follow = [&](Operation *other) {
        if (other && other->getBlock() == &block &&
            (!after || after->isBeforeInBlock(other)))
          after = other;
      };
      for (Value value : usedValues(op))
        if (Operation *def = value.getDefiningOp())
          follow(block.findAncestorOpInBlock(*def));
      for (BlockArgument arg : reads)
        for (Operation *reader : readersSoFar.lookup(arg))
          follow(reader);
      if (!after)
        op->moveBefore(&block.front());
      else if (after != op && op->getPrevNode() != after)
        op->moveAfter(after);
    }
    for (BlockArgument arg : reads)
      readersSoFar[arg].push_back(op);
  }
}

void DistHoistUpdatesPass::runOnOperation() {
  // On buffers, moving an op would reorder reads and writes of memory.
  WalkResult onBuffers = getOperation().walk([&](CollectiveOpInterface op) {
    if (!op.isBufferForm())
      return WalkResult::advance();
    op.emitOpError() << "is a collective on buffers; dist-hoist-updates works "
                        "on tensors (run it before bufferization)";
    return WalkResult::interrupt();
  });
  if (onBuffers.wasInterrupted())
    return signalPassFailure();
  getOperation().walk([&](func::FuncOp func) {
    if (!func.isExternal())
      hoistIn(func.getBody().front());
  });
}
