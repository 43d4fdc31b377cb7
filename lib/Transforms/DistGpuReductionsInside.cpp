//===- DistGpuReductionsInside.cpp - Parallel loops outside reductions ----===//
//
// Loop lowering keeps an op's dimension order: a reduction dimension before
// a parallel one becomes a host loop around a kernel (a launch per row of a
// column sum). With the parallel dimensions first, the op is one parallel
// nest whose threads each run their reduction.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPUREDUCTIONSINSIDE
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The permutation that puts `op`'s parallel dimensions first (each group in
/// its order); empty when no reduction precedes a parallel dimension.
SmallVector<unsigned> parallelFirst(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> parallel, reduction;
  for (auto [dim, iterator] : llvm::enumerate(iterators))
    (iterator == utils::IteratorType::parallel ? parallel : reduction)
        .push_back(dim);
  if (reduction.empty() || parallel.empty() ||
      reduction.front() > parallel.back())
    return {};
  parallel.append(reduction.begin(), reduction.end());
  return parallel;
}

struct DistGpuReductionsInsidePass
    : public dist::impl::DistGpuReductionsInsideBase<
          DistGpuReductionsInsidePass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
          linalgOp && !parallelFirst(linalgOp).empty())
        ops.push_back(linalgOp);
      return WalkResult::advance();
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<unsigned> order = parallelFirst(op);
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        // A named op without a body to generalize keeps its order.
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};

} // namespace
