//===- DistGpuAllocs.cpp - A lowered program's buffers on the GPU ---------===//
//
// The GPU lowering keeps a step's buffers on the device: host-side
// allocations become device allocations, host-side copies device copies, and
// constants are copied to the device once where they are read. Host code
// that would read or write a device buffer element by element is refused.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPUALLOCS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Whether `value` is a kernel's operand, itself or through views of it (a
/// partitioned constant is a slice of the global).
bool reachesKernel(Value value) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<gpu::LaunchFuncOp>(user))
      return true;
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    if (view && view.getViewSource() == value && user->getNumResults() == 1 &&
        reachesKernel(user->getResult(0)))
      return true;
  }
  return false;
}

/// Makes the kernels that read `host` (or views of it) read `device`
/// instead (each view made again, of `device`); host code keeps `host`.
void redirectKernelUses(Value host, Value device, RewriterBase &rewriter) {
  for (OpOperand &use : llvm::make_early_inc_range(host.getUses())) {
    Operation *user = use.getOwner();
    if (isa<gpu::LaunchFuncOp>(user)) {
      rewriter.modifyOpInPlace(user, [&] { use.set(device); });
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    if (!view || view.getViewSource() != host || user->getNumResults() != 1 ||
        !reachesKernel(user->getResult(0)))
      continue;
    rewriter.setInsertionPointAfter(user);
    IRMapping mapping;
    mapping.map(host, device);
    Operation *deviceView = rewriter.clone(*user, mapping);
    redirectKernelUses(user->getResult(0), deviceView->getResult(0), rewriter);
  }
}
struct DistGpuAllocsPass
    : public dist::impl::DistGpuAllocsBase<DistGpuAllocsPass> {
  void runOnOperation() override;
};
} // namespace

/// A device buffer of `type` (dynamic sizes `sizes`) at the rewriter's
/// insertion point.
static Value allocateOnDevice(IRRewriter &rewriter, Location loc,
                              MemRefType type, ValueRange sizes,
                              ValueRange symbols) {
  return gpu::AllocOp::create(rewriter, loc, type, /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange{}, sizes,
                              symbols, /*hostShared=*/false)
      .getMemref();
}

void DistGpuAllocsPass::runOnOperation() {
  SmallVector<Operation *> toRewrite;
  WalkResult walk = getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
    // Kernels are device code already.
    if (isa<gpu::GPUModuleOp, gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (auto alloc = dyn_cast<memref::AllocOp>(op);
        alloc && alloc.getType().getMemorySpace()) {
      alloc.emitOpError() << "allocates in memory space "
                          << alloc.getType().getMemorySpace()
                          << "; dist-gpu-allocs places only buffers of the "
                             "default memory space on the GPU";
      return WalkResult::interrupt();
    }
    // Host memory (the staging of dist-gpu-serial-kernels) may be read.
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && load.getMemRef().getDefiningOp<memref::AllocaOp>())
      return WalkResult::advance();
    if (auto copy = dyn_cast<memref::CopyOp>(op);
        copy && copy.getTarget().getDefiningOp<memref::AllocaOp>()) {
      toRewrite.push_back(op);
      return WalkResult::advance();
    }
    if (isa<memref::LoadOp, memref::StoreOp>(op)) {
      op->emitOpError()
          << "reads or writes one element of a buffer in host code; on the "
             "GPU every buffer is device memory (dist-lower-to-nvvm does not "
             "move single elements to the host yet)";
      return WalkResult::interrupt();
    }
    if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp,
            memref::GetGlobalOp>(op))
      toRewrite.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return signalPassFailure();

  IRRewriter rewriter(&getContext());
  for (Operation *op : toRewrite) {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      rewriter.replaceOp(alloc, allocateOnDevice(rewriter, loc, alloc.getType(),
                                                 alloc.getDynamicSizes(),
                                                 alloc.getSymbolOperands()));
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                             dealloc.getMemref());
      rewriter.eraseOp(dealloc);
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                            copy.getTarget(), copy.getSource());
      rewriter.eraseOp(copy);
    } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
      // Host code (the runtime's tables) keeps reading the host copy.
      if (!reachesKernel(global.getResult()))
        continue;
      // A constant in host memory: copied to a device buffer at the
      // function's entry (so that it dominates every use and every return),
      // freed when the function returns.
      Region &body =
          global->getParentOfType<FunctionOpInterface>().getFunctionBody();
      global->moveBefore(&body.front(), body.front().begin());
      rewriter.setInsertionPointAfter(global);
      Value device =
          allocateOnDevice(rewriter, loc, global.getType(), {}, {});
      gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                            device, global.getResult());
      redirectKernelUses(global.getResult(), device, rewriter);
      if (llvm::any_of(device.getUsers(), [](Operation *user) {
            return user->hasTrait<OpTrait::ReturnLike>();
          }))
        continue; // the caller owns what the function returns
      for (Block &block : body)
        if (block.mightHaveTerminator() &&
            block.getTerminator()->hasTrait<OpTrait::ReturnLike>()) {
          rewriter.setInsertionPoint(block.getTerminator());
          gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(),
                                 ValueRange{}, device);
        }
    }
  }
}
