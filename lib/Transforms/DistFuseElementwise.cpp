//===- DistFuseElementwise.cpp - One loop nest per elementwise chain ------===//
//
// dist-gen (and the partitioner's local rewrites) write a step as many small
// linalg.generic ops, one per elementwise step of the math: each a pass over
// memory and a buffer. Fusing a chain into one op keeps the values in
// registers. Only elementwise consumers take producers, so contractions stay
// what dist-matmul-to-blas recognizes; a producer with other users is left
// alone (fusing it would compute it twice).
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTFUSEELEMENTWISE
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
/// Whether `operand`'s producer may fuse into its consumer although it has
/// other users: the consumer is elementwise and reads it element for
/// element, and every other user comes after the consumer in its block
/// (they then read the fused op's copy of the producer's result).
bool canShareProducer(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
  return producer && consumer &&
         consumer.getNumLoops() == consumer.getNumParallelLoops() &&
         consumer.getMatchingIndexingMap(operand).isPermutation() &&
         llvm::all_of(producer->getUsers(), [&](Operation *user) {
           return user == consumer.getOperation() ||
                  (user->getBlock() == consumer->getBlock() &&
                   consumer->isBeforeInBlock(user));
         });
}

/// multi-result: fuses a producer with other users into an elementwise
/// consumer; the fused op also yields the producer's results, which its
/// other users then read (upstream's pattern would keep the producer for
/// them and compute it twice).
struct FuseSharedProducer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      Operation *producer = operand.get().getDefiningOp();
      if (!producer || producer->hasOneUse() ||
          !linalg::areElementwiseOpsFusable(&operand) ||
          !canShareProducer(&operand))
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      // The consumer's results and the producer's kept ones, all from the
      // fused op (placed where the consumer was).
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

struct DistFuseElementwisePass
    : public dist::impl::DistFuseElementwiseBase<DistFuseElementwisePass> {
  using Base::Base;
  void runOnOperation() override {
    linalg::ControlFusionFn control = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
      // A reduction takes producers too (a layernorm's variance sums the
      // squares it computes), but not a contraction: BLAS must still see
      // its two operands.
      return producer && producer->hasOneUse() && consumer &&
             (consumer.getNumLoops() == consumer.getNumParallelLoops() ||
              !linalg::isaContractionOpInterface(consumer));
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (multiResult)
      patterns.add<FuseSharedProducer>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation().emitError()
          << "dist-fuse-elementwise: fusion did not reach a fixed point";
      return signalPassFailure();
    }
  }
};
} // namespace
