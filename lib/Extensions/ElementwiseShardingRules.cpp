//===- ElementwiseShardingRules.cpp - Rules for arith and math ops --------===//
//
// arith and math ops are elementwise on tensors: one parallel factor per dim,
// shared by every operand and result.
//
//===----------------------------------------------------------------------===//

#include "dist/Extensions/ShardingRules.h"
#include "dist/Interfaces/ShardingRuleInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dist;

namespace {
template <typename OpTy>
struct ElementwiseShardingRule
    : public ShardingRuleOpInterface::ExternalModel<
          ElementwiseShardingRule<OpTy>, OpTy> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    // Scalars have no dims to split; a mix of tensor ranks is no elementwise
    // op we know.
    if (!OpTrait::hasElementwiseMappableTraits(op) ||
        !llvm::any_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>))
      return failure();
    ShardingRule rule = ShardingRule::getElementwise(op);
    // Integer overflow flags would turn a partial summand's overflow (which
    // the total need not have) into poison: such ops reduce first.
    auto overflow = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op);
    bool hasOverflowFlags =
        overflow && overflow.getOverflowAttr().getValue() !=
                        arith::IntegerOverflowFlags::none;
    if (hasOverflowFlags)
      return rule;
    if (isa<arith::AddFOp, arith::AddIOp, arith::SubFOp, arith::SubIOp>(op))
      rule.partialPolicy = PartialPolicy::Additive;
    else if (isa<arith::MulFOp, arith::MulIOp>(op) &&
             op->getOperand(0) != op->getOperand(1))
      rule.partialPolicy = PartialPolicy::Multilinear; // not x * x
    else if (isa<arith::NegFOp>(op))
      rule.partialPolicy = PartialPolicy::Multilinear;
    return rule;
  }
};

template <typename... OpTys>
void attachToAll(MLIRContext *context) {
  (OpTys::template attachInterface<ElementwiseShardingRule<OpTys>>(*context),
   ...);
}
} // namespace

void dist::registerElementwiseShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attachToAll<
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
        >(context);
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    attachToAll<
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
        >(context);
  });
}
