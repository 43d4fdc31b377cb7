//===- DistGpuStreams.cpp - A GPU step's device work on one stream --------===//
//
// A step's kernels, copies, allocations, cuBLAS products and collectives are
// queued on one stream per call, in program order, so the host does not wait
// between them: collectives and products take the stream (their declarations
// mark the argument), and the host synchronizes only where its own code may
// touch memory the device work uses, and at the return. (Upstream's
// gpu-async-region synchronizes before every call, which with a call per
// product or collective serializes the host with the device.)
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPUSTREAMS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The runtime functions that wait for and destroy a stream (dist's CUDA
/// runtime library provides MLIR's mgpu* functions); not gpu.wait, whose
/// canonicalization drops a wait for a token that carries no work.
constexpr StringLiteral kStreamSynchronize = "mgpuStreamSynchronize";
constexpr StringLiteral kStreamDestroy = "mgpuStreamDestroy";

/// How a call is ordered on the stream, from its callee's declaration.
enum class CallKind { Host, NoSync, OnStream };

struct StreamCall {
  CallKind kind = CallKind::Host;
  unsigned streamOperand = 0;
};

StreamCall classifyCall(CallOpInterface call, SymbolTableCollection &symbols) {
  auto callee = dyn_cast_or_null<func::FuncOp>(call.resolveCallableInTable(&symbols));
  if (!callee || !callee.isExternal())
    return {};
  if (auto index = callee->getAttrOfType<IntegerAttr>(
          DistDialect::getStreamArgumentAttrName()))
    return {CallKind::OnStream, (unsigned)index.getInt()};
  if (callee->hasAttr(DistDialect::getNoStreamSyncAttrName()))
    return {CallKind::NoSync, 0};
  return {};
}

/// Whether `value` is a constant global (which no device work writes).
bool isConstantGlobal(Value value, SymbolTableCollection &symbols) {
  auto get = value ? value.getDefiningOp<memref::GetGlobalOp>() : nullptr;
  if (!get)
    return false;
  auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  return global && global.getConstant();
}

/// Whether the host must see the device idle before `op` runs: it may read,
/// write or free memory (constant globals aside), or its effects are
/// unknown. (Allocating host memory touches nothing the device uses.)
bool mayTouchDeviceWork(Operation *op, SymbolTableCollection &symbols) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !isMemoryEffectFree(op);
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [&](const MemoryEffects::EffectInstance &e) {
    return !isa<MemoryEffects::Allocate>(e.getEffect()) &&
           !isConstantGlobal(e.getValue(), symbols);
  });
}

class StreamOrderer {
public:
  StreamOrderer(func::FuncOp func, SymbolTableCollection &symbols)
      : func(func), symbols(symbols), builder(func.getContext()) {}

