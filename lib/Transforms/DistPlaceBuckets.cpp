//===- DistPlaceBuckets.cpp - Gradients made in their bucket's memory ------===//
//
// A bucket (an in-place collective of several buffers, from
// dist-fuse-gradients) is reduced as one contiguous buffer. Where a member's
// buffer is a fresh allocation that lives and dies in the collective's block,
// this pass allocates the bucket's buffer first and makes the member a view of
// its slot in it, so the op that computes the gradient writes it straight into
// the bucket and the lowering copies nothing (the seeds' coalesce_tensor).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/CallInterfaces.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPLACEBUCKETS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistPlaceBucketsPass
    : public dist::impl::DistPlaceBucketsBase<DistPlaceBucketsPass> {
  using DistPlaceBucketsBase::DistPlaceBucketsBase;
  void runOnOperation() override;

private:
  void place(CollectiveOpInterface op);
};
} // namespace

/// The one dealloc of `buffer` when the buffer may become a view of a bucket:
/// a static, identity-layout memref.alloc in `end`'s block, freed there after
/// `end` (the collective or its wait), and otherwise only read and written by
/// ops that make no alias of it and do not pass it on (no terminator, call or
/// op with memref results). Null otherwise.
static memref::DeallocOp getPlaceableDealloc(Value buffer, Operation *end) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  Block *block = end->getBlock();
  if (!alloc || alloc->getBlock() != block)
    return {};
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getMemorySpace())
    return {};
  memref::DeallocOp dealloc;
  for (Operation *user : alloc->getUsers()) {
    if (auto free = dyn_cast<memref::DeallocOp>(user)) {
      if (dealloc || free->getBlock() != block || !end->isBeforeInBlock(free))
        return {};
      dealloc = free;
      continue;
    }
    if (user->hasTrait<OpTrait::IsTerminator>() || isa<CallOpInterface>(user) ||
        llvm::any_of(user->getResultTypes(), llvm::IsaPred<BaseMemRefType>))
      return {};
  }
  return dealloc;
}

/// Says what became of a bucket: how many members (and bytes) live in the
/// bucket's buffer, and how many bytes copying the others moves per call.
static void reportBucket(CollectiveOpInterface op, int64_t members,
                         int64_t placed, int64_t placedBytes,
                         int64_t totalBytes) {
  emitRemark(op->getLoc()) << "dist-place-buckets: " << placed << " of " << members
                  << " buffers (" << placedBytes << " of " << totalBytes
                  << " B) made in the bucket's buffer; copying the others "
                     "in and back moves "
                  << 2 * (totalBytes - placedBytes) << " B";
}

void DistPlaceBucketsPass::place(CollectiveOpInterface op) {
  ValueRange members = op.getCollectiveInputs();
  SmallVector<int64_t> offsets = getBucketSlotOffsets(members);
  int64_t totalBytes = offsets.back();
  auto notPlaced = [&] {
    if (summary)
      reportBucket(op, members.size(), 0, 0, totalBytes);
  };
  Operation *end = op;
  if (Value token = op.getAsyncToken()) {
    if (!token.hasOneUse())
      return notPlaced();
    end = *token.user_begin();
    if (end->getBlock() != op->getBlock())
      return notPlaced();
  }
  // A buffer twice in one bucket has two slots; it keeps its own memory.
  llvm::SmallPtrSet<Value, 8> seen;
  for (Value member : members)
    if (!seen.insert(member).second)
      return notPlaced();

  SmallVector<memref::DeallocOp> deallocs;
  Operation *first = nullptr, *lastFree = nullptr;
  for (Value member : members) {
    memref::DeallocOp dealloc = getPlaceableDealloc(member, end);
    deallocs.push_back(dealloc);
    if (!dealloc)
      continue;
    Operation *alloc = member.getDefiningOp();
    if (!first || alloc->isBeforeInBlock(first))
      first = alloc;
    if (!lastFree || lastFree->isBeforeInBlock(dealloc))
      lastFree = dealloc;
  }
  if (!first)
    return notPlaced();

  OpBuilder builder(first);
  Location loc = op.getLoc();
  auto bucket = memref::AllocOp::create(
      builder, loc, MemRefType::get({totalBytes}, builder.getI8Type()),
      builder.getI64IntegerAttr(64));
  bucket->setAttr(DistDialect::getBucketBufferAttrName(),
                  builder.getUnitAttr());
  builder.setInsertionPoint(lastFree);
  memref::DeallocOp::create(builder, loc, bucket);
  int64_t placed = 0, placedBytes = 0;
  for (auto [i, member, dealloc] : llvm::enumerate(members, deallocs)) {
    if (!dealloc)
      continue;
    int64_t offset = offsets[i];
    dealloc.erase();
    auto alloc = member.getDefiningOp<memref::AllocOp>();
    builder.setInsertionPoint(alloc);
    Value shift = arith::ConstantIndexOp::create(builder, alloc.getLoc(), offset);
    Value view = memref::ViewOp::create(builder, alloc.getLoc(), alloc.getType(),
                                        bucket, shift, ValueRange{});
    placedBytes += offsets[i + 1] - offset;
    ++placed;
    alloc.getResult().replaceAllUsesWith(view);
    alloc.erase();
  }
  if (summary)
    reportBucket(op, members.size(), placed, placedBytes, totalBytes);
}

void DistPlaceBucketsPass::runOnOperation() {
  SmallVector<CollectiveOpInterface> bucketOps;
  WalkResult result = getOperation().walk([&](CollectiveOpInterface op) {
    if (!op.isInPlace() || op.getCollectiveInputs().size() < 2)
      return WalkResult::advance();
    if (!op.isBufferForm()) {
      op.emitOpError() << "is a bucket on tensors; dist-place-buckets runs "
                          "after bufferization and buffer deallocation";
      return WalkResult::interrupt();
    }
    if (!llvm::all_of(op.getCollectiveInputs().getTypes(), [](Type type) {
          auto memref = dyn_cast<MemRefType>(type);
          return memref && memref.hasStaticShape();
        })) {
      op.emitOpError() << "has a buffer of dynamic shape; a bucket's slots "
                          "need static sizes";
      return WalkResult::interrupt();
    }
    bucketOps.push_back(op);
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return signalPassFailure();
  for (CollectiveOpInterface op : bucketOps)
    place(op);
}
