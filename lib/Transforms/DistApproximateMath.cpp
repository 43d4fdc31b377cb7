//===- DistApproximateMath.cpp - Math functions as polynomials ------------===//
//
// math.exp, log, tanh and erf lower to libm calls, one scalar call per
// element, which keeps LLVM from vectorizing the loops of softmax,
// cross-entropy and GELU. Upstream's f32 polynomial approximations are plain
// arithmetic that vectorizes; narrower floats are computed in f32 and
// rounded back.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTAPPROXIMATEMATH
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistApproximateMathPass
    : public dist::impl::DistApproximateMathBase<DistApproximateMathPass> {
  void runOnOperation() override {
    // The patterns ask by operation name ("math.exp").
    auto approximated = [](StringRef name) {
      return llvm::is_contained({"math.exp", "math.expm1", "math.log",
                                 "math.log1p", "math.log2", "math.tanh",
                                 "math.erf"},
                                name);
    };
    // Shaped operands (math on tensors) are left to the elementwise-to-linalg
    // conversion: the patterns build scalar or vector constants only.
    auto scalarOnly = [](Operation *op) {
      return llvm::all_of(op->getOperandTypes(), [](Type type) {
        return type.isIntOrIndexOrFloat() || isa<VectorType>(type);
      });
    };
    RewritePatternSet patterns(&getContext());
    populateMathF32ExpansionPatterns(patterns, approximated);
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    FrozenRewritePatternSet frozen(std::move(patterns));
    SmallVector<Operation *> mathOps;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) && scalarOnly(op))
        mathOps.push_back(op);
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(mathOps, frozen, config))) {
      getOperation().emitError()
          << "dist-approximate-math: rewriting did not reach a fixed point";
      return signalPassFailure();
    }
  }
};
} // namespace
