//===- DistDialect.cpp - dist dialect -------------------------------------===//

#include "dist/Dialect/Dist/IR/DistDialect.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::dist;

#include "dist/Dialect/Dist/IR/DistDialect.cpp.inc"

void DistDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dist/Dialect/Dist/IR/DistOps.cpp.inc"
      >();
}

/// Verifies a `dist.sharding` attribute attached to a function argument or
/// result of type `type`; `what` is e.g. "argument 1".
static LogicalResult verifyBoundarySharding(Operation *op, NamedAttribute attr,
                                            Type type, const Twine &what) {
  if (attr.getName() != DistDialect::getShardingAttrName())
    return op->emitOpError()
           << what << ": unknown dist attribute '" << attr.getName().getValue()
           << "'";
  auto sharding = dyn_cast<ShardingAttr>(attr.getValue());
  if (!sharding)
    return op->emitOpError() << what << ": '" << attr.getName().getValue()
                             << "' must be a #dist.sharding, got "
                             << attr.getValue();
  MeshOp mesh = lookupMesh(op, sharding.getMesh());
  return verifySharding(sharding, type, mesh, [&]() {
    return op->emitOpError() << what << ": ";
  });
}

LogicalResult DistDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  Type type;
  if (auto func = dyn_cast<FunctionOpInterface>(op))
    type = func.getArgumentTypes()[argIndex];
  else
    type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  return verifyBoundarySharding(op, attr, type,
                                "argument " + Twine(argIndex));
}

LogicalResult DistDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitOpError() << "'" << attr.getName().getValue()
                             << "' on a result of an op that is no function";
  return verifyBoundarySharding(op, attr, func.getResultTypes()[resultIndex],
                                "result " + Twine(resultIndex));
}

LogicalResult DistDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getRoleAttrName()) {
    if (!isa<RoleAttr>(attr.getValue()))
      return op->emitOpError() << "'" << getRoleAttrName()
                               << "' must be a #dist.role, got "
                               << attr.getValue();
    return success();
  }
  if (attr.getName() == getShardingAttrName())
    return op->emitOpError()
           << "'" << getShardingAttrName()
           << "' belongs on function arguments and results; use "
              "dist.annotate to pin the sharding of a value";
  return op->emitOpError() << "unknown dist attribute '"
                           << attr.getName().getValue() << "'";
}
