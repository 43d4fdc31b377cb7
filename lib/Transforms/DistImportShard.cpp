//===- DistImportShard.cpp - Upstream shard annotations -> dist -----------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "dist-import-shard"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTIMPORTSHARD
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

/// Name of grid axis `index` in the imported mesh.
static StringAttr axisName(MLIRContext *context, int64_t index) {
  return StringAttr::get(context, "a" + std::to_string(index));
}

static LogicalResult importGrid(shard::GridOp grid, OpBuilder &builder) {
  ArrayRef<int64_t> shape = grid.getShape();
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return grid.emitOpError()
           << "has a dynamic shape; dist meshes are static";
  SmallVector<Attribute> names;
  for (int64_t i = 0, e = shape.size(); i < e; ++i)
    names.push_back(axisName(grid.getContext(), i));
  builder.setInsertionPoint(grid);
  auto mesh = MeshOp::create(builder, grid.getLoc(), grid.getSymName(),
                             builder.getArrayAttr(names),
                             builder.getDenseI64ArrayAttr(shape));
  (void)mesh;
  grid.erase();
  return success();
}

/// The dist sharding of a tensor of rank `rank` annotated with `op`.
static FailureOr<ShardingAttr> convertSharding(shard::ShardingOp op,
                                               int64_t rank, Operation *user) {
  MLIRContext *context = op.getContext();
  if (!op.getStaticHaloSizes().empty() || !op.getDynamicHaloSizes().empty())
    return op.emitOpError() << "has halo sizes, which dist does not import";
  if (!op.getStaticShardedDimsOffsets().empty() ||
      !op.getDynamicShardedDimsOffsets().empty())
    return op.emitOpError()
           << "has explicit shard offsets (uneven shards), which dist rejects";
  ArrayRef<shard::GridAxesAttr> splits = op.getSplitAxes().getAxes();
  // Sub-arrays past the rank split nothing when they are empty (upstream
  // writes `split_axes = [[]]` for a replicated scalar).
  bool splitsPastRank = llvm::any_of(
      splits.drop_front(std::min<size_t>(rank, splits.size())),
      [](shard::GridAxesAttr axes) { return !axes.empty(); });
  if (splitsPastRank) {
    InFlightDiagnostic diag = user->emitOpError()
                              << "is annotated with " << splits.size()
                              << " split sub-arrays for a tensor of rank "
                              << rank;
    diag.attachNote(op.getLoc()) << "sharding defined here";
    return diag;
  }
  SmallVector<DimShardingAttr> dims;
  for (int64_t d = 0; d < rank; ++d) {
    SmallVector<StringAttr> axes;
    if (d < (int64_t)splits.size())
      for (int16_t axis : splits[d].asArrayRef())
        axes.push_back(axisName(context, axis));
    dims.push_back(DimShardingAttr::get(context, axes));
  }
  return ShardingAttr::get(FlatSymbolRefAttr::get(context, op.getGrid()), dims);
}

static LogicalResult importShard(shard::ShardOp op, OpBuilder &builder) {
  auto shardingOp = op.getSharding().getDefiningOp<shard::ShardingOp>();
  if (!shardingOp)
    return op.emitOpError()
           << "takes a sharding that is not defined by a 'shard.sharding' op";
  FailureOr<ShardingAttr> sharding =
      convertSharding(shardingOp, op.getSrc().getType().getRank(), op);
  if (failed(sharding))
    return failure();
  builder.setInsertionPoint(op);
  auto annotate =
      AnnotateOp::create(builder, op.getLoc(), op.getSrc(), *sharding,
                         /*comm=*/IntegerAttr());
  op.getResult().replaceAllUsesWith(annotate.getResult());
  op.erase();
  return success();
}

namespace {
struct DistImportShardPass
    : public dist::impl::DistImportShardBase<DistImportShardPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder builder(&getContext());
    // Annotations first (they read the sharding ops), then the sharding ops
    // and the grids.
    WalkResult result = module.walk([&](shard::ShardOp op) {
      return failed(importShard(op, builder)) ? WalkResult::interrupt()
                                              : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    SmallVector<Operation *> rest;
    module.walk([&](Operation *op) {
      if (isa_and_nonnull<shard::ShardDialect>(op->getDialect()))
        rest.push_back(op);
    });
    for (Operation *op : rest) {
      if (auto sharding = dyn_cast<shard::ShardingOp>(op)) {
        if (!sharding->use_empty()) {
          InFlightDiagnostic diag =
              sharding.emitOpError()
              << "is used by an op that is not a 'shard.shard'";
          diag.attachNote((*sharding->user_begin())->getLoc()) << "used here";
          return signalPassFailure();
        }
        sharding.erase();
      } else if (auto grid = dyn_cast<shard::GridOp>(op)) {
        if (failed(importGrid(grid, builder)))
          return signalPassFailure();
      } else {
        op->emitOpError() << "is not an annotation; dist-import-shard imports "
                             "shard.grid, shard.sharding and shard.shard only";
        return signalPassFailure();
      }
    }
  }
};
} // namespace
