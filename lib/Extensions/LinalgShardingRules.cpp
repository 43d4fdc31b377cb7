//===- LinalgShardingRules.cpp - Rules for linalg structured ops ----------===//
//
// One rule for every structured op, derived from its indexing maps: each loop
// is a factor; an operand dim indexed by a plain loop variable is indexed by
// that factor; a reduction loop reduces with the combiner of the op's body.
//
//===----------------------------------------------------------------------===//

#include "dist/Extensions/ShardingRules.h"
#include "dist/Interfaces/ShardingRuleInterface.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/DialectRegistry.h"

#include <functional>

using namespace mlir;
using namespace mlir::dist;

/// The reduction the body of `op` performs into init `initIndex`, if it is
/// one we know.
static std::optional<ReductionKind> getCombiner(linalg::LinalgOp op,
                                                unsigned numInputs,
                                                unsigned initIndex) {
  SmallVector<Operation *, 4> combinerOps;
  ArrayRef<BlockArgument> outputArgs =
      op.getBlock()->getArguments().drop_front(numInputs);
  if (!matchReduction(outputArgs, initIndex, combinerOps) ||
      combinerOps.size() != 1)
    return std::nullopt;
  Operation *combiner = combinerOps.front();
  if (isa<arith::AddFOp, arith::AddIOp>(combiner))
    return ReductionKind::sum;
  if (isa<arith::MulFOp, arith::MulIOp>(combiner))
    return ReductionKind::prod;
  // On i1 the collectives' max is `or` and min `and` (unsigned), sum `xor`
  // and prod `and`; signed, true is -1, so maxsi is `and` and minsi `or`.
  if (combiner->getResult(0).getType().isInteger(1)) {
    if (isa<arith::MaxUIOp, arith::OrIOp, arith::MinSIOp>(combiner))
      return ReductionKind::max;
    if (isa<arith::MinUIOp, arith::AndIOp, arith::MaxSIOp>(combiner))
      return ReductionKind::min;
    if (isa<arith::XOrIOp>(combiner))
      return ReductionKind::sum;
    return std::nullopt;
  }
  // Unsigned max/min are not the (signed) max/min of the collectives.
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(combiner))
    return ReductionKind::max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(combiner))
    return ReductionKind::min;
  return std::nullopt;
}

/// True if `value`, in the body of a linalg op, is a block argument of an
/// input or a value defined outside the body (a captured scalar, a constant).
static bool isInputOrInvariant(Value value, linalg::LinalgOp op,
                               unsigned numInputs) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() == op.getBlock() && arg.getArgNumber() < numInputs;
  Operation *def = value.getDefiningOp();
  return !op->isAncestor(def) || def->hasTrait<OpTrait::ConstantLike>();
}

