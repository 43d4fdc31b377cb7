//===- LoweringUtils.h - Helpers for lowering to external calls -*- C++ -*-===//

#ifndef DIST_LIB_TRANSFORMS_LOWERINGUTILS_H
#define DIST_LIB_TRANSFORMS_LOWERINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::dist {

/// The address of the first element of `memref` (data from the aligned
/// pointer plus the view's offset), plus `extraElements` elements when
/// given (an index), as an `!llvm.ptr`.
Value buildBufferAddress(OpBuilder &builder, Location loc, Value memref,
                         int64_t elementBytes, Value extraElements = {});

/// Declares `name` as a private external function of `module` with the given
/// signature, unless a function of that name and signature exists. Another
/// symbol of that name is reported (the generated call could not use it).
LogicalResult declareExternalFunction(OpBuilder &builder, ModuleOp module,
                                      SymbolTable &symbolTable, StringRef name,
                                      TypeRange args, TypeRange results);

} // namespace mlir::dist

#endif // DIST_LIB_TRANSFORMS_LOWERINGUTILS_H
