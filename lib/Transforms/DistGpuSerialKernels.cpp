//===- DistGpuSerialKernels.cpp - Host code on buffers as 1-thread kernels ===//
//
// On the GPU every buffer is device memory, so host code must not touch one:
// what linalg lowering leaves outside parallel loops (a full reduction, a
// rank-0 fill) runs as a kernel of one thread instead.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPUSERIALKERNELS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

/// True if `op` (a host op) should run as a kernel of one thread: it returns
/// nothing, reads or writes buffer elements, and holds no parallel loop,
/// call or GPU op.
static bool isSerialBufferCode(Operation *op) {
  if (op->getNumResults() != 0 || op->hasTrait<OpTrait::IsTerminator>())
    return false;
  bool touchesBuffers = false, blocked = false;
  op->walk([&](Operation *nested) {
    if (isa<memref::LoadOp, memref::StoreOp>(nested))
      touchesBuffers = true;
    if (isa<scf::ParallelOp, CallOpInterface, memref::AllocOp,
            memref::DeallocOp, memref::CopyOp>(nested) ||
        nested->getDialect() ==
            nested->getContext()->getLoadedDialect<gpu::GPUDialect>())
      blocked = true;
  });
  return touchesBuffers && !blocked;
}

/// Whether `op` may write or free memory (or do something unknown).
static bool mayWrite(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !isMemoryEffectFree(op);
  return effects.hasEffect<MemoryEffects::Write>() ||
         effects.hasEffect<MemoryEffects::Free>() ||
         effects.hasEffect<MemoryEffects::Allocate>();
}

/// The host ops before `op` in its block that compute only what `op` uses:
/// pure ops and loads (not of host scalars: allocas) whose results are used
/// only by `op`, by ops inside it or by other such ops, a load only when
/// nothing between it and `op` may write memory. A rank-0 linalg op becomes
/// such straight-line code (loads, arithmetic, a store): moved into the
/// kernel with the store, the host neither reads device memory nor waits
/// for the device. In block order.
static SmallVector<Operation *> producersToSink(Operation *op) {
  llvm::SmallPtrSet<Operation *, 16> inKernel = {op};
  auto usedOnlyInKernel = [&](Operation *producer) {
    for (Operation *user : producer->getUsers()) {
      Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user);
      if (!ancestor || !inKernel.contains(ancestor))
        return false;
    }
    return producer->getNumResults() != 0;
  };
  SmallVector<Operation *> sunk;
  bool writerBetween = false;
  for (Operation *candidate = op->getPrevNode(); candidate;
       candidate = candidate->getPrevNode()) {
    bool pure = isMemoryEffectFree(candidate) &&
                candidate->getNumRegions() == 0;
    auto load = dyn_cast<memref::LoadOp>(candidate);
    bool readable = load && !writerBetween &&
                    !load.getMemRef().getDefiningOp<memref::AllocaOp>();
    if ((pure || readable) && usedOnlyInKernel(candidate)) {
      inKernel.insert(candidate);
      sunk.push_back(candidate);
      continue;
    }
    writerBetween |= mayWrite(candidate);
  }
  std::reverse(sunk.begin(), sunk.end());
  return sunk;
}

namespace {
struct DistGpuSerialKernelsPass
    : public dist::impl::DistGpuSerialKernelsBase<DistGpuSerialKernelsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> serial;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Device code, and code that becomes device code, stays as it is.
      if (isa<gpu::GPUModuleOp, gpu::LaunchOp, scf::ParallelOp>(op))
        return WalkResult::skip();
      // Functions and modules hold code; they are not code themselves.
      if (op->hasTrait<OpTrait::SymbolTable>() || isa<FunctionOpInterface>(op))
        return WalkResult::advance();
      if (isSerialBufferCode(op)) {
        serial.push_back(op);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    OpBuilder builder(&getContext());
    auto wrap = [&](Operation *op, ArrayRef<Operation *> producers = {}) {
      builder.setInsertionPoint(op);
      Location loc = op->getLoc();
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      auto loop = scf::ParallelOp::create(builder, loc, ValueRange{zero},
                                          ValueRange{one}, ValueRange{one});
      for (Operation *producer : producers)
        producer->moveBefore(loop.getBody()->getTerminator());
      op->moveBefore(loop.getBody()->getTerminator());
      return loop;
    };
    for (Operation *op : serial)
      wrap(op, producersToSink(op));
    // Loads whose value the host uses (a loop bound, a branch condition;
    // not those that move into a kernel above with what they feed):
    // the element goes through a one-element device buffer to host memory.
    SmallVector<memref::LoadOp> hostLoads;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp, gpu::LaunchOp, scf::ParallelOp>(op))
        return WalkResult::skip();
      if (auto load = dyn_cast<memref::LoadOp>(op);
          load && !load.getMemRef().getDefiningOp<memref::AllocaOp>())
        hostLoads.push_back(load);
      return WalkResult::advance();
    });
    for (memref::LoadOp load : hostLoads) {
      Location loc = load.getLoc();
      auto one = MemRefType::get({1}, load.getType());
      builder.setInsertionPoint(load);
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value staging = memref::AllocOp::create(builder, loc, one);
      Value host = memref::AllocaOp::create(builder, loc, one);
      // The kernel: staging[0] = buffer[indices].
      auto copied = memref::LoadOp::create(builder, loc, load.getMemRef(),
                                           load.getIndices());
      auto store = memref::StoreOp::create(builder, loc, copied, staging,
                                           ValueRange{zero});
      scf::ParallelOp kernel = wrap(copied);
      store->moveAfter(copied);
      builder.setInsertionPointAfter(kernel);
      memref::CopyOp::create(builder, loc, staging, host);
      memref::DeallocOp::create(builder, loc, staging);
      auto value = memref::LoadOp::create(builder, loc, host, ValueRange{zero});
      load.replaceAllUsesWith(value.getResult());
      load.erase();
    }
  }
};
} // namespace
