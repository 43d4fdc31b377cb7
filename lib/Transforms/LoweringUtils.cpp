//===- LoweringUtils.cpp - Helpers for lowering to external calls ---------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

Value dist::buildBufferAddress(OpBuilder &builder, Location loc, Value memref,
                               int64_t elementBytes, Value extraElements) {
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
  auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, memref);
  Value offset = metadata.getOffset();
  if (extraElements)
    offset = arith::AddIOp::create(builder, loc, offset, extraElements);
  Value offsetBytes = arith::MulIOp::create(
      builder, loc, offset,
      arith::ConstantIndexOp::create(builder, loc, elementBytes));
  Value address = arith::AddIOp::create(builder, loc, base, offsetBytes);
  Value address64 = arith::IndexCastOp::create(builder, loc,
                                               builder.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext()),
      address64);
}

LogicalResult dist::declareExternalFunction(OpBuilder &builder,
                                            ModuleOp module,
                                            SymbolTable &symbolTable,
                                            StringRef name, TypeRange args,
                                            TypeRange results) {
  FunctionType type = builder.getFunctionType(args, results);
  if (Operation *existing = symbolTable.lookup(name)) {
    auto fn = dyn_cast<func::FuncOp>(existing);
    if (fn && fn.getFunctionType() == type)
      return success();
    return existing->emitOpError()
           << "uses the name @" << name << ", which the lowering calls as "
           << type << "; rename it";
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(builder, module.getLoc(), name, type);
  fn.setPrivate();
  symbolTable.insert(fn);
  return success();
}
