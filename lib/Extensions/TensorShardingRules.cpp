//===- TensorShardingRules.cpp - Rules for tensor dialect ops -------------===//

#include "dist/Extensions/ShardingRules.h"
#include "dist/Interfaces/ShardingRuleInterface.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dist;

namespace {
/// tensor.empty: one parallel factor per result dim; its dynamic sizes are
/// index operands with no dims.
struct EmptyShardingRule
    : public ShardingRuleOpInterface::ExternalModel<EmptyShardingRule,
                                                    tensor::EmptyOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return ShardingRule::getElementwise(op);
  }
};
} // namespace

void dist::registerTensorShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::EmptyOp::attachInterface<EmptyShardingRule>(*context);
  });
}
