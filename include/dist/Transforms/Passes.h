//===- Passes.h - dist passes -----------------------------------*- C++ -*-===//

#ifndef DIST_TRANSFORMS_PASSES_H
#define DIST_TRANSFORMS_PASSES_H

#include "dist/Dialect/Dist/IR/DistDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dist {

#define GEN_PASS_DECL
#include "dist/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dist/Transforms/Passes.h.inc"

} // namespace mlir::dist

#endif // DIST_TRANSFORMS_PASSES_H
