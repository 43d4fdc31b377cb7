//===- StepState.cpp - The state a step function updates ------------------===//

#include "dist/Dialect/Dist/IR/StepState.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"

using namespace mlir;
using namespace mlir::dist;

std::optional<unsigned> dist::getUpdatedArgument(FunctionOpInterface fn,
                                                 unsigned result) {
  unsigned numArgs = fn.getNumArguments();
  if (auto index = fn.getResultAttrOfType<IntegerAttr>(
          result, DistDialect::getUpdatesAttrName())) {
    int64_t arg = index.getValue().getSExtValue();
    if (arg >= 0 && arg < (int64_t)numArgs)
      return arg;
    return std::nullopt;
  }
  auto name =
      fn.getResultAttrOfType<StringAttr>(result, DistDialect::getNameAttrName());
  if (!name)
    return std::nullopt;
  for (unsigned arg = 0; arg < numArgs; ++arg)
    if (fn.getArgAttrOfType<StringAttr>(arg, DistDialect::getNameAttrName()) ==
        name)
      return arg;
  return std::nullopt;
}
