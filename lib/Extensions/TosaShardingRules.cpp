//===- TosaShardingRules.cpp - Rules for TOSA ops -------------------------===//
//
// TOSA ops on tensors: elementwise ops with TOSA's broadcasting (a dim of size
// 1 against a larger one is broadcast, so it has no factor), tosa.matmul
// (batched, with a sum factor over the shared dim), the reductions (which
// keep the reduced dim with size 1), tosa.transpose and tosa.reshape (when it
// only merges or splits dims). Every other TOSA op has no rule: it computes
// replicated values.
//
//===----------------------------------------------------------------------===//

#include "dist/Extensions/ShardingRules.h"
#include "dist/Interfaces/ShardingRuleInterface.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dist;

/// The rule of an op whose one result is computed elementwise from operands
/// of the result's rank (a dim of size 1 where the result's is larger is
/// broadcast: no factor) or of one element (zero points, shifts).
static FailureOr<ShardingRule> getBroadcastingElementwiseRule(Operation *op) {
  if (op->getNumResults() != 1)
    return failure();
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!result || !result.hasStaticShape())
    return failure();
  ShardingRule rule = ShardingRule::getEmpty(op);
  for (int64_t size : result.getShape())
    rule.addFactor(size, FactorKind::Parallel);
  rule.resultDims[0] = llvm::to_vector(llvm::seq<int64_t>(0, result.getRank()));
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type)
      continue;
    if (!type.hasStaticShape())
      return failure();
    if (type.getRank() != result.getRank()) {
      if (type.getNumElements() != 1)
        return failure();
      rule.operandDims[i].assign(type.getRank(), ShardingRule::kNoFactor);
      continue;
    }
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      if (size == result.getDimSize(d))
        rule.operandDims[i].push_back(d);
      else if (size == 1)
        rule.operandDims[i].push_back(ShardingRule::kNoFactor);
      else
        return failure();
    }
  }
  return rule;
}

/// True if `value` is a constant whose elements are all zero (a zero point).
static bool isZeroConstant(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  if (isa<FloatType>(attr.getElementType()))
    return llvm::all_of(attr.getValues<APFloat>(),
                        [](const APFloat &v) { return v.isZero(); });
  if (isa<IntegerType>(attr.getElementType()))
    return llvm::all_of(attr.getValues<APInt>(),
                        [](const APInt &v) { return v.isZero(); });
  return false;
}

/// Marks the operands at `linear` as those the result is linear in.
static void setLinearIn(ShardingRule &rule, Operation *op,
                        ArrayRef<unsigned> linear) {
  rule.partialPolicy = PartialPolicy::Multilinear;
  rule.operandIsLinear.assign(op->getNumOperands(), false);
  for (unsigned i : linear)
    rule.operandIsLinear[i] = true;
}

namespace {
/// Elementwise TOSA ops (TosaElementwiseOperator, tosa.mul, tosa.cast).
template <typename OpTy>
struct TosaElementwiseShardingRule
    : public ShardingRuleOpInterface::ExternalModel<
          TosaElementwiseShardingRule<OpTy>, OpTy> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    FailureOr<ShardingRule> rule = getBroadcastingElementwiseRule(op);
    if (failed(rule))
      return failure();
    // Sums pass partial sums through; a product and a negation are linear in
    // each input (a float negation's zero points are zero; an integer
    // product's shift would round each summand on its own).
    if (isa<tosa::AddOp, tosa::SubOp>(op)) {
      rule->partialPolicy = PartialPolicy::Additive;
    } else if (auto mul = dyn_cast<tosa::MulOp>(op)) {
      if (mul.getInput1() != mul.getInput2() && isZeroConstant(mul.getShift()))
        setLinearIn(*rule, op, {0, 1});
    } else if (auto negate = dyn_cast<tosa::NegateOp>(op)) {
      if (isZeroConstant(negate.getInput1Zp()) &&
          isZeroConstant(negate.getOutputZp()))
        setLinearIn(*rule, op, {0});
    }
    return rule;
  }
};

