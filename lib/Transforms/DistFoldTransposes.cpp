//===- DistFoldTransposes.cpp - Transposed matmul operands read in place --===//
//
// A backward pass multiplies by transposed activations and weights
// (dW = X^T dY, dX = dY W^T), written as a linalg.transpose (a copy) then a
// linalg.matmul. BLAS reads either operand transposed for free, so the
// transpose folds into the matmul's indexing map: the matmul becomes a
// linalg.generic contraction that dist-matmul-to-blas turns into one gemm
// with a transpose flag.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTFOLDTRANSPOSES
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
/// The source of a 2-D transpose on tensors, or null.
static Value transposedSource(Value value) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !transpose.hasPureTensorSemantics() ||
      transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return nullptr;
  return transpose.getInput();
}

struct FoldTransposeIntoMatmul : public OpRewritePattern<linalg::MatmulOp> {
  FoldTransposeIntoMatmul(MLIRContext *context, bool mixedPrecision)
      : OpRewritePattern(context), mixedPrecision(mixedPrecision) {}

  LogicalResult matchAndRewrite(linalg::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.hasUserDefinedMaps() ||
        op.getCast() != linalg::TypeFn::cast_signed)
      return failure();
    Value a = op.getDpsInputOperand(0)->get();
    Value b = op.getDpsInputOperand(1)->get();
    Value c = op.getDpsInitOperand(0)->get();
    // One float type throughout, or (mixedPrecision) narrower float inputs
    // of one type that the body extends to the output's, as linalg.matmul's
    // cast_signed does.
    auto outputType = dyn_cast<FloatType>(getElementTypeOrSelf(c.getType()));
    auto inputType = dyn_cast<FloatType>(getElementTypeOrSelf(a.getType()));
    if (!outputType || !inputType ||
        getElementTypeOrSelf(b.getType()) != inputType)
      return failure();
    bool extend = inputType != outputType;
    if (extend && (!mixedPrecision ||
                   inputType.getWidth() >= outputType.getWidth()))
      return failure();
    Value sourceA = transposedSource(a);
    Value sourceB = transposedSource(b);
    if (!sourceA && !sourceB)
      return failure();

    MLIRContext *context = rewriter.getContext();
    AffineExpr m, n, k;
    bindDims(context, m, n, k);
    auto map = [&](ArrayRef<AffineExpr> results) {
      return AffineMap::get(3, 0, results, context);
    };
    SmallVector<AffineMap> maps = {
        sourceA ? map({k, m}) : map({m, k}),
        sourceB ? map({n, k}) : map({k, n}), map({m, n})};
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction};
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getResultTypes(),
        ValueRange{sourceA ? sourceA : a, sourceB ? sourceB : b},
        ValueRange{c}, maps, iterators,
        [&](OpBuilder &builder, Location loc, ValueRange args) {
          Value x = args[0], y = args[1];
          if (extend) {
            x = arith::ExtFOp::create(builder, loc, outputType, x);
            y = arith::ExtFOp::create(builder, loc, outputType, y);
          }
          Value product = arith::MulFOp::create(builder, loc, x, y);
          Value sum = arith::AddFOp::create(builder, loc, args[2], product);
          linalg::YieldOp::create(builder, loc, sum);
        });
    // Keep the markings (role, gradient) the matmul carried.
    for (NamedAttribute attribute : op->getDiscardableAttrs())
      generic->setAttr(attribute.getName(), attribute.getValue());
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }

  bool mixedPrecision;
};

struct DistFoldTransposesPass
    : public dist::impl::DistFoldTransposesBase<DistFoldTransposesPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposeIntoMatmul>(&getContext(), mixedPrecision);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation().emitError()
          << "dist-fold-transposes: folding did not reach a fixed point";
      return signalPassFailure();
    }
  }
};
} // namespace
