//===- DistTypes.h - dist dialect types -------------------------*- C++ -*-===//

#ifndef DIST_DIALECT_DIST_IR_DISTTYPES_H
#define DIST_DIALECT_DIST_IR_DISTTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "dist/Dialect/Dist/IR/DistTypes.h.inc"

#endif // DIST_DIALECT_DIST_IR_DISTTYPES_H