/// How partial sums flow through the op, from what its body computes (the
/// value yielded, ignoring a sum-combined accumulator): a sum or difference of
/// any number of inputs is Additive; an input, its negation, or a product in which it
/// appears once with invariants or other inputs is Multilinear, and
/// `linearIn` says in which inputs. The op has `numInputs` inputs.
static PartialPolicy getPartialPolicy(linalg::LinalgOp op, unsigned numInputs,
                                      SmallVectorImpl<bool> &linearIn) {
  linearIn.assign(op->getNumOperands(), false);
  if (op->getNumOperands() != numInputs + 1)
    return PartialPolicy::None;
  Operation *yield = op.getBlock()->getTerminator();
  Value yielded = yield->getOperand(0);
  // Strip a sum-combined accumulator: acc + f(inputs).
  if (auto add = yielded.getDefiningOp<arith::AddFOp>()) {
    Value acc = op.getBlock()->getArgument(numInputs);
    if (add.getLhs() == acc)
      yielded = add.getRhs();
    else if (add.getRhs() == acc)
      yielded = add.getLhs();
  }
  auto inputIndex = [&](Value v) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (arg && arg.getOwner() == op.getBlock() && arg.getArgNumber() < numInputs)
      return arg.getArgNumber();
    return std::nullopt;
  };
  if (std::optional<unsigned> i = inputIndex(yielded)) {
    linearIn[*i] = true;
    return PartialPolicy::Multilinear;
  }
  Operation *def = yielded.getDefiningOp();
  if (!def || !op->isAncestor(def))
    return PartialPolicy::None;
  // A sum or difference of inputs, any number of them (a + b - c + d): the
  // sum over ranks of the local sums is the sum of the global inputs.
  std::function<bool(Value)> isSumOfInputs = [&](Value value) {
    if (inputIndex(value))
      return true;
    Operation *term = value.getDefiningOp();
    return term && op->isAncestor(term) &&
           isa<arith::AddFOp, arith::SubFOp>(term) &&
           isSumOfInputs(term->getOperand(0)) &&
           isSumOfInputs(term->getOperand(1));
  };
  if (isa<arith::AddFOp, arith::SubFOp>(def) && isSumOfInputs(yielded))
    return PartialPolicy::Additive;
  // A float conversion of an input, where the op allows rounding partial
  // sums (dist.round_partials): each rank converts its own.
  if (isa<arith::TruncFOp, arith::ExtFOp>(def) &&
      op->hasAttr(DistDialect::getRoundPartialsAttrName())) {
    if (std::optional<unsigned> i = inputIndex(def->getOperand(0))) {
      linearIn[*i] = true;
      return PartialPolicy::Multilinear;
    }
    return PartialPolicy::None;
  }
  if (isa<arith::NegFOp>(def)) {
    if (std::optional<unsigned> i = inputIndex(def->getOperand(0))) {
      linearIn[*i] = true;
      return PartialPolicy::Multilinear;
    }
    return PartialPolicy::None;
  }
  if (isa<arith::MulFOp>(def) &&
      isInputOrInvariant(def->getOperand(0), op, numInputs) &&
      isInputOrInvariant(def->getOperand(1), op, numInputs)) {
    // Linear in an input that appears once: x * y, x * c; not x * x.
    std::optional<unsigned> a = inputIndex(def->getOperand(0)),
                            b = inputIndex(def->getOperand(1));
    if (a && a != b)
      linearIn[*a] = true;
    if (b && a != b)
      linearIn[*b] = true;
    return llvm::is_contained(linearIn, true) ? PartialPolicy::Multilinear
                                              : PartialPolicy::None;
  }
  return PartialPolicy::None;
}

/// True if the body of `op` (one init) yields its combiner applied to an
/// input and the accumulator, nothing else (a linalg.reduce of a max).
static bool combinesInputDirectly(linalg::LinalgOp op, unsigned numInputs) {
  if (op->getNumOperands() != numInputs + 1)
    return false;
  Block *body = op.getBlock();
  Operation *combiner = body->getTerminator()->getOperand(0).getDefiningOp();
  if (!combiner || combiner->getBlock() != body ||
      combiner->getNumOperands() != 2)
    return false;
  auto isArg = [&](Value v, bool input) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == body &&
           (input ? arg.getArgNumber() < numInputs
                  : arg.getArgNumber() == numInputs);
  };
  Value a = combiner->getOperand(0), b = combiner->getOperand(1);
  return (isArg(a, true) && isArg(b, false)) || (isArg(a, false) && isArg(b, true));
}

