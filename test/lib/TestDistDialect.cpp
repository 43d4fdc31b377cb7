//===- TestDistDialect.cpp - Ops for testing dist's error paths -----------===//
//
// The `test_dist` dialect exists only for tests (dist-opt registers it, as
// mlir-opt registers upstream's test dialect). Its ops carry sharding rules
// that valid upstream ops never produce, so the passes' checks of a rule
// against its op can be exercised:
//   test_dist.rule_with_missing_dim: the rule gives its result one dim too
//   few.
//   test_dist.rule_with_bad_factor: the rule indexes a dim with a factor whose
//   size does not divide the dim.
//
//===----------------------------------------------------------------------===//

#include "TestDistDialect.h"
#include "dist/Interfaces/ShardingRuleInterface.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

/// One tensor operand, one tensor result of the same shape.
template <typename ConcreteOp>
class TestRuleOp
    : public Op<ConcreteOp, OpTrait::OneOperand, OpTrait::OneResult,
                OpTrait::ZeroRegions, OpTrait::ZeroSuccessors,
                ShardingRuleOpInterface::Trait> {
public:
  using Op<ConcreteOp, OpTrait::OneOperand, OpTrait::OneResult,
           OpTrait::ZeroRegions, OpTrait::ZeroSuccessors,
           ShardingRuleOpInterface::Trait>::Op;
  static ArrayRef<StringRef> getAttributeNames() { return {}; }

  /// The elementwise rule, which each op then breaks in its own way.
  ShardingRule getElementwiseRule() {
    return ShardingRule::getElementwise(this->getOperation());
  }
};

class RuleWithMissingDimOp : public TestRuleOp<RuleWithMissingDimOp> {
public:
  using TestRuleOp::TestRuleOp;
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RuleWithMissingDimOp)
  static StringRef getOperationName() {
    return "test_dist.rule_with_missing_dim";
  }
  FailureOr<ShardingRule> getShardingRule() {
    ShardingRule rule = getElementwiseRule();
    rule.resultDims.front().pop_back();
    return rule;
  }
};

class RuleWithBadFactorOp : public TestRuleOp<RuleWithBadFactorOp> {
public:
  using TestRuleOp::TestRuleOp;
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RuleWithBadFactorOp)
  static StringRef getOperationName() {
    return "test_dist.rule_with_bad_factor";
  }
  FailureOr<ShardingRule> getShardingRule() {
    ShardingRule rule = getElementwiseRule();
    rule.factors.front().size = 3;
    return rule;
  }
};

class TestDistDialect : public Dialect {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDistDialect)
  explicit TestDistDialect(MLIRContext *context)
      : Dialect(getDialectNamespace(), context, TypeID::get<TestDistDialect>()) {
    addOperations<RuleWithMissingDimOp, RuleWithBadFactorOp>();
  }
  static StringRef getDialectNamespace() { return "test_dist"; }
};

} // namespace

void mlir::dist::test::registerTestDistDialect(DialectRegistry &registry) {
  registry.insert<TestDistDialect>();
}
