//===- DistMatmulToBlas.cpp - linalg.matmul on buffers to CBLAS -----------===//

#include "LoweringUtils.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTMATMULTOBLAS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

// CBLAS enum values (cblas.h).
constexpr int64_t kCblasRowMajor = 101;
constexpr int64_t kCblasNoTrans = 111;

/// A rank-2 memref whose innermost stride is statically 1 and whose static
/// sizes and row stride fit CBLAS's 32-bit ints.
static bool fitsCblas(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getRank() != 2)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) || strides[1] != 1)
    return false;
  auto fits = [](int64_t size) {
    return ShapedType::isDynamic(size) || size <= INT32_MAX;
  };
  return fits(memref.getDimSize(0)) && fits(memref.getDimSize(1)) &&
         fits(strides[0]);
}

struct MatmulToBlas : public OpRewritePattern<linalg::MatmulOp> {
  MatmulToBlas(MLIRContext *context, ModuleOp module, SymbolTable &symbols,
               bool &reportedError)
      : OpRewritePattern<linalg::MatmulOp>(context), module(module),
        symbols(symbols), reportedError(reportedError) {}

  LogicalResult matchAndRewrite(linalg::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    // After a name clash the pass fails: report it once.
    if (reportedError)
      return failure();
    if (!op.hasPureBufferSemantics() || op.hasUserDefinedMaps() ||
        op.getCast() != linalg::TypeFn::cast_signed)
      return failure();
    Value a = op.getDpsInputOperand(0)->get();
    Value b = op.getDpsInputOperand(1)->get();
    Value c = op.getDpsInitOperand(0)->get();
    Type elementType = cast<MemRefType>(c.getType()).getElementType();
    if (!elementType.isF32() && !elementType.isF64())
      return failure();
    for (Value operand : {a, b, c})
      if (cast<MemRefType>(operand.getType()).getElementType() != elementType ||
          !fitsCblas(operand.getType()))
        return failure();

    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    auto toI32 = [&](Value index) -> Value {
      return arith::IndexCastOp::create(rewriter, loc, i32, index);
    };
    auto dim = [&](Value memref, int64_t d) {
      return toI32(memref::DimOp::create(rewriter, loc, memref, d));
    };
    auto leadingDim = [&](Value memref) {
      auto metadata =
          memref::ExtractStridedMetadataOp::create(rewriter, loc, memref);
      return toI32(metadata.getStrides()[0]);
    };
    auto constI32 = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, value, 32);
    };
    int64_t bytes = elementType.getIntOrFloatBitWidth() / 8;
    Value one = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getFloatAttr(elementType, 1));
    SmallVector<Value> args = {
        constI32(kCblasRowMajor), constI32(kCblasNoTrans),
        constI32(kCblasNoTrans),  dim(c, 0),
        dim(c, 1),                dim(a, 1),
        one,                      buildBufferAddress(rewriter, loc, a, bytes),
        leadingDim(a),            buildBufferAddress(rewriter, loc, b, bytes),
        leadingDim(b),            one,
        buildBufferAddress(rewriter, loc, c, bytes), leadingDim(c)};
    StringRef callee = elementType.isF32() ? "cblas_sgemm" : "cblas_dgemm";
    if (failed(declareExternalFunction(rewriter, module, symbols, callee,
                                       ValueRange(args).getTypes(), {})))
      reportedError = true;
    func::CallOp::create(rewriter, loc, callee, TypeRange{}, args);
    rewriter.eraseOp(op);
    return success();
  }

  ModuleOp module;
  SymbolTable &symbols;
  /// Set when a symbol of the module holds a BLAS name with another type.
  bool &reportedError;
};

struct DistMatmulToBlasPass
    : public dist::impl::DistMatmulToBlasBase<DistMatmulToBlasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    RewritePatternSet patterns(&getContext());
    bool reportedError = false;
    patterns.add<MatmulToBlas>(&getContext(), module, symbols, reportedError);
    walkAndApplyPatterns(module, std::move(patterns));
    if (reportedError)
      signalPassFailure();
  }
};

} // namespace
