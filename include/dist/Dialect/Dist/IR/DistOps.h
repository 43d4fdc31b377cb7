//===- DistOps.h - dist dialect operations ----------------------*- C++ -*-===//

#ifndef DIST_DIALECT_DIST_IR_DISTOPS_H
#define DIST_DIALECT_DIST_IR_DISTOPS_H

#include "dist/Dialect/Dist/IR/CollectiveOpInterface.h"
#include "dist/Dialect/Dist/IR/DistAttrs.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"
#include "dist/Dialect/Dist/IR/DistTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dist/Dialect/Dist/IR/DistOps.h.inc"

#endif // DIST_DIALECT_DIST_IR_DISTOPS_H
