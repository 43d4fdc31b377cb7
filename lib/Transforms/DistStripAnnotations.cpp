//===- DistStripAnnotations.cpp - Annotated program -> serial program -----===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#define DEBUG_TYPE "dist-strip-annotations"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTSTRIPANNOTATIONS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistStripAnnotationsPass
    : public dist::impl::DistStripAnnotationsBase<DistStripAnnotationsPass> {
  using DistStripAnnotationsBase::DistStripAnnotationsBase;
  void runOnOperation() override;
};
} // namespace

/// Reports what has no serial form; true if `op` is fine.
static bool checkGlobal(Operation *op) {
  if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp, ReduceOp,
          BroadcastOp, PermuteOp>(op)) {
    op->emitOpError() << "is a collective: a per-rank program has no serial "
                         "form; dist-strip-annotations takes a global program";
    return false;
  }
  if (isa<ProcessIndexOp>(op)) {
    op->emitOpError() << "asks for a process index: a per-rank program has "
                         "no serial form; dist-strip-annotations takes a "
                         "global program";
    return false;
  }
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return true;
  StringRef local = DistDialect::getPartitionedAsAttrName();
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    if (fn.getArgAttr(i, local)) {
      op->emitOpError() << "argument " << i << " is '" << local
                        << "': a per-rank program has no serial form; "
                           "dist-strip-annotations takes a global program";
      return false;
    }
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
    if (fn.getResultAttr(i, local)) {
      op->emitOpError() << "result " << i << " is '" << local
                        << "': a per-rank program has no serial form; "
                           "dist-strip-annotations takes a global program";
      return false;
    }
  return true;
}

void DistStripAnnotationsPass::runOnOperation() {
  ModuleOp module = getOperation();
  bool ok = true;
  module.walk([&](Operation *op) {
    // One error for a module written with upstream shard, not one per op.
    if (op->getDialect() && isa<shard::ShardDialect>(op->getDialect())) {
      op->emitOpError() << "is an upstream shard op; run dist-import-shard "
                           "before dist-strip-annotations";
      ok = false;
      return WalkResult::interrupt();
    }
    ok &= checkGlobal(op);
    return WalkResult::advance();
  });
  if (!ok)
    return signalPassFailure();

  int64_t numAnnotations = 0, numBoundaries = 0, numMeshes = 0;
  module.walk([&](Operation *op) {
    if (auto annotate = dyn_cast<AnnotateOp>(op)) {
      annotate.getResult().replaceAllUsesWith(annotate.getInput());
      annotate.erase();
      ++numAnnotations;
      return;
    }
    op->removeDiscardableAttr(DistDialect::getShardingsAttrName());
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (!fn)
      return;
    StringRef sharding = DistDialect::getShardingAttrName();
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      numBoundaries += bool(fn.removeArgAttr(i, sharding));
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      numBoundaries += bool(fn.removeResultAttr(i, sharding));
  });
  // Nothing refers to a mesh any more: collectives were refused above.
  for (MeshOp mesh : llvm::make_early_inc_range(module.getOps<MeshOp>())) {
    mesh.erase();
    ++numMeshes;
  }
  if (summary)
    emitRemark(module.getLoc())
        << "removed " << numAnnotations << " annotation(s), " << numBoundaries
        << " boundary sharding(s), " << numMeshes << " mesh(es)";
}
