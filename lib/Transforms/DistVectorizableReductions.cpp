//===- DistVectorizableReductions.cpp - Reductions LLVM can vectorize -----===//
//
// linalg-to-loops keeps a generic's loop order, and LLVM vectorizes only the
// innermost loop: a reduction whose innermost loop strides through memory (a
// bias gradient summing the rows of an activation) stays scalar, and a
// floating-point sum along a contiguous row vectorizes only when its adds may
// be reassociated. This pass moves the loop that walks the largest operand
// contiguously innermost and marks each reduction's combining op `reassoc`.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTVECTORIZABLEREDUCTIONS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

/// The loop that walks `operand`'s innermost dim, if its map indexes that
/// dim by one loop.
static std::optional<unsigned> innermostDimLoop(linalg::LinalgOp op,
                                                OpOperand &operand) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  if (map.getNumResults() == 0)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!dim)
    return std::nullopt;
  return dim.getPosition();
}

/// Elements of a statically shaped operand (0 when dynamic or scalar).
static int64_t staticElements(Value value) {
  auto shaped = dyn_cast<ShapedType>(value.getType());
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  return shaped.getNumElements();
}

/// The loop order that puts the loop walking the largest input contiguously
/// innermost (others keep their order); std::nullopt when it already is.
static std::optional<SmallVector<unsigned>>
contiguousLoopOrder(linalg::GenericOp op) {
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return std::nullopt;
  OpOperand *largest = nullptr;
  int64_t largestElements = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    int64_t elements = staticElements(input->get());
    if (elements > largestElements) {
      largest = input;
      largestElements = elements;
    }
  }
  if (!largest)
    return std::nullopt;
  std::optional<unsigned> contiguous = innermostDimLoop(op, *largest);
  unsigned loops = op.getNumLoops();
  if (!contiguous || *contiguous == loops - 1)
    return std::nullopt;
  SmallVector<unsigned> order;
  for (unsigned loop = 0; loop < loops; ++loop)
    if (loop != *contiguous)
      order.push_back(loop);
  order.push_back(*contiguous);
  return order;
}

/// Marks the op combining each reduced output with its running value
/// (`%out`) as reassociable, the flag LLVM's vectorizer needs for a
/// floating-point reduction.
static void markReassociable(linalg::GenericOp op) {
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (map.getNumResults() == op.getNumLoops())
      continue; // Not reduced: every loop writes its own element.
    Value running = op.getMatchingBlockArgument(&init);
    Operation *combiner =
        yield.getOperand(init.getOperandNumber() - op.getNumDpsInputs())
            .getDefiningOp();
    if (!combiner || combiner->getBlock() != body ||
        !llvm::is_contained(combiner->getOperands(), running) ||
        !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp,
             arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp>(combiner))
      continue;
    auto fastMath = cast<arith::ArithFastMathInterface>(combiner);
    arith::FastMathFlags flags = fastMath.getFastMathFlagsAttr().getValue();
    combiner->setAttr(fastMath.getFastMathAttrName(),
                      arith::FastMathFlagsAttr::get(
                          op.getContext(), flags | arith::FastMathFlags::reassoc));
  }
}

namespace {
struct DistVectorizableReductionsPass
    : public dist::impl::DistVectorizableReductionsBase<
          DistVectorizableReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op.getNumReductionLoops() > 0)
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : reductions) {
      markReassociable(op);
      std::optional<SmallVector<unsigned>> order = contiguousLoopOrder(op);
      if (!order)
        continue;
      // `order` is a permutation of all loops, the only precondition.
      rewriter.setInsertionPoint(op);
      (void)linalg::interchangeGenericOp(rewriter, op, *order);
    }
  }
};
} // namespace
