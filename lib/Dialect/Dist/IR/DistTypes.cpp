//===- DistTypes.cpp - dist dialect types ---------------------------------===//

#include "dist/Dialect/Dist/IR/DistTypes.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dist;

#define GET_TYPEDEF_CLASSES
#include "dist/Dialect/Dist/IR/DistTypes.cpp.inc"

void DistDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dist/Dialect/Dist/IR/DistTypes.cpp.inc"
      >();
}
