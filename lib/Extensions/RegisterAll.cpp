//===- RegisterAll.cpp - All of dist's external models --------------------===//

#include "dist/Extensions/ShardingRules.h"

void mlir::dist::registerAllDistExtensions(DialectRegistry &registry) {
  registerElementwiseShardingRules(registry);
  registerLinalgShardingRules(registry);
  registerTensorShardingRules(registry);
  registerTosaShardingRules(registry);
  registerDataFlowShardingModels(registry);
}
