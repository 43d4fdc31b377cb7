//===- DistSplitReductions.cpp - Parallel partial reductions for GPUs -----===//
//
// A GPU kernel gives each parallel iteration a thread that reduces
// sequentially, so a reduction with few outputs (a bias gradient, a loss)
// runs on few threads, each along a long chain of loads. Splitting the
// reduced loop into chunks gives every chunk of every output its own thread;
// a second, short reduction combines the chunks.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTSPLITREDUCTIONS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The number of chunks to split `op`'s reduction into (< 2: none): the
/// largest divisor k of its extent with parallel x k <= maxThreads and
/// extent / k >= minChunk.
int64_t chooseChunks(linalg::LinalgOp op, int64_t maxThreads,
                     int64_t minChunk) {
  // linalg.index of the split loop would need rewriting (upstream does
  // not): a one-hot pick by label stays whole.
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 || op.hasDynamicShape() ||
      op.hasIndexSemantics())
    return 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t extent = 1, parallel = 1;
  for (auto [range, type] : llvm::zip(ranges, op.getIteratorTypesArray())) {
    if (type == utils::IteratorType::reduction)
      extent = range;
    else
      parallel *= range;
  }
  if (parallel >= maxThreads)
    return 1;
  int64_t limit = std::min(maxThreads / parallel, extent / minChunk);
  for (int64_t k = limit; k >= 2; --k)
    if (extent % k == 0)
      return k;
  return 1;
}

struct DistSplitReductionsPass
    : public dist::impl::DistSplitReductionsBase<DistSplitReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (minThreads < 2 || minChunk < 1) {
      emitError(getOperation()->getLoc())
          << "dist-split-reductions: min-threads must be at least 2 and "
             "min-chunk at least 1, got "
          << minThreads << " and " << minChunk;
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (chooseChunks(op, minThreads, minChunk) > 1)
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      int64_t chunks = chooseChunks(op, minThreads, minChunk);
      // Kept before the rewrite erases the op.
      SmallVector<NamedAttribute> markings(op->getDiscardableAttrs());
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::SplitReductionResult> split = linalg::splitReduction(
          rewriter, op, [&](linalg::LinalgOp) {
            return linalg::SplitReductionOptions{chunks, /*index=*/0,
                                                 /*innerParallel=*/false};
          });
      // An op upstream cannot split (no recognized combiner) stays as it is.
      if (failed(split))
        continue;
      for (NamedAttribute marking : markings)
        split->resultCombiningLinalgOp->setDiscardableAttr(marking.getName(),
                                                           marking.getValue());
    }
  }
};

} // namespace
