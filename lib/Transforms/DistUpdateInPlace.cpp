//===- DistUpdateInPlace.cpp - Next values in their arguments' buffers ----===//
//
// Two passes around one-shot bufferization that let a step function update
// its parameters and optimizer state in place: dist-update-in-place (on
// tensors) returns each next value through a materialization into its
// argument, and dist-update-in-place-buffers (on buffers) removes the results
// that became the argument's own buffer, so that neither the deallocation
// pipeline nor the caller copies them.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Dialect/Dist/IR/StepState.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTUPDATEINPLACE
#define GEN_PASS_DEF_DISTUPDATEINPLACEBUFFERS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistUpdateInPlacePass
    : public dist::impl::DistUpdateInPlaceBase<DistUpdateInPlacePass> {
  void runOnOperation() override;
};

struct DistUpdateInPlaceBuffersPass
    : public dist::impl::DistUpdateInPlaceBuffersBase<
          DistUpdateInPlaceBuffersPass> {
  void runOnOperation() override;
};
} // namespace

/// The only `func.return` of `func`, or null when it has several blocks that
/// return.
static func::ReturnOp getUniqueReturn(func::FuncOp func) {
  func::ReturnOp unique;
  for (Block &block : func.getBody()) {
    auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
    if (!ret)
      continue;
    if (unique)
      return nullptr;
    unique = ret;
  }
  return unique;
}

/// The tensor (or, bufferized, memref) values of `func` that may share
/// `argument`'s buffer (the argument, views of it, results of ops that may
/// return an operand's buffer): a destination-passing op's result aliases
/// its init only; an op with regions may return anything its operands or
/// its regions' terminators carry (an scf.if yielding the argument); any
/// other op on a value it reads may return it.
static llvm::SmallPtrSet<Value, 16> getMayAliases(func::FuncOp func,
                                                 Value argument) {
  llvm::SmallPtrSet<Value, 16> aliases;
  aliases.insert(argument);
  auto isAlias = [&](Value value) { return aliases.contains(value); };
  for (bool changed = true; changed;) {
    changed = false;
    auto add = [&](Value value) {
      if (isa<TensorType, BaseMemRefType>(value.getType()))
        changed |= aliases.insert(value).second;
    };
    func.walk([&](Operation *op) {
      if (op == func) // what it returns does not alias its arguments here
        return;
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
        for (OpOperand &init : dps.getDpsInitsMutable())
          if (isAlias(init.get()))
            add(dps.getTiedOpResult(&init));
        return;
      }
      bool reaches = llvm::any_of(op->getOperands(), isAlias);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          if (block.mightHaveTerminator())
            reaches |= llvm::any_of(block.getTerminator()->getOperands(),
                                    isAlias);
      if (!reaches)
        return;
      for (Value result : op->getResults())
        add(result);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument blockArgument : block.getArguments())
            add(blockArgument);
    });
  }
  return aliases;
}

/// Lets the op that makes `value` write it into `destination` (a function
/// argument of its type): the op's empty init becomes the argument, when
/// the op is in the function's body and every read of the argument's old
/// value (or of a value that may share its buffer, `aliases`) comes before
/// it (the op itself may read it element by element, with its output's
/// indexing map, as an update does).
/// Otherwise bufferization makes the value in a buffer of its own and
/// copies it into the argument at the end.
static void makeInDestination(Value value, BlockArgument destination,
                              const llvm::SmallPtrSet<Value, 16> &aliases) {
  auto result = dyn_cast<OpResult>(value);
  auto producer =
      result ? dyn_cast<DestinationStyleOpInterface>(result.getOwner())
             : DestinationStyleOpInterface();
  Block *body = destination.getOwner();
  if (!producer || producer->getBlock() != body)
    return;
  OpOperand *init = producer.getTiedOpOperand(result);
  auto empty = init ? init->get().getDefiningOp<tensor::EmptyOp>()
                    : tensor::EmptyOp();
  if (!empty || !empty->hasOneUse() || empty.getType() != destination.getType())
    return;
  // The producer itself may read the old value only element by element:
  // each element before it writes that element (a transposed read would
  // see elements it has overwritten).
  auto linalgProducer = dyn_cast<linalg::LinalgOp>(producer.getOperation());
  auto readsElementwise = [&](OpOperand &use) {
    return use.getOwner() == producer && linalgProducer &&
           linalgProducer.getMatchingIndexingMap(&use) ==
               linalgProducer.getMatchingIndexingMap(init);
  };
  for (Value alias : aliases)
    for (OpOperand &use : alias.getUses()) {
      Operation *inBody = body->findAncestorOpInBlock(*use.getOwner());
      if (!inBody)
        return;
      if (inBody == producer ? !readsElementwise(use)
                             : !inBody->isBeforeInBlock(producer))
        return;
    }
  init->set(destination);
  empty->erase();
}

