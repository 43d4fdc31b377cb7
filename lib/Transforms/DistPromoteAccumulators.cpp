//===- DistPromoteAccumulators.cpp - Reductions accumulate in registers ---===//
//
// A linalg reduction lowered to loops loads and stores its output element
// in every iteration of the reduction loop. On a GPU every such store goes
// to memory (L2), as often as the inputs are read; LLVM cannot keep the
// value in a register because a kernel's buffers might alias. Here they
// provably do not (the output is a fresh allocation the loop reads nothing
// else of), so the element becomes the loop's carried value.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPROMOTEACCUMULATORS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Whether `a` and `b` are views of two different buffers, one of them
/// allocated here (two function arguments might be the same buffer).
bool provablyDistinct(Value a, Value b) {
  Value rootA = getRootBuffer(a), rootB = getRootBuffer(b);
  auto allocated = [](Value root) {
    return root.getDefiningOp<memref::AllocOp>() ||
           root.getDefiningOp<memref::AllocaOp>();
  };
  return rootA != rootB && (allocated(rootA) || allocated(rootB));
}

/// The load and store of `loop`'s accumulator: in its body (not nested),
/// the same buffer and loop-invariant indices, the load first, the store
/// the body's only write, every other read of a provably distinct buffer.
std::optional<std::pair<memref::LoadOp, memref::StoreOp>>
findAccumulator(scf::ForOp loop) {
  memref::StoreOp store;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto candidate = dyn_cast<memref::StoreOp>(&op)) {
      if (store)
        return std::nullopt; // two writes
      store = candidate;
    }
  }
  if (!store || !llvm::all_of(store.getIndices(), [&](Value index) {
        return loop.isDefinedOutsideOfLoop(index);
      }))
    return std::nullopt;
  memref::LoadOp load;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (&op == store.getOperation())
      break;
    auto candidate = dyn_cast<memref::LoadOp>(&op);
    if (candidate && candidate.getMemRef() == store.getMemRef() &&
        llvm::equal(candidate.getIndices(), store.getIndices())) {
      load = candidate;
      break;
    }
  }
  if (!load)
    return std::nullopt;
  // Everything else only reads, and none of it the accumulator's buffer.
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (op == load.getOperation() || op == store.getOperation() ||
        op->hasTrait<OpTrait::IsTerminator>())
      return WalkResult::advance();
    if (auto read = dyn_cast<memref::LoadOp>(op))
      return provablyDistinct(read.getMemRef(), store.getMemRef())
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isMemoryEffectFree(op))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return std::make_pair(load, store);
}

struct DistPromoteAccumulatorsPass
    : public dist::impl::DistPromoteAccumulatorsBase<
          DistPromoteAccumulatorsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Inner loops first: a promoted inner loop's load and store are then
    // the outer loop's.
    SmallVector<scf::ForOp> loops;
    // Only in kernels to be: a host loop that carried a value would no
    // longer be one op dist-gpu-serial-kernels can move into a kernel.
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto accumulator = findAccumulator(loop);
      if (!accumulator)
        continue;
      auto [load, store] = *accumulator;
      Value buffer = store.getMemRef();
      SmallVector<Value> indices(store.getIndices());
      rewriter.setInsertionPoint(loop);
      Value initial =
          memref::LoadOp::create(rewriter, load.getLoc(), buffer, indices);
      Value stored = store.getValueToStore();
      FailureOr<LoopLikeOpInterface> promoted =
          cast<LoopLikeOpInterface>(loop.getOperation())
              .replaceWithAdditionalYields(
                  rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
                  [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                    return SmallVector<Value>{stored};
                  });
      if (failed(promoted))
        continue;
      auto newLoop = cast<scf::ForOp>(promoted->getOperation());
      rewriter.replaceAllUsesWith(load.getResult(),
                                  newLoop.getRegionIterArgs().back());
      // Read before the store goes.
      Location storeLoc = store.getLoc();
      rewriter.eraseOp(load);
      rewriter.eraseOp(store);
      rewriter.setInsertionPointAfter(newLoop);
      memref::StoreOp::create(rewriter, storeLoc, newLoop.getResults().back(),
                              buffer, indices);
    }
  }
};

} // namespace
