//===- DistGpuLinearizeLoops.cpp - One-dimensional GPU loop nests ---------===//
//
// The GPU mapping gives a loop nest's first dimension thread x; with
// row-major buffers consecutive threads should differ in the last index
// instead. One dimension over the nest's product, the dimension most
// accesses index last running fastest (not always the loop's last: a
// column sum's partial sums are made over (column, chunk)), gives both that
// and a grid that only ever grows in x.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numeric>

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPULINEARIZELOOPS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct DistGpuLinearizeLoopsPass
    : public dist::impl::DistGpuLinearizeLoopsBase<DistGpuLinearizeLoopsPass> {
  void runOnOperation() override {
    FailureOr<SmallVector<scf::ParallelOp>> loops =
        collectHostParallelLoops(getOperation(), getArgument());
    if (failed(loops))
      return signalPassFailure();
    // A one-dimensional loop is linear already.
    SmallVector<scf::ParallelOp> nests = llvm::filter_to_vector(
        *loops, [](scf::ParallelOp loop) { return loop.getNumLoops() > 1; });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : nests) {
      // collapseParallelLoops makes the listed dimensions row-major: the
      // contiguous one goes last.
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      if (std::optional<unsigned> contiguous = findContiguousDimension(loop)) {
        all.erase(all.begin() + *contiguous);
        all.push_back(*contiguous);
      }
      rewriter.setInsertionPoint(loop);
      Block *block = loop->getBlock();
      Operation *before = loop->getPrevNode();
      collapseParallelLoops(rewriter, loop, {all});
      // The new extent is a product of the old ones: folded to a constant
      // where they are (the launch's grid is then known at compile time).
      SmallVector<Operation *> extents;
      for (Operation *op = before ? before->getNextNode() : &block->front();
           op && !isa<scf::ParallelOp>(op); op = op->getNextNode())
        if (isa<arith::MulIOp>(op))
          extents.push_back(op);
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      (void)applyOpPatternsGreedily(extents, FrozenRewritePatternSet(),
                                    config);
    }
  }
};

} // namespace
