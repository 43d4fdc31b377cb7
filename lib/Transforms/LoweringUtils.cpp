//===- LoweringUtils.cpp - Helpers for lowering to external calls ---------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

Value dist::buildBufferAddress(OpBuilder &builder, Location loc, Value memref,
                               int64_t elementBytes) {
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
  auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, memref);
  Value offsetBytes = arith::MulIOp::create(
      builder, loc, metadata.getOffset(),
      arith::ConstantIndexOp::create(builder, loc, elementBytes));
  Value address = arith::AddIOp::create(builder, loc, base, offsetBytes);
  Value address64 = arith::IndexCastOp::create(builder, loc,
                                               builder.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext()),
      address64);
}

void dist::declareExternalFunction(OpBuilder &builder, ModuleOp module,
                                   SymbolTable &symbolTable, StringRef name,
                                   TypeRange args, TypeRange results) {
  if (symbolTable.lookup(name))
    return;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(builder, module.getLoc(), name,
                                 builder.getFunctionType(args, results));
  fn.setPrivate();
  symbolTable.insert(fn);
}
