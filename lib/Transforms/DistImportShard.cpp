//===- DistImportShard.cpp - Upstream shard annotations -> dist -----------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Interfaces/ShardingRule.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

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
  if (!op.getDynamicHaloSizes().empty() ||
      llvm::any_of(op.getStaticHaloSizes(), ShapedType::isDynamic))
    return op.emitOpError()
           << "has dynamic halo sizes; dist's halos are static";
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
  // Halo sizes come in (lo, hi) pairs, one per split dim in order.
  ArrayRef<int64_t> halos = op.getStaticHaloSizes();
  int64_t numSplit = llvm::count_if(
      splits.take_front(std::min<size_t>(rank, splits.size())),
      [](shard::GridAxesAttr axes) { return !axes.empty(); });
  if (!halos.empty() && (int64_t)halos.size() != 2 * numSplit)
    return op.emitOpError() << "has " << halos.size()
                            << " halo sizes for " << numSplit
                            << " split dims; expected a (lo, hi) pair per "
                               "split dim";
  SmallVector<DimShardingAttr> dims;
  for (int64_t d = 0, split = 0; d < rank; ++d) {
    SmallVector<StringAttr> axes;
    if (d < (int64_t)splits.size())
      for (int16_t axis : splits[d].asArrayRef())
        axes.push_back(axisName(context, axis));
    int64_t lo = 0, hi = 0;
    if (!axes.empty() && !halos.empty()) {
      lo = halos[2 * split];
      hi = halos[2 * split + 1];
      ++split;
    }
    if (failed(DimShardingAttr::verify([&] { return op.emitOpError(); }, axes,
                                       lo, hi, /*overlap=*/0)))
      return failure();
    dims.push_back(DimShardingAttr::get(context, axes, lo, hi, 0));
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

//===----------------------------------------------------------------------===//
// Collectives of programs that upstream has already partitioned
//===----------------------------------------------------------------------===//

namespace {
/// The group of a shard collective as dist names it (the grid's symbol and
/// axes a<i>), with the checks every import makes: tensors, not memrefs, and
/// a grid that exists.
struct ImportedGroup {
  FlatSymbolRefAttr mesh;
  ArrayAttr axes;
  SmallVector<int64_t> gridShape;
  SmallVector<int64_t> axisIndices;
};

/// Set by a pattern that reported an error, so that the pass fails once.
struct ImportState {
  bool failed = false;
};

template <typename ShardOp>
struct ImportCollective : public OpRewritePattern<ShardOp> {
  ImportCollective(MLIRContext *context, ImportState &state)
      : OpRewritePattern<ShardOp>(context), state(state) {}

  LogicalResult fail(ShardOp op, const Twine &message) const {
    op.emitOpError() << message;
    state.failed = true;
    return failure();
  }

  /// The op's group; errors for memref operands, a missing grid or a grid
  /// with a dynamic shape.
  FailureOr<ImportedGroup> getGroup(ShardOp op, ArrayRef<int16_t> gridAxes,
                                    bool allAxesIfEmpty = false) const {
    for (Type type : llvm::concat<Type>(op->getOperandTypes(),
                                         op->getResultTypes()))
      if (isa<BaseMemRefType>(type))
        return fail(op, "works on memrefs; dist-import-shard imports "
                        "collectives on tensors only (bufferize after import)");
    ImportedGroup group;
    auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
        op, op.getGridAttr());
    if (!grid)
      return fail(op, "refers to @" + op.getGrid() + ", which is no shard.grid");
    group.gridShape = llvm::to_vector(grid.getShape());
    if (llvm::any_of(group.gridShape, ShapedType::isDynamic))
      return fail(op, "works on a grid with a dynamic shape; dist meshes are "
                      "static");
    for (int16_t axis : gridAxes)
      group.axisIndices.push_back(axis);
    if (gridAxes.empty() && allAxesIfEmpty)
      for (int64_t axis = 0; axis < (int64_t)group.gridShape.size(); ++axis)
        group.axisIndices.push_back(axis);
    MLIRContext *context = op.getContext();
    SmallVector<Attribute> names;
    for (int64_t axis : group.axisIndices)
      names.push_back(axisName(context, axis));
    group.mesh = op.getGridAttr();
    group.axes = ArrayAttr::get(context, names);
    return group;
  }

  /// dist's reduction kind for upstream's; the bitwise and generic kinds have
  /// no dist collective.
  FailureOr<ReductionKind> getKind(ShardOp op,
                                   shard::ReductionKind kind) const {
    switch (kind) {
    case shard::ReductionKind::Sum:
      return ReductionKind::sum;
    case shard::ReductionKind::Max:
      return ReductionKind::max;
    case shard::ReductionKind::Min:
      return ReductionKind::min;
    case shard::ReductionKind::Product:
      return ReductionKind::prod;
    case shard::ReductionKind::Average:
      return ReductionKind::avg;
    default:
      return fail(op, "reduces with '" + shard::stringifyReductionKind(kind) +
                          "', which dist's collectives do not have (sum, "
                          "max, min, product, average)");
    }
  }

  /// The root's index in the group (major to minor) from upstream's
  /// multi-index; dynamic roots are refused.
  FailureOr<int64_t> getRoot(ShardOp op, const ImportedGroup &group) const {
    if (!op.getRootDynamic().empty())
      return fail(op, "has a dynamic root; dist's roots are static");
    ArrayRef<int64_t> root = op.getRoot();
    if (root.size() != group.axisIndices.size())
      return fail(op, "has a root of " + Twine(root.size()) +
                          " coordinates for " +
                          Twine(group.axisIndices.size()) + " grid axes");
    int64_t linear = 0;
    for (auto [coordinate, axis] : llvm::zip(root, group.axisIndices))
      linear = linear * group.gridShape[axis] + coordinate;
    return linear;
  }

  /// Element types must match: dist's collectives do not convert.
  LogicalResult checkSameElementType(ShardOp op) const {
    if (getElementTypeOrSelf(op->getOperand(0).getType()) !=
        getElementTypeOrSelf(op->getResult(0).getType()))
      return fail(op, "converts its element type; dist's collectives keep it "
                      "(convert before or after)");
    return success();
  }

  ImportState &state;
};

struct ImportAllReduce : public ImportCollective<shard::AllReduceOp> {
  using ImportCollective::ImportCollective;
  LogicalResult matchAndRewrite(shard::AllReduceOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ImportedGroup> group = getGroup(op, op.getGridAxes());
    if (failed(group) || failed(checkSameElementType(op)))
      return failure();
    FailureOr<ReductionKind> kind = getKind(op, op.getReduction());
    if (failed(kind))
      return failure();
    rewriter.replaceOpWithNewOp<AllReduceOp>(
        op, TypeRange{op.getType()}, /*token=*/Type(),
        ValueRange{op.getInput()}, group->mesh, group->axes, IntegerAttr(),
        OriginAttr(),
        ReductionKindAttr::get(op.getContext(), *kind));
    return success();
  }
};

struct ImportReduce : public ImportCollective<shard::ReduceOp> {
  using ImportCollective::ImportCollective;
  LogicalResult matchAndRewrite(shard::ReduceOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ImportedGroup> group = getGroup(op, op.getGridAxes());
    if (failed(group) || failed(checkSameElementType(op)))
      return failure();
    FailureOr<ReductionKind> kind = getKind(op, op.getReduction());
    FailureOr<int64_t> root = getRoot(op, *group);
    if (failed(kind) || failed(root))
      return failure();
    // Upstream leaves the non-root ranks' results unspecified; dist's reduce
    // keeps the input there, which is one of the values allowed.
    rewriter.replaceOpWithNewOp<ReduceOp>(
        op, TypeRange{op.getType()}, /*token=*/Type(),
        ValueRange{op.getInput()}, group->mesh, group->axes, IntegerAttr(),
        OriginAttr(),
        ReductionKindAttr::get(op.getContext(), *kind),
        rewriter.getI64IntegerAttr(*root));
    return success();
  }
};

struct ImportBroadcast : public ImportCollective<shard::BroadcastOp> {
  using ImportCollective::ImportCollective;
  LogicalResult matchAndRewrite(shard::BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ImportedGroup> group = getGroup(op, op.getGridAxes());
    if (failed(group))
      return failure();
    FailureOr<int64_t> root = getRoot(op, *group);
    if (failed(root))
      return failure();
    rewriter.replaceOpWithNewOp<BroadcastOp>(
        op, TypeRange{op.getType()}, /*token=*/Type(),
        ValueRange{op.getInput()}, group->mesh, group->axes, IntegerAttr(),
        OriginAttr(), rewriter.getI64IntegerAttr(*root));
    return success();
  }
};

struct ImportAllGather : public ImportCollective<shard::AllGatherOp> {
  using ImportCollective::ImportCollective;
  LogicalResult matchAndRewrite(shard::AllGatherOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ImportedGroup> group = getGroup(op, op.getGridAxes());
    if (failed(group))
      return failure();
    rewriter.replaceOpWithNewOp<AllGatherOp>(
        op, op.getType(), /*token=*/Type(), op.getInput(), group->mesh,
        group->axes, IntegerAttr(), OriginAttr(),
        rewriter.getI64IntegerAttr(op.getGatherAxis().getSExtValue()));
    return success();
  }
};

struct ImportReduceScatter : public ImportCollective<shard::ReduceScatterOp> {
  using ImportCollective::ImportCollective;
  LogicalResult matchAndRewrite(shard::ReduceScatterOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ImportedGroup> group = getGroup(op, op.getGridAxes());
    if (failed(group) || failed(checkSameElementType(op)))
      return failure();
    FailureOr<ReductionKind> kind = getKind(op, op.getReduction());
    if (failed(kind))
      return failure();
    rewriter.replaceOpWithNewOp<ReduceScatterOp>(
        op, op.getType(), /*token=*/Type(), op.getInput(), group->mesh,
        group->axes, IntegerAttr(), OriginAttr(),
        ReductionKindAttr::get(op.getContext(), *kind),
        rewriter.getI64IntegerAttr(op.getScatterAxis().getSExtValue()));
    return success();
  }
};

struct ImportAllToAll : public ImportCollective<shard::AllToAllOp> {
  using ImportCollective::ImportCollective;
  LogicalResult matchAndRewrite(shard::AllToAllOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ImportedGroup> group = getGroup(op, op.getGridAxes());
    if (failed(group))
      return failure();
    rewriter.replaceOpWithNewOp<AllToAllOp>(
        op, op.getType(), /*token=*/Type(), op.getInput(), group->mesh,
        group->axes, IntegerAttr(), OriginAttr(),
        rewriter.getI64IntegerAttr(op.getSplitAxis().getSExtValue()),
        rewriter.getI64IntegerAttr(op.getConcatAxis().getSExtValue()));
    return success();
  }
};

/// all_slice needs no communication: each rank keeps its block of the slice
/// dim, at its index in the group.
struct ImportAllSlice : public ImportCollective<shard::AllSliceOp> {
  using ImportCollective::ImportCollective;
  LogicalResult matchAndRewrite(shard::AllSliceOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ImportedGroup> group = getGroup(op, op.getGridAxes());
    if (failed(group))
      return failure();
    auto result = cast<RankedTensorType>(op.getType());
    if (!result.hasStaticShape())
      return fail(op, "has a result of dynamic shape; dist slices static "
                      "shapes only");
    int64_t dim = op.getSliceAxis().getSExtValue();
    Location loc = op.getLoc();
    Value offset = buildBlockOffset(
        rewriter, loc, group->mesh,
        llvm::to_vector(group->axes.getAsRange<StringAttr>()),
        result.getDimSize(dim));
    rewriter.replaceOp(op, buildDimSlice(rewriter, loc, op.getInput(), dim,
                                         offset, result.getDimSize(dim)));
    return success();
  }
};

/// One dist.process_index per axis (all the grid's axes when none is
/// named).
struct ImportProcessMultiIndex
    : public ImportCollective<shard::ProcessMultiIndexOp> {
  using ImportCollective::ImportCollective;
  LogicalResult matchAndRewrite(shard::ProcessMultiIndexOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ImportedGroup> group =
        getGroup(op, op.getAxes(), /*allAxesIfEmpty=*/true);
    if (failed(group))
      return failure();
    SmallVector<Value> indices;
    for (Attribute axis : group->axes)
      indices.push_back(ProcessIndexOp::create(rewriter, op.getLoc(),
                                               group->mesh,
                                               rewriter.getArrayAttr({axis})));
    rewriter.replaceOp(op, indices);
    return success();
  }
};

/// update_halo on a local tensor whose split dims hold halos: per split dim,
/// the `lo` rows before the block come from the previous rank's last block
/// rows and the `hi` rows after it from the next rank's first ones (two
/// dist.permutes); the first and last ranks keep what the destination holds
/// there (upstream leaves the ends to the program).
struct ImportUpdateHalo : public ImportCollective<shard::UpdateHaloOp> {
  using ImportCollective::ImportCollective;
  LogicalResult matchAndRewrite(shard::UpdateHaloOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(getGroup(op, {})))
      return failure(); // memrefs, an unknown grid
    if (!op.getHaloSizes().empty() ||
        llvm::any_of(op.getStaticHaloSizes(), ShapedType::isDynamic))
      return fail(op, "has dynamic halo sizes; dist's halos are static");
    auto type = dyn_cast<RankedTensorType>(op.getDestination().getType());
    if (type && (!type.hasStaticShape() ||
                 !type.getElementType().isIntOrIndexOrFloat()))
      return fail(op, "updates a tensor of dynamic shape or of elements "
                      "other than integers and floats");
    ArrayRef<shard::GridAxesAttr> splits = op.getSplitAxes().getAxes();
    ArrayRef<int64_t> halos = op.getStaticHaloSizes();
    int64_t numSplit = llvm::count_if(
        splits, [](shard::GridAxesAttr axes) { return !axes.empty(); });
    if ((int64_t)halos.size() != 2 * numSplit)
      return fail(op, "has " + Twine(halos.size()) + " halo sizes for " +
                          Twine(numSplit) +
                          " split dims; expected a (lo, hi) pair per split dim");
    if (type && (int64_t)splits.size() > type.getRank())
      return fail(op, "splits " + Twine(splits.size()) +
                          " dims of a tensor of rank " + Twine(type.getRank()));
    // Each split dim's (lo, hi), in dim order.
    SmallVector<std::pair<int64_t, int64_t>> dimHalos(splits.size(), {0, 0});
    for (int64_t d = 0, split = 0; d < (int64_t)splits.size(); ++d) {
      if (splits[d].empty())
        continue;
      dimHalos[d] = {halos[2 * split], halos[2 * split + 1]};
      ++split;
      auto [lo, hi] = dimHalos[d];
      if (lo + hi > type.getDimSize(d))
        return fail(op, "has halos of " + Twine(lo) + " and " + Twine(hi) +
                            " rows on dim " + Twine(d) + " of " +
                            Twine(type.getDimSize(d)) + " rows");
    }
    // As upstream's lowering: dims from last to first; the slabs of dim d
    // span the whole extent of the dims after it (exchanged already, so the
    // corners travel) and the block rows of the dims before it.
    Location loc = op.getLoc();
    Value current = op.getDestination();
    auto region = [&](int64_t d, int64_t offset, int64_t count) {
      SmallVector<OpFoldResult> offsets, sizes;
      for (int64_t other = 0; other < type.getRank(); ++other) {
        int64_t start = 0, extent = type.getDimSize(other);
        if (other == d) {
          start = offset;
          extent = count;
        } else if (other < d && other < (int64_t)dimHalos.size()) {
          start = dimHalos[other].first;
          extent -= dimHalos[other].first + dimHalos[other].second;
        }
        offsets.push_back(rewriter.getIndexAttr(start));
        sizes.push_back(rewriter.getIndexAttr(extent));
      }
      return std::pair(offsets, sizes);
    };
    SmallVector<OpFoldResult> unitStrides(type ? type.getRank() : 0,
                                          rewriter.getIndexAttr(1));
    auto extract = [&](int64_t d, int64_t offset, int64_t count) -> Value {
      auto [offsets, sizes] = region(d, offset, count);
      return tensor::ExtractSliceOp::create(rewriter, loc, current, offsets,
                                            sizes, unitStrides);
    };
    auto insert = [&](Value slab, int64_t d, int64_t offset, int64_t count) {
      auto [offsets, sizes] = region(d, offset, count);
      current = tensor::InsertSliceOp::create(rewriter, loc, slab, current,
                                              offsets, sizes, unitStrides);
    };
    for (int64_t d = (int64_t)splits.size() - 1; d >= 0; --d) {
      auto [lo, hi] = dimHalos[d];
      if (splits[d].empty() || (lo == 0 && hi == 0))
        continue;
      FailureOr<ImportedGroup> group = getGroup(op, splits[d].asArrayRef());
      if (failed(group))
        return failure();
      int64_t size = type.getDimSize(d), groupSize = 1;
      for (int64_t axis : group->axisIndices)
        groupSize *= group->gridShape[axis];
      Value index =
          ProcessIndexOp::create(rewriter, loc, group->mesh, group->axes);
      auto atIndex = [&](int64_t i) {
        return arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, index,
            arith::ConstantIndexOp::create(rewriter, loc, i));
      };
      // Both slabs are read before either is written back.
      Value fromPrev, fromNext;
      if (lo)
        fromPrev = buildShift(rewriter, loc, extract(d, size - hi - lo, lo),
                              group->mesh, group->axes, groupSize, 1, 0,
                              OriginAttr());
      if (hi)
        fromNext = buildShift(rewriter, loc, extract(d, lo, hi), group->mesh,
                              group->axes, groupSize, -1, 0, OriginAttr());
      if (lo)
        insert(arith::SelectOp::create(rewriter, loc, atIndex(0),
                                       extract(d, 0, lo), fromPrev),
               d, 0, lo);
      if (hi)
        insert(arith::SelectOp::create(rewriter, loc, atIndex(groupSize - 1),
                                       extract(d, size - hi, hi), fromNext),
               d, size - hi, hi);
    }
    rewriter.replaceOp(op, current);
    return success();
  }
};