void DistUpdateInPlacePass::runOnOperation() {
  getOperation().walk([](func::FuncOp func) {
    if (func.isExternal())
      return;
    func::ReturnOp ret = getUniqueReturn(func);
    if (!ret)
      return;
    OpBuilder builder(ret);
    // The dialect verifies that a next value has its argument's type and that
    // no two results update one argument.
    for (OpOperand &operand : ret->getOpOperands()) {
      std::optional<unsigned> arg =
          getUpdatedArgument(func, operand.getOperandNumber());
      if (!arg)
        continue;
      BlockArgument destination = func.getArgument(*arg);
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type || destination.getType() != type)
        continue;
      // The materialization must write the argument in place, so nothing
      // that may share the argument's buffer may be read after it: not the
      // value itself (the argument returned unchanged, a view of it, a loop
      // started from it), nor another result. Such a value is returned as it
      // is (its caller copies it).
      llvm::SmallPtrSet<Value, 16> aliases = getMayAliases(func, destination);
      if (llvm::any_of(ret->getOperands(),
                       [&](Value v) { return aliases.contains(v); }))
        continue;
      makeInDestination(operand.get(), destination, aliases);
      auto materialize = bufferization::MaterializeInDestinationOp::create(
          builder, ret.getLoc(), operand.get(), destination);
      operand.set(materialize.getResult());
    }
  });
}

/// `value` without the `memref.cast`s in front of it.
static Value stripCasts(Value value) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  return value;
}

