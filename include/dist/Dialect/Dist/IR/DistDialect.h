//===- DistDialect.h - dist dialect -----------------------------*- C++ -*-===//

#ifndef DIST_DIALECT_DIST_IR_DISTDIALECT_H
#define DIST_DIALECT_DIST_IR_DISTDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dist/Dialect/Dist/IR/DistDialect.h.inc"

#endif // DIST_DIALECT_DIST_IR_DISTDIALECT_H
