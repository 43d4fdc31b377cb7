//===- DistAttrs.h - dist dialect attributes --------------------*- C++ -*-===//

#ifndef DIST_DIALECT_DIST_IR_DISTATTRS_H
#define DIST_DIALECT_DIST_IR_DISTATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dist/Support/MeshMath.h"

#include "dist/Dialect/Dist/IR/DistEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dist/Dialect/Dist/IR/DistAttrs.h.inc"

#endif // DIST_DIALECT_DIST_IR_DISTATTRS_H