/// tosa.matmul: [n, h, c] x [n, c, w] -> [n, h, w], c a sum factor.
struct TosaMatMulShardingRule
    : public ShardingRuleOpInterface::ExternalModel<TosaMatMulShardingRule,
                                                    tosa::MatMulOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto matmul = cast<tosa::MatMulOp>(op);
    auto a = cast<RankedTensorType>(matmul.getA().getType());
    auto b = cast<RankedTensorType>(matmul.getB().getType());
    if (!a.hasStaticShape() || !b.hasStaticShape())
      return failure();
    ShardingRule rule = ShardingRule::getEmpty(op);
    int64_t n = rule.addFactor(a.getDimSize(0), FactorKind::Parallel);
    int64_t h = rule.addFactor(a.getDimSize(1), FactorKind::Parallel);
    int64_t c = rule.addFactor(a.getDimSize(2), FactorKind::Reduction);
    int64_t w = rule.addFactor(b.getDimSize(2), FactorKind::Parallel);
    rule.operandDims[0] = {n, h, c};
    rule.operandDims[1] = {n, c, w};
    rule.operandDims[2].assign(
        cast<RankedTensorType>(matmul.getAZp().getType()).getRank(),
        ShardingRule::kNoFactor);
    rule.operandDims[3].assign(
        cast<RankedTensorType>(matmul.getBZp().getType()).getRank(),
        ShardingRule::kNoFactor);
    rule.resultDims[0] = {n, h, w};
    // (a - a_zp)(b - b_zp) is linear in a and b only without zero points.
    if (isZeroConstant(matmul.getAZp()) && isZeroConstant(matmul.getBZp()))
      setLinearIn(rule, op, {0, 1});
    return rule;
  }
};

/// The reductions keep the reduced dim (size 1, no factor); the input's dim
/// there is a reduction factor with the op's combiner, or whole when the
/// combiner has no collective (reduce_all / reduce_any on i1).
template <typename OpTy>
struct TosaReduceShardingRule
    : public ShardingRuleOpInterface::ExternalModel<TosaReduceShardingRule<OpTy>,
                                                    OpTy> {
  static std::optional<ReductionKind> getCombiner() {
    if constexpr (std::is_same_v<OpTy, tosa::ReduceSumOp>)
      return ReductionKind::sum;
    if constexpr (std::is_same_v<OpTy, tosa::ReduceMaxOp>)
      return ReductionKind::max;
    if constexpr (std::is_same_v<OpTy, tosa::ReduceMinOp>)
      return ReductionKind::min;
    if constexpr (std::is_same_v<OpTy, tosa::ReduceProductOp>)
      return ReductionKind::prod;
    return std::nullopt;
  }

  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto reduce = cast<OpTy>(op);
    auto input = dyn_cast<RankedTensorType>(reduce.getInput().getType());
    if (!input || !input.hasStaticShape())
      return failure();
    int64_t axis = reduce.getAxis();
    ShardingRule rule = ShardingRule::getEmpty(op);
    for (auto [d, size] : llvm::enumerate(input.getShape())) {
      if ((int64_t)d != axis) {
        int64_t factor = rule.addFactor(size, FactorKind::Parallel);
        rule.operandDims[0].push_back(factor);
        rule.resultDims[0].push_back(factor);
        continue;
      }
      std::optional<ReductionKind> combiner = getCombiner();
      int64_t factor =
          combiner ? rule.addFactor(size, FactorKind::Reduction, *combiner)
                   : rule.addFactor(size, FactorKind::Unsplittable);
      rule.operandDims[0].push_back(factor);
      rule.resultDims[0].push_back(ShardingRule::kNoFactor);
    }
    if (getCombiner() == ReductionKind::sum)
      setLinearIn(rule, op, {0});
    return rule;
  }
};

