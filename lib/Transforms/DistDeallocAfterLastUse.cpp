//===- DistDeallocAfterLastUse.cpp - Free buffers where they die ----------===//
//
// The ownership-based deallocation pipeline frees buffers at the end of their
// block; this pass moves each unconditional dealloc of a buffer allocated in
// the same block to right after the buffer's last use there.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTDEALLOCAFTERLASTUSE
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistDeallocAfterLastUsePass
    : public dist::impl::DistDeallocAfterLastUseBase<
          DistDeallocAfterLastUsePass> {
  void runOnOperation() override;
};
} // namespace

/// The last op of `block` that uses `buffer` or a view of it (an op counts
/// for the uses inside its regions), other than `dealloc`; null if the
/// buffer may escape its views (then it must stay where it is freed now).
static FailureOr<Operation *> findLastUse(Value buffer, Block &block,
                                          Operation *dealloc) {
  Operation *last = buffer.getDefiningOp();
  SmallVector<Value> aliases = {buffer};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (Operation *user : alias.getUsers()) {
      if (user == dealloc)
        continue;
      // Anything that may hand the buffer on as another value: a view
      // (followed), or else an escape.
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == alias) {
        aliases.push_back(view->getResult(0));
      } else if (user->hasTrait<OpTrait::IsTerminator>() ||
                 llvm::any_of(user->getResultTypes(),
                              llvm::IsaPred<BaseMemRefType>)) {
        return failure();
      }
      Operation *inBlock = block.findAncestorOpInBlock(*user);
      if (!inBlock)
        return failure();
      if (last->isBeforeInBlock(inBlock))
        last = inBlock;
    }
  }
  return last;
}

void DistDeallocAfterLastUsePass::runOnOperation() {
  SmallVector<memref::DeallocOp> deallocs;
  getOperation().walk([&](memref::DeallocOp dealloc) {
    deallocs.push_back(dealloc);
  });
  for (memref::DeallocOp dealloc : deallocs) {
    Value buffer = dealloc.getMemref();
    auto alloc = buffer.getDefiningOp<memref::AllocOp>();
    Block *block = dealloc->getBlock();
    if (!alloc || alloc->getBlock() != block)
      continue;
    FailureOr<Operation *> last = findLastUse(buffer, *block, dealloc);
    if (failed(last) || !(*last)->isBeforeInBlock(dealloc))
      continue;
    dealloc->moveAfter(*last);
  }
}