/// Whether `op` (or an op nested in it) uses one of `buffers`.
static bool usesAny(Operation *op, const llvm::SmallPtrSet<Value, 16> &buffers) {
  WalkResult walk = op->walk([&](Operation *nested) {
    return llvm::any_of(nested->getOperands(),
                        [&](Value operand) { return buffers.contains(operand); })
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Replaces each allocation in `func`'s body whose last use is a copy into
/// an argument's buffer by that buffer, when nothing touches the argument
/// (or a value that may share its buffer) from the allocation to the copy
/// (so writing it earlier changes nothing that is read).
static void forwardCopiesIntoArguments(func::FuncOp func) {
  Block &body = func.getBody().front();
  SmallVector<memref::CopyOp> copies;
  for (auto copy : body.getOps<memref::CopyOp>())
    if (isa<BlockArgument>(copy.getTarget()) &&
        cast<BlockArgument>(copy.getTarget()).getOwner() == &body)
      copies.push_back(copy);
  for (memref::CopyOp copy : copies) {
    Value argument = copy.getTarget();
    auto alloc = copy.getSource().getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != &body ||
        alloc.getType() != argument.getType())
      continue;
    // Every other use of the buffer (views included) comes before the copy.
    bool usedAfter = false;
    SmallVector<Value> aliases = {alloc.getResult()};
    while (!aliases.empty() && !usedAfter) {
      Value alias = aliases.pop_back_val();
      for (Operation *user : alias.getUsers()) {
        Operation *inBody = body.findAncestorOpInBlock(*user);
        if (user == copy)
          continue;
        if (!inBody || !inBody->isBeforeInBlock(copy)) {
          usedAfter = true;
          break;
        }
        if (auto view = dyn_cast<ViewLikeOpInterface>(user))
          if (view.getViewSource() == alias)
            aliases.push_back(view->getResult(0));
      }
    }
    if (usedAfter)
      continue;
    // Nor anything that may share the argument's buffer (a view of it, an
    // scf.if yielding it).
    llvm::SmallPtrSet<Value, 16> argumentAliases =
        getMayAliases(func, argument);
    bool touched = false;
    for (Operation *op = alloc->getNextNode(); op != copy && !touched;
         op = op->getNextNode())
      touched = usesAny(op, argumentAliases);
    if (touched)
      continue;
    copy.erase();
    alloc.getResult().replaceAllUsesWith(argument);
    alloc.erase();
  }
}

void DistUpdateInPlaceBuffersPass::runOnOperation() {
  ModuleOp module = getOperation();
  module.walk([](func::FuncOp func) {
    if (!func.isExternal() && getUniqueReturn(func))
      forwardCopiesIntoArguments(func);
  });
  // Copies of a buffer onto itself: what materializing a value in place
  // leaves behind (here and in callers, once their call results are
  // replaced).
  auto eraseSelfCopies = [&] {
    module.walk([](memref::CopyOp copy) {
      if (stripCasts(copy.getSource()) == stripCasts(copy.getTarget()))
        copy.erase();
    });
  };
  eraseSelfCopies();

  llvm::DenseMap<Operation *, SmallVector<func::CallOp>> callers;
  module.walk([&](func::CallOp call) {
    if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee()))
      callers[callee].push_back(call);
  });
  IRRewriter rewriter(module.getContext());
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    func::ReturnOp ret = getUniqueReturn(func);
    if (!ret)
      continue;
    // Result i -> the argument whose buffer it is.
    llvm::DenseMap<unsigned, unsigned> inArgument;
    llvm::BitVector dropped(func.getNumResults());
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      auto arg = dyn_cast<BlockArgument>(stripCasts(value));
      if (!arg || arg.getOwner() != &func.getBody().front() ||
          !isa<BaseMemRefType>(arg.getType()))
        continue;
      std::optional<unsigned> updated = getUpdatedArgument(func, i);
      if (!updated || *updated != arg.getArgNumber())
        continue;
      inArgument[i] = *updated;
      dropped.set(i);
    }
    if (dropped.none())
      continue;
    SmallVector<Value> kept;
    for (auto [i, value] : llvm::enumerate(ret.getOperands()))
      if (!dropped.test(i))
        kept.push_back(value);
    if (failed(func.eraseResults(dropped))) {
      func.emitError() << "dist-update-in-place-buffers: cannot erase the "
                          "results of @"
                       << func.getSymName();
      return signalPassFailure();
    }
    ret.getOperandsMutable().assign(kept);
    for (func::CallOp call : callers.lookup(func)) {
      rewriter.setInsertionPoint(call);
      auto newCall = func::CallOp::create(rewriter, call.getLoc(), func,
                                          call.getOperands());
      newCall->setDiscardableAttrs(call->getDiscardableAttrDictionary());
      SmallVector<Value> replacements;
      unsigned next = 0;
      for (unsigned i = 0, e = call.getNumResults(); i < e; ++i) {
        auto it = inArgument.find(i);
        if (it == inArgument.end()) {
          replacements.push_back(newCall.getResult(next++));
          continue;
        }
        Value operand = call.getOperand(it->second);
        if (operand.getType() != call.getResult(i).getType())
          operand = memref::CastOp::create(rewriter, call.getLoc(),
                                           call.getResult(i).getType(),
                                           operand);
        replacements.push_back(operand);
      }
      rewriter.replaceOp(call, replacements);
    }
  }
  eraseSelfCopies();
}
