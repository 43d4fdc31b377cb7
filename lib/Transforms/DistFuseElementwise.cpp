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
struct DistFuseElementwisePass
    : public dist::impl::DistFuseElementwiseBase<DistFuseElementwisePass> {
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
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation().emitError()
          << "dist-fuse-elementwise: fusion did not reach a fixed point";
      return signalPassFailure();
    }
  }
};
} // namespace
