//===- InitAllDist.cpp - Register dist's dialects and passes --------------===//

#include "dist/InitAllDist.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"
#include "dist/Dialect/Dist/Transforms/BufferizableOpInterfaceImpl.h"
#include "dist/Extensions/ShardingRules.h"
#include "dist/Transforms/Passes.h"
#include "dist/Transforms/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::dist::registerAllDistDialects(DialectRegistry &registry) {
  registry.insert<DistDialect>();
  registerAllDistExtensions(registry);
  registerBufferizableOpInterfaceExternalModels(registry);
}

void mlir::dist::registerAllDistPasses() {
  registerDistPasses();
  registerDistPipelines();
}