/// The size of each loop, read off the operands a loop indexes directly
/// (dynamic if none does). Cheaper than LinalgOp::getStaticLoopRanges, which
/// inverts and composes the maps.
static SmallVector<int64_t> getLoopSizes(linalg::LinalgOp op,
                                         ArrayRef<AffineMap> maps) {
  SmallVector<int64_t> sizes(op.getNumLoops(), ShapedType::kDynamic);
  for (auto [operand, map] : llvm::zip(op->getOpOperands(), maps)) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    for (auto [d, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        if (ShapedType::isDynamic(sizes[dim.getPosition()]))
          sizes[dim.getPosition()] = type.getDimSize(d);
  }
  return sizes;
}

/// `d_i + d_k` (either order) with `d_i` a parallel loop of static size and
/// `d_k` a loop of static size: a sliding window over `d_i`. Returns (i, k).
static std::optional<std::pair<unsigned, unsigned>>
matchWindow(AffineExpr expr, ArrayRef<utils::IteratorType> iterators,
            ArrayRef<int64_t> loopSizes) {
  auto sum = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!sum || sum.getKind() != AffineExprKind::Add)
    return std::nullopt;
  auto lhs = dyn_cast<AffineDimExpr>(sum.getLHS());
  auto rhs = dyn_cast<AffineDimExpr>(sum.getRHS());
  if (!lhs || !rhs)
    return std::nullopt;
  for (auto [i, k] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
    unsigned loop = i.getPosition(), window = k.getPosition();
    if (loop != window && iterators[loop] == utils::IteratorType::parallel &&
        iterators[window] == utils::IteratorType::reduction &&
        !ShapedType::isDynamic(loopSizes[loop]) &&
        !ShapedType::isDynamic(loopSizes[window]))
      return std::pair(loop, window);
  }
  return std::nullopt;
}

