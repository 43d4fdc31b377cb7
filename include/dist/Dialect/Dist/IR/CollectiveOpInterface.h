//===- CollectiveOpInterface.h - What passes ask of a collective -*- C++ -*-===//

#ifndef DIST_DIALECT_DIST_IR_COLLECTIVEOPINTERFACE_H
#define DIST_DIALECT_DIST_IR_COLLECTIVEOPINTERFACE_H

#include "dist/Dialect/Dist/IR/DistAttrs.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>

namespace mlir::dist::detail {
/// The group size of a collective's (mesh, axes); the mesh must exist.
int64_t getCollectiveGroupSize(Operation *op,
                               SymbolTableCollection &symbolTables);
/// `bytes * numerator / denominator` computed in 128 bits; std::nullopt if
/// the result does not fit 64 bits. A denominator <= 0 gives 0.
std::optional<int64_t> scaleBytes(int64_t bytes, int64_t numerator,
                                  int64_t denominator);
/// The checks every async collective shares: its token waited for exactly
/// once, later in its block, with nothing else reading the results before.
LogicalResult verifyCollectiveOp(Operation *op);
} // namespace mlir::dist::detail

#include "dist/Dialect/Dist/IR/CollectiveOpInterface.h.inc"

#endif // DIST_DIALECT_DIST_IR_COLLECTIVEOPINTERFACE_H