/// The linear index over every axis of the grid, in order.
struct ImportProcessLinearIndex
    : public ImportCollective<shard::ProcessLinearIndexOp> {
  using ImportCollective::ImportCollective;
  LogicalResult matchAndRewrite(shard::ProcessLinearIndexOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ImportedGroup> group = getGroup(op, {}, /*allAxesIfEmpty=*/true);
    if (failed(group))
      return failure();
    rewriter.replaceOpWithNewOp<ProcessIndexOp>(op, group->mesh, group->axes);
    return success();
  }
};
} // namespace

/// Imports the collectives and process indices of an already partitioned
/// program. Returns failure after reporting an error.
static LogicalResult importCollectives(ModuleOp module) {
  ImportState state;
  RewritePatternSet patterns(module.getContext());
  patterns.add<ImportAllReduce, ImportReduce, ImportBroadcast, ImportAllGather,
               ImportReduceScatter, ImportAllToAll, ImportAllSlice,
               ImportUpdateHalo, ImportProcessMultiIndex,
               ImportProcessLinearIndex>(
      module.getContext(), state);
  walkAndApplyPatterns(module, std::move(patterns));
  return failure(state.failed);
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
    if (result.wasInterrupted() || failed(importCollectives(module)))
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
        op->emitOpError()
            << "has no dist counterpart; dist-import-shard imports shard.grid, "
               "shard.sharding, shard.shard, the collectives all_reduce, "
               "reduce, broadcast, all_gather, reduce_scatter, all_to_all, "
               "all_slice and update_halo, and process_multi_index / "
               "process_linear_index";
        return signalPassFailure();
      }
    }
  }
};
} // namespace
