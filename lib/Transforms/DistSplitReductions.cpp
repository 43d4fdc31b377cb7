//===- DistSplitReductions.cpp - Parallel partial reductions for GPUs -----===//
//
// A GPU kernel gives each parallel iteration a thread that reduces
// sequentially, so a reduction with few outputs (a bias gradient, a loss)
// runs on few threads, each along a long chain of loads. Splitting the
// reduced loop into chunks gives every chunk of every output its own thread;
// a second, short reduction combines the chunks.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// Whether upstream's split keeps what `op` computes (it reads each result
/// of a map as one dimension and builds the combiner's neutral element).
bool splitKeepsMeaning(linalg::LinalgOp op) {
  return getSplittableCombiner(op) != nullptr;
}

/// The parallel iterations of a reduction the split may take, capped at
/// `maxThreads`; std::nullopt when it may not: not on tensors with one
/// output and static shapes, a zero extent, or a product
/// dist-matmul-to-blas makes a BLAS call of (isGemmContraction).
std::optional<int64_t> splittableParallelIterations(linalg::LinalgOp op,
                                                    int64_t maxThreads) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.hasDynamicShape() || isGemmContraction(op))
    return std::nullopt;
  int64_t parallel = 1;
  for (auto [range, type] :
       llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray())) {
    if (range == 0)
      return std::nullopt;
    if (type == utils::IteratorType::parallel && parallel < maxThreads)
      parallel *= range; // stops before it could overflow
  }
  return std::min(parallel, maxThreads);
}

/// The number of chunks to split `op`'s reduction into (< 2: none): the
/// largest divisor k of its extent with parallel x k <= maxThreads and
/// extent / k >= minChunk.
int64_t chooseChunks(linalg::LinalgOp op, int64_t maxThreads,
                     int64_t minChunk) {
  if (op.getNumReductionLoops() != 1)
    return 1;
  std::optional<int64_t> parallel = splittableParallelIterations(op, maxThreads);
  if (!parallel || *parallel >= maxThreads)
    return 1;
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  int64_t extent = op.getStaticLoopRanges()[dims.front()];
  int64_t limit = std::min(maxThreads / *parallel, extent / minChunk);
  for (int64_t k = limit; k >= 2; --k)
    if (extent % k == 0)
      return splitKeepsMeaning(op) ? k : 1;
  return 1;
}

/// The bytes of an element of `input` as `op` uses it: its element type's,
/// or, when the body only rounds it (every use an `arith.truncf` to one
/// narrower type), the rounded type's. Such an input is usually a mixed
/// product's f32 result that dist-matmul-to-blas then makes in the narrow
/// type; where it stays wide, partial sums sized for the narrow type still
/// read whole sectors (two per row instead of one).
int64_t getReadBytes(linalg::LinalgOp op, OpOperand *input) {
  int64_t bytes = getElementBytes(getElementTypeOrSelf(input->get()));
  BlockArgument argument = op.getMatchingBlockArgument(input);
  Type rounded;
  for (Operation *user : argument.getUsers()) {
    auto truncf = dyn_cast<arith::TruncFOp>(user);
    if (!truncf || (rounded && truncf.getType() != rounded))
      return bytes;
    rounded = truncf.getType();
  }
  return rounded ? std::min(bytes, getElementBytes(rounded)) : bytes;
}

int64_t chooseSectorChunks(linalg::LinalgOp op);

/// The number of chunks to split a reduction along its input rows'
/// contiguous dimension into (< 2: none) when it has enough outputs that the
/// rule above leaves it (softmax's and layernorm's row sums): each thread
/// would sum its own row, so consecutive threads read elements a row apart.
/// k = the elements of a 32-byte sector (as the body reads them:
/// getReadBytes): partial sum p of a row adds elements p, p + k, ..., so
/// consecutive threads read consecutive elements and a warp whole sectors.
int64_t chooseRowChunks(linalg::LinalgOp op, int64_t maxThreads) {
  if (op.getNumReductionLoops() != 1)
    return 1;
  std::optional<int64_t> parallel = splittableParallelIterations(op, maxThreads);
  if (!parallel || *parallel < maxThreads)
    return 1;
  return chooseSectorChunks(op);
}

/// The sector-sized k of chooseRowChunks for `op` whatever its number of
/// outputs (< 2: its inputs are not read along the reduction's contiguous
/// dimension, or k does not divide it).
int64_t chooseSectorChunks(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() != 1)
    return 1;
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  unsigned reduction = dims.front();
  int64_t elementBytes = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(reduction))
      continue;
    // Contiguous: the last dimension of a row-major tensor.
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || last.getPosition() != reduction)
      return 1;
    elementBytes = std::max(elementBytes, getReadBytes(op, input));
  }
  if (elementBytes == 0 || elementBytes > 16)
    return 1;
  int64_t chunks = 32 / elementBytes;
  int64_t extent = op.getStaticLoopRanges()[reduction];
  if (chunks < 2 || extent % chunks != 0 || extent / chunks < 2)
    return 1;
  return splitKeepsMeaning(op) ? chunks : 1;
}

