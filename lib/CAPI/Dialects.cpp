//===- Dialects.cpp - C API for the dist dialect --------------------------===//

#include "dist-c/Dialects.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/InitAllDist.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Dist, dist, mlir::dist::DistDialect)

void distRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::dist::registerAllDistDialects(*unwrap(registry));
}

void distRegisterPasses(void) { mlir::dist::registerAllDistPasses(); }

bool distAttributeIsASharding(MlirAttribute attr) {
  return llvm::isa<mlir::dist::ShardingAttr>(unwrap(attr));
}
