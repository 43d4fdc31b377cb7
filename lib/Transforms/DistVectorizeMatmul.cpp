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
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

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
  /// default indexing maps, element types the outer-product lowering can
  /// multiply, and (with skip-blas-types) not a matmul the BLAS takes.
  bool isCandidate(linalg::LinalgOp op) const {
    if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
        !op.hasPureTensorSemantics() || op.hasDynamicShape())
      return false;
    // Vectorizing to vector.contract extends narrow operands as signed
    // (upstream's vectorizer ignores `cast`): unsigned casts stay loops.
    auto hasDefaultForm = [](auto named) {
      return !named.hasUserDefinedMaps() &&
             named.getCast() == linalg::TypeFn::cast_signed;
    };
    auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
    if (matmul ? !hasDefaultForm(matmul)
               : !hasDefaultForm(cast<linalg::BatchMatmulOp>(op.getOperation())))
      return false;
    // The outer products extend each input to the result's type with extf
    // (float result) or extsi (integer result): each input must be the
    // result's type or a narrower one of the same kind.
    Type result = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    if (!isa<FloatType, IntegerType>(result))
      return false;
    for (Value input : op.getDpsInputs()) {
      Type element = getElementTypeOrSelf(input.getType());
      if (element == result)
        continue;
      bool sameKind = (isa<FloatType>(element) && isa<FloatType>(result)) ||
                      (isa<IntegerType>(element) && isa<IntegerType>(result));
      if (!sameKind ||
          element.getIntOrFloatBitWidth() >= result.getIntOrFloatBitWidth())
        return false;
    }
    // dist-matmul-to-blas takes matmuls and batch_matmuls whose three types
    // are all f32 or all f64 (a batch_matmul as one call per batch element).
    if (skipBlasTypes && (result.isF32() || result.isF64()) &&
        llvm::all_of(op.getDpsInputs(), [&](Value input) {
          return getElementTypeOrSelf(input.getType()) == result;
        }))
      return false;
    // A dead matmul is left for dead-code elimination.
    return !op->use_empty();
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
      // A tile the vectorizer declines stays a linalg op on slices, which
      // the loop lowering computes correctly.
      if (failed(vectorized))
        continue;
      rewriter.replaceOp(tile, vectorized->replacements);
      reductionLoops.push_back(tiled->loops.back());
    }
    if (reductionLoops.empty())
      return;
    // Transfers read and write the tensors directly (not slices of them)...
    // (One walk, which erases nothing: the greedy driver's dead-code
    // elimination could free loops `reductionLoops` still points to.)
    RewritePatternSet folds(context);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(folds);
    walkAndApplyPatterns(getOperation(), std::move(folds));
    // ...so that the accumulator tile, read and written at the same place on
    // every step of the reduction loop, moves out of it into registers. It
    // moves only when every operand of its transfers is defined outside the
    // loop: the slices the transfers no longer read are erased (a dead slice
    // of the accumulator is a use that keeps it in the loop) and the padding
    // constants hoisted first.
    for (LoopLikeOpInterface loop : reductionLoops) {
      Block &body = loop->getRegion(0).front();
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
        if (isOpTriviallyDead(&op))
          rewriter.eraseOp(&op);
      moveLoopInvariantCode(loop);
      hoistLoopInvariantSubsets(rewriter, loop);
    }
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