/// The iteration dimensions of `op`'s reductions when there are several,
/// adjacent in the iteration space and in every operand (a sum to a
/// scalar over a matrix, a bias gradient over batch and sequence), so that
/// they can become one reduction of their product that the split takes
/// (upstream splits one reduction loop). Empty when `op` is not such a
/// reduction or already has enough parallel iterations.
ReassociationIndices adjacentReductions(linalg::LinalgOp op,
                                        int64_t maxThreads) {
  if (op.getNumReductionLoops() < 2 || !isa<linalg::GenericOp>(op) ||
      linalg::isaConvolutionOpInterface(op))
    return {};
  std::optional<int64_t> parallel = splittableParallelIterations(op, maxThreads);
  if (!parallel || *parallel >= maxThreads)
    return {};
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  for (auto [previous, next] : llvm::zip(dims, llvm::drop_begin(dims)))
    if (next != previous + 1)
      return {};
  ReassociationIndices group(dims.begin(), dims.end());
  if (!splitKeepsMeaning(op) ||
      !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {group}))
    return {};
  return group;
}

/// Upstream's split (inner partial loop) moves the body as it is, so its
/// `linalg.index` ops still number the original loops (a causal mask
/// compares the reduced position with a row's, a one-hot pick the label
/// with it). In the split op the reduced loop `reduction` runs over
/// chunks of `chunks` elements and the partial loop follows it: a later
/// loop's number moves up by one, and the reduced position is
/// chunk * chunks + partial.
void renumberIndices(RewriterBase &rewriter, linalg::LinalgOp split,
                     unsigned reduction, int64_t chunks) {
  SmallVector<linalg::IndexOp> indices;
  split->walk([&](linalg::IndexOp index) {
    if (index->getParentOfType<linalg::LinalgOp>() == split)
      indices.push_back(index);
  });
  for (linalg::IndexOp index : indices) {
    uint64_t dim = index.getDim();
    if (dim < reduction)
      continue;
    rewriter.setInsertionPoint(index);
    if (dim > reduction) {
      rewriter.replaceOpWithNewOp<linalg::IndexOp>(index, dim + 1);
      continue;
    }
    Location loc = index.getLoc();
    Value chunk = linalg::IndexOp::create(rewriter, loc, reduction);
    Value partial = linalg::IndexOp::create(rewriter, loc, reduction + 1);
    Value size = arith::ConstantIndexOp::create(rewriter, loc, chunks);
    Value start = arith::MulIOp::create(rewriter, loc, chunk, size);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(index, start, partial);
  }
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
    SmallVector<linalg::LinalgOp> worklist;
    getOperation()->walk([&](linalg::LinalgOp op) { worklist.push_back(op); });
    IRRewriter rewriter(&getContext());
    while (!worklist.empty()) {
      linalg::LinalgOp op = worklist.pop_back_val();
      // Markings the rewrites would drop: the combining op makes the
      // original result (the gradient), both ops have the original's role.
      auto gradOf = op->getAttr(DistDialect::getGradOfAttrName());
      auto role = op->getAttr(DistDialect::getRoleAttrName());
      // Several adjacent reductions: first one loop over their product.
      if (ReassociationIndices group = adjacentReductions(op, minThreads);
          !group.empty()) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::CollapseResult> collapsed =
            linalg::collapseOpIterationDims(op, {group}, rewriter);
        if (failed(collapsed))
          continue;
        for (auto [name, value] :
             {std::pair(DistDialect::getGradOfAttrName(), gradOf),
              std::pair(DistDialect::getRoleAttrName(), role)})
          if (value)
            collapsed->collapsedOp->setAttr(name, value);
        rewriter.replaceOp(op, collapsed->results);
        worklist.push_back(collapsed->collapsedOp);
        continue;
      }
      // A row that dist-gpu-block-reductions gives a block is left whole.
      if (blockMinExtent > 0 &&
          isBlockRowReduction(op, blockMinExtent, blockMinOutputs))
        continue;
      int64_t chunks = chooseChunks(op, minThreads, minChunk);
      // Row sums put the partial sums last: consecutive threads take
      // consecutive partial sums of a row.
      unsigned partialIndex = 0;
      if (chunks < 2) {
        chunks = chooseRowChunks(op, minThreads);
        partialIndex = op.getRank(op.getDpsInitOperand(0));
      } else if (int64_t sector = chooseSectorChunks(op); sector > chunks) {
        // Fewer chunks than a sector's elements along a row would leave
        // part of each sector a warp reads unused (8 bf16 partial sums:
        // 16 of its 32 bytes): a sector's worth, as a row sum.
        chunks = sector;
        partialIndex = op.getRank(op.getDpsInitOperand(0));
      }
      if (chunks < 2)
        continue;
      SmallVector<unsigned> reductionDims;
      op.getReductionDims(reductionDims);
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::SplitReductionResult> split = linalg::splitReduction(
          rewriter, op, [&](linalg::LinalgOp) {
            return linalg::SplitReductionOptions{chunks, partialIndex,
                                                 /*innerParallel=*/true};
          });
      // An op upstream cannot split stays as it is.
      if (failed(split))
        continue;
      renumberIndices(rewriter, split->splitLinalgOp, reductionDims.front(),
                      chunks);
      Operation *combining = split->resultCombiningLinalgOp;
      if (gradOf)
        combining->setAttr(DistDialect::getGradOfAttrName(), gradOf);
      if (role) {
        combining->setAttr(DistDialect::getRoleAttrName(), role);
        split->splitLinalgOp->setAttr(DistDialect::getRoleAttrName(), role);
      }
      // A long combination (k partial results per output, a chain of k
      // loads) is split again: a tree of reductions.
      if (chunks >= minChunk * minChunk)
        worklist.push_back(cast<linalg::LinalgOp>(combining));
    }
  }
};

} // namespace
