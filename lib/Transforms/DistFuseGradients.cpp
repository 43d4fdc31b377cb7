//===- DistFuseGradients.cpp - Gradient reductions in buckets -------------===//
//
// Packs the all-reduces of gradients of one group, communicator, kind and
// element type into buckets capped in bytes, in the order backward makes
// the gradients: one collective per bucket.
//
//===----------------------------------------------------------------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"

#include <tuple>

namespace mlir::dist {
#define GEN_PASS_DEF_DISTFUSEGRADIENTS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistFuseGradientsPass
    : public dist::impl::DistFuseGradientsBase<DistFuseGradientsPass> {
  using DistFuseGradientsBase::DistFuseGradientsBase;
  void runOnOperation() override;

private:
  void fuseBlock(Block &block, int64_t capBytes);
  void emitBucket(ArrayRef<AllReduceOp> members);
};

/// Reductions that may share a bucket.
using BucketKey = std::tuple<Attribute, Attribute, int64_t, int64_t, Type>;
} // namespace

/// A gradient reduction: a synchronous all_reduce of one tensor that an op
/// marked dist.grad_of makes.
static bool isGradientReduction(AllReduceOp op) {
  if (op.getToken() || op.getInputs().size() != 1)
    return false;
  Operation *producer = op.getInputs().front().getDefiningOp();
  return producer && producer->hasAttr(DistDialect::getGradOfAttrName());
}

static std::optional<int64_t> bytesOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.hasStaticShape())
    return std::nullopt;
  return type.getNumElements() *
         (int64_t)llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// The first op of `block` (in order) that uses a result of `op`.
static Operation *firstUserIn(Block &block, Operation *op) {
  Operation *first = nullptr;
  for (Value result : op->getResults())
    for (Operation *user : result.getUsers()) {
      Operation *inBlock = block.findAncestorOpInBlock(*user);
      if (inBlock && (!first || inBlock->isBeforeInBlock(first)))
        first = inBlock;
    }
  return first;
}

void DistFuseGradientsPass::emitBucket(ArrayRef<AllReduceOp> members) {
  if (members.size() < 2)
    return;
  AllReduceOp last = members.back();
  SmallVector<Value> inputs;
  SmallVector<Type> types;
  int64_t bytes = 0;
  for (AllReduceOp member : members) {
    inputs.push_back(member.getInputs().front());
    types.push_back(member.getResults().front().getType());
    bytes += bytesOf(inputs.back()).value_or(0);
  }
  OpBuilder builder(last);
  auto fused = AllReduceOp::create(
      builder, last.getLoc(), types, /*token=*/Type(), inputs,
      last.getMeshAttr(), last.getAxesAttr(), last.getCommAttr(),
      last.getOriginAttr(), last.getKindAttr());
  if (Attribute role = last->getAttr(DistDialect::getRoleAttrName()))
    fused->setAttr(DistDialect::getRoleAttrName(), role);
  for (auto [i, member] : llvm::enumerate(members)) {
    AllReduceOp op = member;
    op.getResults().front().replaceAllUsesWith(fused.getResults()[i]);
    op.erase();
  }
  if (summary)
    emitRemark(fused.getLoc()) << "dist-fuse-gradients: bucket of " << members.size()
                       << " gradients, " << bytes << " B";
}

void DistFuseGradientsPass::fuseBlock(Block &block, int64_t capBytes) {
  // Open buckets, one per key, in the order their first gradient appears.
  struct Bucket {
    SmallVector<AllReduceOp> members;
    int64_t bytes = 0;
    Operation *firstUser = nullptr;
  };
  llvm::MapVector<BucketKey, Bucket> open;
  SmallVector<AllReduceOp> candidates;
  for (Operation &op : block)
    if (auto reduce = dyn_cast<AllReduceOp>(op))
      if (isGradientReduction(reduce))
        candidates.push_back(reduce);
  for (AllReduceOp reduce : candidates) {
    Value input = reduce.getInputs().front();
    BucketKey key{reduce.getMeshAttr(), reduce.getAxesAttr(),
                  (int64_t)reduce.getComm(), (int64_t)reduce.getKind(),
                  cast<RankedTensorType>(input.getType()).getElementType()};
    std::optional<int64_t> bytes = bytesOf(input);
    Bucket &bucket = open[key];
    // Close the bucket when this gradient would overflow it, when a user of
    // its gradients comes before this one, or when the size is unknown.
    bool fits = bytes && bucket.bytes + *bytes <= capBytes;
    bool beforeUsers =
        !bucket.firstUser || reduce->isBeforeInBlock(bucket.firstUser);
    if (!bucket.members.empty() && (!fits || !beforeUsers)) {
      emitBucket(bucket.members);
      bucket = Bucket();
    }
    bucket.members.push_back(reduce);
    bucket.bytes += bytes.value_or(capBytes);
    Operation *user = firstUserIn(block, reduce);
    if (user && (!bucket.firstUser || user->isBeforeInBlock(bucket.firstUser)))
      bucket.firstUser = user;
    if (!bytes || bucket.bytes >= capBytes) {
      emitBucket(bucket.members);
      bucket = Bucket();
    }
  }
  for (auto &[key, bucket] : open)
    emitBucket(bucket.members);
}

void DistFuseGradientsPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (!(bucketMB > 0)) {
    module.emitError() << "dist-fuse-gradients: bucket-mb must be positive, "
                          "got "
                       << static_cast<double>(bucketMB);
    return signalPassFailure();
  }
  bool anyGradient = false;
  module.walk([&](Operation *op) {
    if (op->hasAttr(DistDialect::getGradOfAttrName())) {
      anyGradient = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!anyGradient) {
    module.emitError() << "dist-fuse-gradients: no gradients in the module "
                          "(no op is marked '"
                       << DistDialect::getGradOfAttrName() << "')";
    return signalPassFailure();
  }
  auto capBytes = (int64_t)(static_cast<double>(bucketMB) * 1024 * 1024);
  capBytes = std::max<int64_t>(capBytes, 1);
  // Every block, also those of regions (the update of gradient merge).
  SmallVector<Block *> blocks;
  module.walk([&](func::FuncOp func) {
    func->walk([&](Block *block) { blocks.push_back(block); });
  });
  for (Block *block : blocks)
    fuseBlock(*block, capBytes);
}
