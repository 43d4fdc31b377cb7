//===- DistPrivatizeInits.cpp - One init tensor per destination -----------===//
//
// CSE leaves one tensor.empty (and one zero fill) as the init of many ops:
// every weight gradient starts from the same zero tensor, every optimizer
// update writes into the same empty tensor. One-shot bufferization then
// chains those unrelated results through one buffer: it copies the shared
// zeros into fresh buffers for all users but the last, and the last writes
// in place into a buffer that an earlier, unrelated result (a gradient) also
// lived in, so that gradient cannot be made in its bucket. Giving each
// destination its own empty tensor (and its own fill) removes both.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPRIVATIZEINITS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

/// The uses of `value` as the init (destination) of a destination-style op
/// that get a copy of their own: all of them when `value` is also read
/// (a destination written in place would have to be copied first), else
/// all but one.
static SmallVector<OpOperand *> sharedInitUses(Value value) {
  SmallVector<OpOperand *> uses;
  bool alsoRead = false;
  for (OpOperand &use : value.getUses()) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
    if (dps && dps.isDpsInit(&use))
      uses.push_back(&use);
    else
      alsoRead = true;
  }
  // Which use keeps the original does not matter: the clones are placed
  // right before their users, where everything the original reads is
  // defined.
  if (!alsoRead && !uses.empty())
    uses.erase(uses.begin());
  return uses;
}

/// Clones `ops` (a chain, producers first) before `user` and makes `use`
/// read the last clone's result.
static void privatize(ArrayRef<Operation *> ops, OpOperand *use) {
  OpBuilder builder(use->getOwner());
  IRMapping mapping;
  Operation *clone = nullptr;
  for (Operation *op : ops)
    clone = builder.clone(*op, mapping);
  use->set(clone->getResult(0));
}

namespace {
struct DistPrivatizeInitsPass
    : public dist::impl::DistPrivatizeInitsBase<DistPrivatizeInitsPass> {
  void runOnOperation() override {
    // Zero fills of an empty tensor first, so that their clones get empty
    // tensors of their own.
    SmallVector<linalg::FillOp> fills;
    getOperation()->walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() &&
          fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
        fills.push_back(fill);
    });
    for (linalg::FillOp fill : fills) {
      Operation *empty = fill.getOutputs()[0].getDefiningOp();
      for (OpOperand *use : sharedInitUses(fill.getResult(0)))
        privatize({empty, fill}, use);
    }
    SmallVector<tensor::EmptyOp> empties;
    getOperation()->walk([&](tensor::EmptyOp empty) { empties.push_back(empty); });
    for (tensor::EmptyOp empty : empties)
      for (OpOperand *use : sharedInitUses(empty.getResult()))
        privatize({empty}, use);
  }
};
} // namespace
