//===- DistFuseElementwise.cpp - One loop nest per elementwise chain ------===//
//
// dist-gen (and the partitioner's local rewrites) write a step as many small
// linalg.generic ops, one per elementwise step of the math: each a pass over
// memory and a buffer. Fusing a chain into one op keeps the values in
// registers. Only elementwise consumers take producers, so contractions stay
// what dist-matmul-to-blas recognizes; a producer with other users is left
// alone (fusing it would compute it twice), unless an option says how to
// share it (multi-result) or that computing it twice is cheaper than
// storing it (recompute).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
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
/// Whether `operand`'s producer may fuse into its consumer although it has
/// other users: the consumer is elementwise and reads it element for
/// element, and every other user comes after the consumer in its block
/// (they then read the fused op's copy of the producer's result).
bool canShareProducer(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
  return producer && consumer &&
         consumer.getNumLoops() == consumer.getNumParallelLoops() &&
         consumer.getMatchingIndexingMap(operand).isPermutation() &&
         llvm::all_of(producer->getUsers(), [&](Operation *user) {
           return user == consumer.getOperation() ||
                  (user->getBlock() == consumer->getBlock() &&
                   consumer->isBeforeInBlock(user));
         });
}

/// The most ops (besides its yield) a producer's body may have for
/// `recompute` to compute it in each of its users.
constexpr unsigned kRecomputedOps = 16;

/// The bytes of an element of `value` (getElementBytes), std::nullopt for
/// types without a width (complex numbers).
std::optional<int64_t> elementBytes(Value value) {
  Type type = getElementTypeOrSelf(value.getType());
  if (!type.isIntOrIndexOrFloat())
    return std::nullopt;
  return getElementBytes(type);
}

/// The bytes an op reads per iteration through its operands indexed by
/// every loop (broadcast operands, such as a row's statistic, are read
/// once per row and not counted); std::nullopt if one has no width.
std::optional<int64_t> fullSizeBytes(linalg::LinalgOp op, ValueRange operands,
                                     ArrayRef<AffineMap> maps) {
  int64_t bytes = 0;
  for (auto [operand, map] : llvm::zip(operands, maps)) {
    if (map.getNumResults() != op.getNumLoops() || !map.isPermutation())
      continue;
    std::optional<int64_t> width = elementBytes(operand);
    if (!width)
      return std::nullopt;
    bytes += *width;
  }
  return bytes;
}

/// recompute: whether `producer` (with several users) may be computed in
/// each of them instead of being made once and read by all: an elementwise
/// generic with one result and a short body, whose every user is a linalg
/// op that takes producers (not a contraction, which BLAS must see whole),
/// and which reads no more full-size bytes an element than it writes (a
/// user then reads the producer's inputs instead of its result: no more
/// bytes, and the result is never written). Softmax's exp(x - max), which
/// its row sum and its division both read, is then never stored. Every
/// user must read it element for element (a permutation map).
bool canRecompute(Operation *producer) {
  auto generic = dyn_cast_if_present<linalg::GenericOp>(producer);
  if (!generic || generic->getNumResults() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops() ||
      generic.getBody()->getOperations().size() > kRecomputedOps + 1 ||
      !generic.hasPureTensorSemantics() ||
      // Its init would be one more input to read.
      generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
    return false;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  std::optional<int64_t> read = fullSizeBytes(
      generic, generic.getDpsInputs(),
      ArrayRef<AffineMap>(maps).take_front(generic.getNumDpsInputs()));
  std::optional<int64_t> written = elementBytes(generic->getResult(0));
  if (!read || !written || *read > *written)
    return false;
  // Each user reads it element for element (a broadcast would compute it
  // again for every element of the broadcast dimensions).
  Value result = producer->getResult(0);
  return llvm::all_of(producer->getUsers(), [&](Operation *user) {
    auto consumer = dyn_cast<linalg::GenericOp>(user);
    if (!consumer || !consumer.hasPureTensorSemantics() ||
        (consumer.getNumLoops() != consumer.getNumParallelLoops() &&
         linalg::isaContractionOpInterface(consumer)))
      return false;
    return llvm::all_of(consumer->getOpOperands(), [&](OpOperand &operand) {
      return operand.get() != result ||
             (consumer.isDpsInput(&operand) &&
              consumer.getMatchingIndexingMap(&operand).isPermutation());
    });
  });
}

/// multi-result: fuses a producer with other users into an elementwise
/// consumer; the fused op also yields the producer's results, which its
/// other users then read (upstream's pattern would keep the producer for
/// them and compute it twice).
struct FuseSharedProducer : public OpRewritePattern<linalg::GenericOp> {
  /// Before upstream's pattern (benefit 1), which `recompute` lets fuse a
  /// shared producer by computing it again.
  explicit FuseSharedProducer(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      Operation *producer = operand.get().getDefiningOp();
      if (!producer || producer->hasOneUse() ||
          !linalg::areElementwiseOpsFusable(&operand) ||
          !canShareProducer(&operand))
        continue;
      // A consumer reading it twice is left to upstream's deduplication of
      // its operands first (fusing one of two reads of a producer whose
      // result the fused op also yields frees an op twice).
      if (llvm::count(consumer->getOperands(), operand.get()) > 1)
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      // The consumer's results and the producer's kept ones, all from the
      // fused op (placed where the consumer was).
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

struct DistFuseElementwisePass
    : public dist::impl::DistFuseElementwiseBase<DistFuseElementwisePass> {
  using Base::Base;
  void runOnOperation() override {
    bool recomputeShared = recompute;
    linalg::ControlFusionFn control = [recomputeShared](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
      // A reduction takes producers too (a layernorm's variance sums the
      // squares it computes), but not a contraction: BLAS must still see
      // its two operands.
      return producer && consumer &&
             (producer->hasOneUse() ||
              (recomputeShared && canRecompute(producer))) &&
             (consumer.getNumLoops() == consumer.getNumParallelLoops() ||
              !linalg::isaContractionOpInterface(consumer));
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (multiResult)
      patterns.add<FuseSharedProducer>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation().emitError()
          << "dist-fuse-elementwise: fusion did not reach a fixed point";
      return signalPassFailure();
    }
  }
};
} // namespace