namespace {
template <typename OpTy>
struct LinalgShardingRule
    : public ShardingRuleOpInterface::ExternalModel<LinalgShardingRule<OpTy>,
                                                    OpTy> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (!linalgOp.hasPureTensorSemantics())
      return failure();
    // linalg.fill is the most common op and builds its maps from scratch on
    // every query: its rule is plain (elementwise on its `outs`).
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      ShardingRule rule = ShardingRule::getElementwise(op);
      rule.operandDims[0].clear(); // the scalar
      rule.operandIsInitOnly[1] = true;
      rule.partialPolicy = PartialPolicy::Multilinear;
      return rule;
    }
    ShardingRule rule;
    // Inputs, then inits; the body's arguments match the operands. (Asked
    // once: each DPS query of a named op rebuilds its segment sizes.)
    unsigned numInits = linalgOp.getNumDpsInits();
    unsigned numInputs = op->getNumOperands() - numInits;
    // Named ops build their maps on every query: get them once.
    SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
    SmallVector<int64_t> loopSizes = getLoopSizes(linalgOp, maps);
    SmallVector<utils::IteratorType> iterators =
        linalgOp.getIteratorTypesArray();

    // A reduction loop is splittable if every init reduces with the same
    // known combiner.
    std::optional<ReductionKind> combiner;
    bool combinerKnown = true;
    bool hasReduction = linalgOp.getNumReductionLoops() != 0;
    for (unsigned i = 0, e = hasReduction ? numInits : 0; i < e; ++i) {
      std::optional<ReductionKind> kind = getCombiner(linalgOp, numInputs, i);
      if (!kind || (combiner && *combiner != *kind))
        combinerKnown = false;
      combiner = kind;
    }
    for (auto [size, iterator] : llvm::zip(loopSizes, iterators)) {
      if (iterator == utils::IteratorType::parallel)
        rule.addFactor(size, FactorKind::Parallel);
      else if (combinerKnown && combiner)
        rule.addFactor(size, FactorKind::Reduction, *combiner);
      else
        rule.addFactor(size, FactorKind::Unsplittable);
    }

    // A body that reads a loop's index (linalg.index) computes with global
    // indices; the partitioner offsets the index of a split loop by the
    // rank's block, which needs the loop's static size.
    op->walk([&](linalg::IndexOp index) {
      if (index.getDim() < rule.factors.size() &&
          ShapedType::isDynamic(rule.factors[index.getDim()].size))
        rule.factors[index.getDim()].kind = FactorKind::Unsplittable;
    });

    // Operand dims from indexing maps. A dim indexed by `i + k` (a
    // convolution's input: `i` a parallel loop, `k` a window loop of static
    // size K) is indexed by `i` with an overlap of K - 1 rows, so splitting
    // `i` needs each block plus the next K - 1 rows (a halo exchange) and
    // `k` stays whole; a loop in any other compound expression cannot be
    // split locally.
    struct WindowDim {
      unsigned operand, dim;
      int64_t factor, overlap;
    };
    SmallVector<WindowDim> windowDims;
    SmallVector<unsigned> windowLoops;
    auto dimsOf = [&](AffineMap map, unsigned operand,
                      RankedTensorType type) {
      SmallVector<int64_t> dims;
      for (auto [d, expr] : llvm::enumerate(map.getResults())) {
        if (std::optional<std::pair<unsigned, unsigned>> window =
                matchWindow(expr, iterators, loopSizes)) {
          auto [loop, windowLoop] = *window;
          int64_t overlap = loopSizes[windowLoop] - 1;
          if (!llvm::is_contained(dims, (int64_t)loop) &&
              type.getDimSize(d) == loopSizes[loop] + overlap) {
            windowDims.push_back({operand, (unsigned)d, (int64_t)loop, overlap});
            windowLoops.push_back(windowLoop);
            dims.push_back(loop);
            continue;
          }
        }
        if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
          // A loop indexing two dims of one operand (a diagonal) would split
          // both by the same axes: it must stay whole.
          if (llvm::is_contained(dims, (int64_t)dim.getPosition()))
            rule.factors[dim.getPosition()].kind = FactorKind::Unsplittable;
          dims.push_back(dim.getPosition());
          continue;
        }
        dims.push_back(ShardingRule::kNoFactor);
        expr.walk([&](AffineExpr sub) {
          if (auto dim = dyn_cast<AffineDimExpr>(sub))
            rule.factors[dim.getPosition()].kind = FactorKind::Unsplittable;
        });
      }
      return dims;
    };
    Block *body = linalgOp.getBlock();
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      bool isTensor = isa<RankedTensorType>(operand.get().getType());
      rule.operandDims.push_back(
          isTensor ? dimsOf(maps[i], i,
                            cast<RankedTensorType>(operand.get().getType()))
                   : SmallVector<int64_t>());
      bool isInit = i >= numInputs;
      bool isRead = !body->getArgument(i).use_empty();
      rule.operandIsInitOnly.push_back(isInit && !isRead);
      rule.operandIsAccumulator.push_back(isInit && isRead);
    }
    rule.partialPolicy = getPartialPolicy(linalgOp, numInputs, rule.operandIsLinear);
    for (unsigned i = numInputs, e = op->getNumOperands(); i < e; ++i)
      rule.resultDims.push_back(rule.operandDims[i]);
    for (unsigned loop : windowLoops)
      rule.factors[loop].kind = FactorKind::Unsplittable;
    for (const WindowDim &window : windowDims) {
      // A loop that also indexes a plain dim of the same operand would split
      // it without the overlap.
      if (llvm::count(rule.operandDims[window.operand], window.factor) > 1)
        rule.factors[window.factor].kind = FactorKind::Unsplittable;
      rule.setOperandHalo(window.operand, window.dim,
                          {0, 0, window.overlap});
    }
    // A partial input is reduced before a window reads it (its halo rows
    // are exchanged as plain values).
    if (!windowDims.empty())
      rule.partialPolicy = PartialPolicy::None;
    // Padded reduction loops: a generic's body skips padded iterations (its
    // body is rewritten); a named op's body cannot change, so its operands
    // are masked with the identity, right when it combines an input or a
    // product of inputs directly (matmul, linalg.reduce with a combiner).
    if (isa<linalg::GenericOp>(op))
      rule.paddedReduction = PaddedReduction::ByLocalForm;
    else if (rule.partialPolicy == PartialPolicy::Multilinear ||
             combinesInputDirectly(linalgOp, numInputs))
      rule.paddedReduction = PaddedReduction::MaskOperands;
    return rule;
  }
  /// In place, like the default; then a body that reads the index of a
  /// split loop (linalg.index) gets the global index back: local index + the
  /// rank's block offset along the loop.
  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &builder,
                                      IRMapping &mapping, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &splits) const {
    SmallVector<linalg::IndexOp> indices;
    op->walk([&](linalg::IndexOp index) { indices.push_back(index); });
    Operation *local = rewriteInPlace(op, operands, resultTypes);
    for (linalg::IndexOp index : indices) {
      int64_t dim = index.getDim();
      // The rule's factors are the loops, in order.
      int64_t loopSize = splits.factors[dim].size;
      if (!splits.isSplit(dim) || ShapedType::isDynamic(loopSize))
        continue;
      ArrayRef<StringAttr> axes = splits.axes[dim];
      // The offset is computed where the local form goes (the op moves there
      // from a loop body being rebuilt).
      Location loc = index.getLoc();
      Value offset =
          buildBlockOffset(builder, loc, splits.mesh, axes, splits.blockSize(dim));
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointAfter(index);
      Value global = arith::AddIOp::create(builder, loc, index, offset);
      Value replacement = global;
      // A padded row's index lies past the end: clamped, so that a body
      // reading a captured tensor there stays in bounds (the row is padding).
      if (splits.isPadded(dim))
        replacement = arith::MinSIOp::create(
            builder, loc, global,
            arith::ConstantIndexOp::create(builder, loc, loopSize - 1));
      index.getResult().replaceAllUsesExcept(replacement, global.getDefiningOp());
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(local))
      skipPaddedReductionIterations(generic, builder, splits);
    return local;
  }

  /// A generic whose reduction loops have padded blocks yields its
  /// accumulators unchanged on padded iterations.
  static void skipPaddedReductionIterations(linalg::GenericOp op,
                                            OpBuilder &builder,
                                            const FactorSplits &splits) {
    SmallVector<std::pair<unsigned, Value>> rowsInside;
    for (auto [loop, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::reduction && splits.isPadded(loop))
        rowsInside.push_back(
            {(unsigned)loop,
             buildRowsInside(builder, op.getLoc(), splits.mesh,
                             splits.axes[loop], splits.blockSize(loop),
                             splits.factors[loop].size)});
    if (rowsInside.empty())
      return;
    Block *body = op.getBlock();
    Operation *yield = body->getTerminator();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(yield);
    Location loc = yield->getLoc();
    Value inside;
    for (auto [loop, rows] : rowsInside) {
      Value index = linalg::IndexOp::create(builder, loc, loop);
      Value here = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                         index, rows);
      inside = inside ? arith::AndIOp::create(builder, loc, inside, here) : here;
    }
    unsigned numInputs = op.getNumDpsInputs();
    for (OpOperand &yielded : yield->getOpOperands()) {
      Value acc = body->getArgument(numInputs + yielded.getOperandNumber());
      yielded.set(
          arith::SelectOp::create(builder, loc, inside, yielded.get(), acc));
    }
  }
};

/// linalg.softmax: elementwise, except that the softmax dim must be whole
/// (its max and sum are over the entire dim).
struct SoftmaxShardingRule
    : public ShardingRuleOpInterface::ExternalModel<SoftmaxShardingRule,
                                                    linalg::SoftmaxOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto softmax = cast<linalg::SoftmaxOp>(op);
    ShardingRule rule = ShardingRule::getElementwise(op);
    rule.factors[softmax.getDimension()].kind = FactorKind::Unsplittable;
    rule.operandIsInitOnly[1] = true;
    return rule;
  }
};

template <typename... OpTys>
void attachToAll(MLIRContext *context) {
  (OpTys::template attachInterface<LinalgShardingRule<OpTys>>(*context), ...);
}
} // namespace

void dist::registerLinalgShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachToAll<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(context);
    linalg::SoftmaxOp::attachInterface<SoftmaxShardingRule>(*context);
  });
}