  /// Whether `op` (or an op nested in it) queues device work.
  bool queuesDeviceWork(Operation *op) {
    WalkResult found = op->walk([&](Operation *nested) {
      if (isa<gpu::AsyncOpInterface>(nested))
        return WalkResult::interrupt();
      if (auto call = dyn_cast<CallOpInterface>(nested);
          call && classifyCall(call, symbols).kind == CallKind::OnStream)
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return found.wasInterrupted();
  }

  /// Checks what the pass cannot order, then orders the function.
  LogicalResult run() {
    WalkResult invalid = func.walk([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op)) {
        op->emitOpError() << "is not outlined; run gpu-kernel-outlining "
                             "before dist-gpu-streams";
        return WalkResult::interrupt();
      }
      auto async = dyn_cast<gpu::AsyncOpInterface>(op);
      if (isa<gpu::WaitOp>(op) ||
          (async && (async.getAsyncToken() ||
                     !async.getAsyncDependencies().empty()))) {
        op->emitOpError() << "is already ordered by async tokens; "
                             "dist-gpu-streams orders the synchronous form "
                             "(run it instead of gpu-async-region)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (invalid.wasInterrupted())
      return failure();
    if (func.isExternal() || !queuesDeviceWork(func))
      return success();

    // The stream: made by a gpu.wait without dependencies (the lowering
    // turns a token chain rooted there into that one stream).
    Block &entry = func.getBody().front();
    builder.setInsertionPointToStart(&entry);
    Value token = gpu::WaitOp::create(builder, func.getLoc(),
                                      builder.getType<gpu::AsyncTokenType>(),
                                      ValueRange{})
                      .getAsyncToken();
    for (Block &block : func.getBody())
      orderBlock(block, token, /*pending=*/true);
    return success(!declarationFailed);
  }

private:
  /// Orders the ops of `block` on a token chain that starts at `token`;
  /// `pending` says whether device work may be unfinished when it starts.
  void orderBlock(Block &block, Value token, bool pending) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      // The stream's own gpu.wait (the input has none).
      if (isa<gpu::WaitOp>(&op))
        continue;
      if (auto async = dyn_cast<gpu::AsyncOpInterface>(&op)) {
        // Shared (host-visible) memory is allocated synchronously.
        if (auto alloc = dyn_cast<gpu::AllocOp>(&op);
            alloc && alloc.getHostShared())
          continue;
        token = makeAsync(async, token);
        pending = true;
        continue;
      }
      if (auto call = dyn_cast<CallOpInterface>(&op)) {
        StreamCall kind = classifyCall(call, symbols);
        if (kind.kind == CallKind::OnStream) {
          builder.setInsertionPoint(&op);
          op.setOperand(kind.streamOperand, streamOf(token, op.getLoc()));
          pending = true;
          continue;
        }
        if (kind.kind == CallKind::NoSync)
          continue;
      }
      if (isa<func::ReturnOp>(&op) && op.getParentOp() == func) {
        // The caller reads the results.
        builder.setInsertionPoint(&op);
        callRuntime(kStreamSynchronize, token, op.getLoc());
        callRuntime(kStreamDestroy, token, op.getLoc());
        continue;
      }
      if (op.getNumRegions() != 0 && !isa<CallOpInterface>(&op)) {
        // A loop's body may start with the work of its last iteration.
        bool inside = queuesDeviceWork(&op);
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            orderBlock(nested, token, pending || inside);
        pending = pending || inside;
        continue;
      }
      if (op.hasTrait<OpTrait::IsTerminator>())
        continue;
      if (pending && mayTouchDeviceWork(&op, symbols)) {
        builder.setInsertionPoint(&op);
        callRuntime(kStreamSynchronize, token, op.getLoc());
        pending = false;
      }
    }
  }

  /// `op` on the stream after `token`; returns the token of its completion.
  Value makeAsync(gpu::AsyncOpInterface async, Value token) {
    Operation *op = async.getOperation();
    async.addAsyncDependency(token);
    SmallVector<Type> resultTypes(op->getResultTypes());
    resultTypes.push_back(builder.getType<gpu::AsyncTokenType>());
    Operation *asyncOp = Operation::create(
        op->getLoc(), op->getName(), resultTypes, op->getOperands(),
        op->getDiscardableAttrDictionary(), op->getPropertiesStorage(),
        op->getSuccessors(), op->getNumRegions());
    IRMapping mapping;
    for (auto [from, to] : llvm::zip(op->getRegions(), asyncOp->getRegions()))
      from.cloneInto(&to, mapping);
    builder.setInsertionPoint(op);
    builder.insert(asyncOp);
    op->replaceAllUsesWith(asyncOp->getResults().drop_back());
    op->erase();
    return asyncOp->getResults().back();
  }

  /// The stream a token is on, as the runtime's `!llvm.ptr` (the GPU
  /// lowering's type for tokens: the cast folds away there).
  Value streamOf(Value token, Location loc) {
    return UnrealizedConversionCastOp::create(
               builder, loc,
               TypeRange{LLVM::LLVMPointerType::get(func.getContext())},
               ValueRange{token})
        .getResult(0);
  }

  /// Calls `name(stream)` (waits for or destroys the stream).
  void callRuntime(StringRef name, Value token, Location loc) {
    Value stream = streamOf(token, loc);
    auto module = func->getParentOfType<ModuleOp>();
    if (failed(declareExternalFunction(builder, module,
                                       symbols.getSymbolTable(module), name,
                                       {stream.getType()}, {},
                                       StreamOrdering::NoSync))) {
      declarationFailed = true;
      return;
    }
    func::CallOp::create(builder, loc, name, TypeRange{}, ValueRange{stream});
  }

  func::FuncOp func;
  SymbolTableCollection &symbols;
  OpBuilder builder;
  bool declarationFailed = false;
};

struct DistGpuStreamsPass
    : public dist::impl::DistGpuStreamsBase<DistGpuStreamsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    SmallVector<func::FuncOp> funcs;
    // Kernels live in gpu.module: only host functions are walked.
    for (auto func : getOperation().getOps<func::FuncOp>())
      funcs.push_back(func);
    for (func::FuncOp func : funcs) {
      StreamOrderer orderer(func, symbols);
      if (failed(orderer.run()))
        return signalPassFailure();
    }
  }
};

} // namespace
