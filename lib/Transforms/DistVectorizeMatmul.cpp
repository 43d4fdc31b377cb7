//===- DistVectorizeMatmul.cpp - Register-tiled, vectorized matmuls -------===//
//
// linalg.matmul / batch_matmul on tensors -> scf.for over register tiles, each
// a vector.contract lowered to outer products, with the accumulator tile kept
// in registers across the reduction loop. This is the matmul code of the CPU
// pipeline when no BLAS takes it (bench/matmul.sh measures it).
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTVECTORIZEMATMUL
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The largest tile size of at most `limit` that divides `size`: every tile
/// is then full and static, which vectorization needs.
static int64_t fullTileSize(int64_t size, int64_t limit) {
  for (int64_t tile = std::min(size, limit); tile > 1; --tile)
    if (size % tile == 0)
      return tile;
  return 1;
}

struct DistVectorizeMatmulPass
    : public dist::impl::DistVectorizeMatmulBase<DistVectorizeMatmulPass> {
  using DistVectorizeMatmulBase::DistVectorizeMatmulBase;

  /// Whether `op` is a matmul this pass takes: tensors of static shape, the
  /// default indexing maps, and (with skip-blas-types) not a BLAS matmul.
  bool isCandidate(linalg::LinalgOp op) const {
    if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
        !op.hasPureTensorSemantics() || op.hasDynamicShape())
      return false;
    // Vectorizing to vector.contract extends narrow operands as signed
    // (upstream's vectorizer ignores `cast`): unsigned casts stay loops.
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation())) {
      if (matmul.hasUserDefinedMaps() ||
          matmul.getCast() != linalg::TypeFn::cast_signed)
        return false;
      Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
      if (skipBlasTypes && (element.isF32() || element.isF64()))
        return false;
    }
    if (auto batch = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
      if (batch.hasUserDefinedMaps() ||
          batch.getCast() != linalg::TypeFn::cast_signed)
        return false;
    return true;
  }

  void runOnOperation() override {
    if (tileM < 1 || tileN < 1) {
      getOperation().emitError()
          << "dist-vectorize-matmul: tile-m and tile-n must be positive (got "
          << tileM.getValue() << " and " << tileN.getValue() << ")";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isCandidate(op))
        matmuls.push_back(op);
    });
    MLIRContext *context = &getContext();
    IRRewriter rewriter(context);
    SmallVector<LoopLikeOpInterface> reductionLoops;
    for (linalg::LinalgOp op : matmuls) {
      // Loops (batch..., m, n, k): batches and the reduction step by one.
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      size_t m = ranges.size() - 3, n = m + 1;
      SmallVector<int64_t> sizes(ranges.size(), 1);
      sizes[m] = fullTileSize(ranges[m], tileM);
      sizes[n] = fullTileSize(ranges[n], tileN);
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(context, sizes));
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled)) {
        op.emitOpError("could not be tiled into register tiles");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, tiled->replacements);
      Operation *tile = tiled->tiledOps.back();
      rewriter.setInsertionPoint(tile);
      FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
          rewriter, tile, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/true);
      if (failed(vectorized)) {
        tile->emitOpError("could not be vectorized");
        return signalPassFailure();
      }
      rewriter.replaceOp(tile, vectorized->replacements);
      reductionLoops.push_back(tiled->loops.back());
    }
    if (matmuls.empty())
      return;
    // Transfers read and write the tensors directly (not slices of them)...
    RewritePatternSet folds(context);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(folds);
    if (failed(applyPatternsGreedily(getOperation(), std::move(folds))))
      return signalPassFailure();
    // ...so that the accumulator tile, read and written at the same place on
    // every step of the reduction loop, moves out of it into registers.
    for (LoopLikeOpInterface loop : reductionLoops)
      hoistLoopInvariantSubsets(rewriter, loop);
    RewritePatternSet patterns(context);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, context);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, context);
    // Hoisting leaves the tensor iter_arg of the reduction loop unchanged.
    scf::ForOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