/// tosa.transpose: result dim j is input dim perms[j].
struct TosaTransposeShardingRule
    : public ShardingRuleOpInterface::ExternalModel<TosaTransposeShardingRule,
                                                    tosa::TransposeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto transpose = cast<tosa::TransposeOp>(op);
    auto input = dyn_cast<RankedTensorType>(transpose.getInput1().getType());
    ArrayRef<int32_t> perms = transpose.getPerms();
    if (!input || !input.hasStaticShape() ||
        (int64_t)perms.size() != input.getRank())
      return failure();
    ShardingRule rule = ShardingRule::getEmpty(op);
    for (int64_t size : input.getShape())
      rule.operandDims[0].push_back(rule.addFactor(size, FactorKind::Parallel));
    for (int32_t p : perms)
      rule.resultDims[0].push_back(p);
    setLinearIn(rule, op, {0});
    return rule;
  }
};

/// tosa.reshape that merges or splits dims (as tensor.collapse_shape /
/// tensor.expand_shape); other reshapes have no rule.
struct TosaReshapeShardingRule
    : public ShardingRuleOpInterface::ExternalModel<TosaReshapeShardingRule,
                                                    tosa::ReshapeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto reshape = cast<tosa::ReshapeOp>(op);
    auto source = dyn_cast<RankedTensorType>(reshape.getInput1().getType());
    auto result = dyn_cast<RankedTensorType>(reshape.getType());
    if (!source || !result || !source.hasStaticShape() ||
        !result.hasStaticShape())
      return failure();
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForReshape(source, result);
    if (!groups)
      return failure();
    bool sourceIsMerged = source.getRank() < result.getRank();
    ShardingRule rule = ShardingRule::getReshape(
        op, sourceIsMerged ? result : source, *groups, sourceIsMerged);
    // The shape operand is a !tosa.shape, not a tensor: no dims.
    return rule;
  }

  /// The target shape is an operand: give the local op the local shape.
  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &builder,
                                      IRMapping &, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &) const {
    auto type = cast<RankedTensorType>(resultTypes[0]);
    ImplicitLocOpBuilder b(op->getLoc(), builder);
    Value shape = tosa::ConstShapeOp::create(
        b, tosa::shapeType::get(b.getContext(), type.getRank()),
        b.getIndexTensorAttr(type.getShape()));
    return tosa::ReshapeOp::create(b, type, operands[0], shape).getOperation();
  }
};

template <typename... OpTys>
void attachElementwise(MLIRContext *context) {
  (OpTys::template attachInterface<TosaElementwiseShardingRule<OpTys>>(
       *context),
   ...);
}

template <typename... OpTys>
void attachReductions(MLIRContext *context) {
  (OpTys::template attachInterface<TosaReduceShardingRule<OpTys>>(*context),
   ...);
}

/// Attaches the elementwise rule to every op of the list that TOSA marks
/// elementwise.
template <typename... OpTys>
void attachToElementwiseOps(MLIRContext *context) {
  (
      [&] {
        if constexpr (OpTys::template hasTrait<
                          OpTrait::tosa::TosaElementwiseOperator>())
          OpTys::template attachInterface<TosaElementwiseShardingRule<OpTys>>(
              *context);
      }(),
      ...);
}
} // namespace

void dist::registerTosaShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tosa::TosaDialect *) {
    attachToElementwiseOps<
#define GET_OP_LIST
#include "mlir/Dialect/Tosa/IR/TosaOps.cpp.inc"
        >(context);
    // Elementwise without the trait: a product (with a shift operand) and a
    // conversion.
    attachElementwise<tosa::MulOp, tosa::CastOp>(context);
    attachReductions<tosa::ReduceSumOp, tosa::ReduceMaxOp, tosa::ReduceMinOp,
                     tosa::ReduceProductOp, tosa::ReduceAllOp,
                     tosa::ReduceAnyOp>(context);
    tosa::MatMulOp::attachInterface<TosaMatMulShardingRule>(*context);
    tosa::TransposeOp::attachInterface<TosaTransposeShardingRule>(*context);
    tosa::ReshapeOp::attachInterface<TosaReshapeShardingRule>(*context);
  });
}
