//===- DistMakeAsync.cpp - Blocking collectives to start/wait pairs -------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Transforms/Passes.h"
#include "LoweringUtils.h"

#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "dist-make-async"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTMAKEASYNC
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistMakeAsyncPass
    : public dist::impl::DistMakeAsyncBase<DistMakeAsyncPass> {
  using DistMakeAsyncBase::DistMakeAsyncBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (wait != "first-use" && wait != "immediate")
      return emitError(UnknownLoc::get(context))
             << "dist-make-async: unknown wait placement '" << wait
             << "'; expected 'first-use' or 'immediate'";
    return success();
  }

  void runOnOperation() override;
};
} // namespace

/// The op of `op`'s block before which its wait goes: the first op that uses
/// a result (directly or inside its regions), else the terminator.
static Operation *findFirstUse(Operation *op) {
  Operation *first = findFirstUserInBlock(op);
  return first ? first : op->getBlock()->getTerminator();
}

/// `op` again, with a `!dist.token` result.
static Operation *cloneAsync(RewriterBase &rewriter, Operation *op) {
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(op->getOperands());
  state.addTypes(op->getResultTypes());
  state.addTypes(TokenType::get(op->getContext()));
  state.addAttributes(op->getAttrs());
  if (op->hasTrait<OpTrait::AttrSizedResultSegments>())
    state.attributes.set(
        "resultSegmentSizes",
        rewriter.getDenseI32ArrayAttr({(int32_t)op->getNumResults(), 1}));
  return rewriter.create(state);
}

void DistMakeAsyncPass::runOnOperation() {
  SmallVector<CollectiveOpInterface> blocking;
  WalkResult onBuffers = getOperation().walk([&](CollectiveOpInterface op) {
    if (op.isBufferForm() && !op.getAsyncToken()) {
      op.emitOpError() << "is a collective on buffers; dist-make-async works "
                          "on tensors (run it before bufferization)";
      return WalkResult::interrupt();
    }
    if (!op.getAsyncToken())
      blocking.push_back(op);
    return WalkResult::advance();
  });
  if (onBuffers.wasInterrupted())
    return signalPassFailure();
  IRRewriter rewriter(&getContext());
  for (CollectiveOpInterface op : blocking) {
    Operation *waitBefore =
        wait == "immediate" ? op->getNextNode() : findFirstUse(op);
    rewriter.setInsertionPoint(op);
    Operation *start = cloneAsync(rewriter, op);
    ResultRange all = start->getResults();
    ValueRange data = all.drop_back();
    rewriter.setInsertionPoint(waitBefore);
    auto waitOp = WaitOp::create(rewriter, op.getLoc(), all.back(), data);
    rewriter.replaceOp(op, waitOp.getResults());
    ++numMadeAsync;
  }
}
