//===- DistPartition.cpp - Global program -> per-rank SPMD program --------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"
#include "dist/Interfaces/DataFlowSharding.h"
#include "dist/Interfaces/ShardingRuleInterface.h"
#include "dist/Support/ReshardPlan.h"
#include "dist/Support/AddressOrderKeys.h"
#include "dist/Transforms/FactorAssignment.h"
#include "dist/Transforms/Passes.h"
#include "dist/Transforms/ShardingRuleCache.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/IR/SymbolTable.h"

#define DEBUG_TYPE "dist-partition"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPARTITION
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Whether this rank's index in its group along `axes` of `mesh` is `index`
/// (an i1): the condition of what one rank of the group does alone.
static Value buildIsGroupIndex(OpBuilder &builder, Location loc,
                               FlatSymbolRefAttr mesh, ArrayAttr axes,
                               int64_t index) {
  Value rank = ProcessIndexOp::create(builder, loc, mesh, axes);
  Value wanted = arith::ConstantIndexOp::create(builder, loc, index);
  return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, rank,
                               wanted);
}

/// Rewrites one function.
class FunctionPartitioner {
public:
  FunctionPartitioner(func::FuncOp func, MeshOp mesh,
                      ShardingRuleCache &ruleCache,
                      SymbolTableCollection &symbolTables)
      : func(func), mesh(mesh), builder(func.getContext()),
        ruleCache(ruleCache), symbolTables(symbolTables),
        shardingsName(StringAttr::get(func.getContext(),
                                      DistDialect::getShardingsAttrName())) {}

  LogicalResult run();

private:
  /// A rank as its index along some axes.
  struct BlockOwner {
    SmallVector<StringAttr> axes;
    int64_t index;
  };
  /// The local value of global `value`, resharded to `target` (null:
  /// replicated). Emits the collectives before the builder's insertion point.
  /// The collectives use communicator `comm` of their groups.
  FailureOr<Value> reshard(Value value, ShardingAttr target, Operation *user,
                           uint64_t comm = 0);
  /// The local form of a halo step of a reshard plan on `value` (local),
  /// whose group along the step's axes has `groupSize` ranks.
  Value buildHaloStep(Value value, const meshmath::ReshardStep &step,
                      FlatSymbolRefAttr mesh, int64_t groupSize, uint64_t comm,
                      function_ref<void(Value)> tagCollective);
  /// Partitions `op`, whose local form is built at the builder's insertion
  /// point; an op that does not become its own local form is erased at the
  /// end.
  LogicalResult partitionOp(Operation *op) {
    if (failed(buildLocalForm(op)))
      return failure();
    if (!inPlace.contains(op))
      replaced.push_back(op);
    return success();
  }
  LogicalResult buildLocalForm(Operation *op);
  LogicalResult partitionWithRule(Operation *op, const ShardingRule &rule,
                                  ArrayAttr recorded);
  /// Replaces the padding of the operands of split reduction factors with
  /// padded blocks by the reduction's identity (PaddedReduction::MaskOperands).
  void maskPaddedReductions(Operation *op, const ShardingRule &rule,
                            const FactorAssignment &assignment,
                            MutableArrayRef<Value> localOperands);
  /// Lets `op` compute on owned operands where it is: if its owned operands
  /// share one owner and it splits and reduces nothing along the owner's
  /// axes, its operands are needed (`needed`) and its results made (`made`)
  /// owned by that owner, so non-owners compute on what they hold and only
  /// the owner's results mean anything. Additive ops whose owned operands
  /// have different owners of the same axes take them as partial sums (each
  /// owner's value, zeros elsewhere): the sum is reduced once, later.
  void keepOwnership(Operation *op, const ShardingRule &rule,
                     MutableArrayRef<ShardingAttr> needed,
                     MutableArrayRef<ShardingAttr> made);
  /// The rank, as an index along some axes, whose block of a split dim
  /// holds all that `op` reads or writes of it (the rule's ranged dims):
  /// the operand is then needed as it is, not gathered. A read's results
  /// are made owned by that rank; a write (an insert into one rank's rows of
  /// a packed buffer) takes its source owned by that rank, keeps the split,
  /// and is run by that rank alone (the caller guards it).
  /// Whether this rank is `owner` (an i1, built at the builder).
  Value buildIsOwner(Location loc, const BlockOwner &owner) {
    return buildIsGroupIndex(
        builder, loc, FlatSymbolRefAttr::get(mesh.getSymNameAttr()),
        builder.getStrArrayAttr(llvm::map_to_vector(
            owner.axes, [](StringAttr a) { return a.getValue(); })),
        owner.index);
  }
  std::optional<BlockOwner> keepRangedDims(Operation *op,
                                           const ShardingRule &rule,
                                           MutableArrayRef<ShardingAttr> needed,
                                           MutableArrayRef<ShardingAttr> made);
  /// An edge that only the regions' terminators feed and that defines only
  /// `op`'s results (a branch's results, not a loop's) stays owned where
  /// every value flowing in is owned by one owner: the branch of gradient
  /// merge that does not update forwards the owned state as it is.
  void keepEdgeOwnership(Operation *op, ArrayRef<DataFlowEdge> edges,
                         MutableArrayRef<ShardingAttr> layouts,
                         DenseMap<OpOperand *, ShardingAttr> &sourceLayouts);
  LogicalResult partitionReplicated(Operation *op);
  LogicalResult partitionReturn(func::ReturnOp op);
  /// A data-flow op (scf.for, scf.if, func.call, ...), in place: the values
  /// flowing into each edge are resharded to the edge's layout, the values
  /// it defines take their local types, and its regions' ops are
  /// partitioned where they are.
  LogicalResult partitionDataFlow(DataFlowShardingOpInterface dataFlow);
  /// Consumers of `result` expect the layout propagation recorded for it:
  /// reshards its local value there if it was made in another (null: keep).
  LogicalResult ensureRecordedLayout(Value result, ShardingAttr expected,
                                     Operation *op) {
    // Propagation records no owners: an owned value in the recorded layout
    // stays owned, its users reshard it as they need.
    if (!expected || expected == shardingOf(result).withoutOwner())
      return success();
    FailureOr<Value> fixed = reshard(result, expected, op);
    if (failed(fixed))
      return failure();
    locals.map(result, *fixed);
    globals[result].layout = expected;
    return success();
  }
  /// Rewrites the values `op`'s regions capture (read inside, defined
  /// outside) to their local values; captured tensors become whole local
  /// copies, as the body indexes them globally.
  LogicalResult localizeCapturedValues(Operation *op);
  /// `op` has become its own local form: it moves to the builder's insertion
  /// point (from a loop body being rebuilt) and what follows is built after
  /// it.
  void keepInPlace(Operation *op);

  ShardingAttr replicated(Type type) {
    return getReplicated(FlatSymbolRefAttr::get(mesh.getSymNameAttr()),
                         cast<RankedTensorType>(type).getRank());
  }
  ShardingAttr shardingOf(Value global) {
    GlobalInfo info = infoOf(global);
    return info.layout ? info.layout : replicated(info.type);
  }
  ArrayAttr axisNames(const meshmath::AxisList &axes);
  meshmath::Layout toLayout(ShardingAttr sharding);

  func::FuncOp func;
  MeshOp mesh;
  OpBuilder builder;
  /// Global value -> its local value.
  IRMapping locals;
  /// What partitioning knows of a global value besides its local value: the
  /// layout of that local value (null: replicated), and the global type where
  /// the value itself now has the local one (arguments, results of ops
  /// rewritten in place). One record, so that a value costs one probe.
  struct GlobalInfo {
    ShardingAttr layout;
    Type type;
  };
  ValueMap<GlobalInfo> globals;
  /// Each op's rule, read on the global program before any type changes.
  ShardingRuleCache &ruleCache;
  SymbolTableCollection &symbolTables;
  StringAttr shardingsName;
  /// Ops that became their own local form (the others are erased at the
  /// end).
  OpSet inPlace;
  /// The others, in program order.
  SmallVector<Operation *> replaced;
  /// Local ops whose results mean something on one rank only (all owned by
  /// one index along some axes; side-effect free), with that owner; and the
  /// guards of writes into one rank's block (`ownerWrites`).
  llvm::DenseMap<Operation *, BlockOwner> ownedOps;
  llvm::SmallPtrSet<Operation *, 8> ownerWrites;
  /// Moves the owned ops of each block into one `scf.if` per owner that runs
  /// on that owner alone (the others compute, and allocate, nothing of it):
  /// the ops whose every use is owned by the same owner or comes after the
  /// last of them. The values that leave the `scf.if` are empty tensors on
  /// the other ranks (an owned value holds anything there), except the
  /// guarded writes', which keep what was there.
  void guardOwnedOps(Block &block);
  /// Guards `run`, owned ops of `block` in order, after the last of them.
  void guardRun(Block &block, const BlockOwner &owner,
                ArrayRef<Operation *> run);
  /// The record of `value`, with its own type as the global one unless the
  /// record says otherwise.
  GlobalInfo infoOf(Value value) {
    GlobalInfo info = globals.lookup(value);
    if (!info.type)
      info.type = value.getType();
    return info;
  }
  Type globalType(Value value) { return infoOf(value).type; }
};

} // namespace

static ShardingAttr getBoundarySharding(DictionaryAttr attrs) {
  return attrs ? dyn_cast_or_null<ShardingAttr>(
                     attrs.get(DistDialect::getShardingAttrName()))
               : ShardingAttr();
}

ArrayAttr FunctionPartitioner::axisNames(const meshmath::AxisList &axes) {
  SmallVector<Attribute> names;
  for (int64_t axis : axes)
    names.push_back(mesh.getAxisNames()[axis]);
  return builder.getArrayAttr(names);
}

meshmath::Layout FunctionPartitioner::toLayout(ShardingAttr sharding) {
  return getLayout(sharding, mesh);
}

/// True if the global value `value` is all zeros (a zero fill or constant):
/// zeros are already a partial sum over any axes.
static bool isZeroTensor(Value value) {
  if (auto fill = value.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.value(), m_AnyZeroFloat()) ||
           matchPattern(fill.value(), m_Zero());
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

Value FunctionPartitioner::buildHaloStep(
    Value value, const meshmath::ReshardStep &step, FlatSymbolRefAttr meshName,
    int64_t groupSize, uint64_t comm, function_ref<void(Value)> tagCollective) {
  Location loc = value.getLoc();
  auto type = cast<RankedTensorType>(value.getType());
  int64_t dim = step.dim, rows = type.getDimSize(dim);
  const meshmath::Halo &halo = step.halo;
  StringRef meshRef = meshName.getValue();
  ArrayAttr axes = axisNames(step.axes);
  auto origin = OriginAttr::get(builder.getContext(), Origin::reshard);
  auto concat = [&](ArrayRef<Value> parts) {
    return tensor::ConcatOp::create(builder, loc, dim, parts).getResult();
  };
  switch (step.kind) {
  case meshmath::ReshardStep::DropHalo:
    return buildDimSlice(builder, loc, value, dim, builder.getIndexAttr(halo.lo),
                    rows - halo.lo - halo.hi);
  case meshmath::ReshardStep::ExchangeHalo: {
    // Each rank sends its first `hi` rows back and its last `lo` rows on;
    // the ranks at the ends receive nothing, which reads as zeros.
    auto shift = [&](Value part, int64_t by) {
      Value moved = buildShift(builder, loc, part, meshName, axes, groupSize,
                               by, comm, origin);
      if (isa_and_nonnull<PermuteOp>(moved.getDefiningOp()))
        tagCollective(moved);
      return moved;
    };
    SmallVector<Value> parts;
    if (halo.lo)
      parts.push_back(shift(buildDimSlice(builder, loc, value, dim,
                                     builder.getIndexAttr(rows - halo.lo),
                                     halo.lo),
                            1));
    parts.push_back(value);
    if (halo.hi)
      parts.push_back(shift(
          buildDimSlice(builder, loc, value, dim, builder.getIndexAttr(0), halo.hi),
          -1));
    return parts.size() == 1 ? value : concat(parts);
  }
  case meshmath::ReshardStep::SliceOverlap: {
    int64_t block = (rows - halo.overlap) / groupSize;
    Value offset = buildBlockOffset(
        builder, loc, meshName,
        llvm::to_vector(axes.getAsRange<StringAttr>()), block);
    return buildDimSlice(builder, loc, value, dim, offset, block + halo.overlap);
  }
  case meshmath::ReshardStep::GatherOverlap: {
    // The blocks without their overlap, then the last block's overlap rows
    // (the end of the dim), which only the group's last rank holds.
    int64_t block = rows - halo.overlap;
    Value core =
        buildDimSlice(builder, loc, value, dim, builder.getIndexAttr(0), block);
    auto coreType = cast<RankedTensorType>(core.getType());
    SmallVector<int64_t> shape(coreType.getShape());
    shape[dim] = block * groupSize;
    Value gathered =
        AllGatherOp::create(builder, loc, coreType.clone(shape),
                            /*token=*/Type(), core, meshRef, axes, comm,
                            origin, dim)
            .getResult();
    tagCollective(gathered);
    Value tail = buildDimSlice(builder, loc, value, dim,
                          builder.getIndexAttr(block), halo.overlap);
    Value end = BroadcastOp::create(builder, loc, TypeRange{tail.getType()},
                                    /*token=*/Type(), ValueRange{tail}, meshRef,
                                    axes, comm, origin, groupSize - 1)
                    .getResult(0);
    tagCollective(end);
    return concat({gathered, end});
  }
  case meshmath::ReshardStep::OverlapToBlock:
  case meshmath::ReshardStep::HaloToOverlap: {
    // Blocks of the two splits start e / k rows apart per group index.
    int64_t shift = halo.overlap / groupSize;
    Value offset = buildBlockOffset(
        builder, loc, meshName,
        llvm::to_vector(axes.getAsRange<StringAttr>()), shift);
    if (step.kind == meshmath::ReshardStep::OverlapToBlock)
      return buildDimSlice(builder, loc, value, dim, offset,
                           rows - halo.overlap + shift);
    int64_t haloRows = (groupSize - 1) * shift;
    Value start = arith::SubIOp::create(
        builder, loc, arith::ConstantIndexOp::create(builder, loc, haloRows),
        offset);
    return buildDimSlice(builder, loc, value, dim, start,
                         rows - 2 * haloRows - shift + halo.overlap);
  }
  default:
    llvm_unreachable("not a halo step");
  }
}

FailureOr<Value> FunctionPartitioner::reshard(Value global, ShardingAttr target,
                                              Operation *user, uint64_t comm) {
  Value value = locals.lookup(global);
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return value;
  ShardingAttr source = shardingOf(global);
  if (!target)
    target = replicated(type);
  if (source == target)
    return value;
  if (source.getMesh() != target.getMesh()) {
    InFlightDiagnostic diag = user->emitOpError()
                              << "needs an operand on mesh " << target.getMesh()
                              << " that is laid out on mesh "
                              << source.getMesh()
                              << "; resharding between meshes is not supported";
    diag.attachNote(global.getLoc())
        << "value laid out as " << source << ", needed as " << target;
    return diag;
  }

  Location loc = global.getLoc();
  StringRef meshRef = target.getMesh().getValue();
  // Every collective made here records why it exists, and takes the role of
  // the op that produced the value (a partial value made by backward ops is
  // a gradient: its reduction is a gradient reduction).
  auto partialOrigin = OriginAttr::get(builder.getContext(), Origin::partial);
  auto reshardOrigin = OriginAttr::get(builder.getContext(), Origin::reshard);
  Attribute role;
  if (Operation *producer = global.getDefiningOp())
    role = producer->getDiscardableAttr(DistDialect::getRoleAttrName());
  auto tagCollective = [&](Value result) {
    if (role)
      result.getDefiningOp()->setDiscardableAttr(DistDialect::getRoleAttrName(),
                                                 role);
  };
  // Uneven dims: the plan pads a dim before splitting it into padded blocks
  // (with zeros, which are also a partial sum) and crops one left whole.
  meshmath::Shape meshShape = getMeshShape(mesh);
  auto globalTensor = cast<RankedTensorType>(globalType(global));
  auto padDim = [&](int64_t dim, int64_t size) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> high(type.getRank(), 0), low(type.getRank(), 0),
        shape(type.getShape());
    high[dim] = size - shape[dim];
    shape[dim] = size;
    // Padding holds anything: a splat stays a splat (its blocks then fold to
    // local constants).
    SplatElementsAttr splat;
    if (matchPattern(value, m_Constant(&splat))) {
      value = arith::ConstantOp::create(builder, loc,
                                        splat.resizeSplat(type.clone(shape)));
      return;
    }
    auto pad = tensor::PadOp::create(builder, loc, type.clone(shape), value,
                                     low, high, ValueRange{}, ValueRange{});
    OpBuilder::InsertionGuard guard(builder);
    Block *body = builder.createBlock(&pad.getRegion());
    for (int64_t d = 0; d < type.getRank(); ++d)
      body->addArgument(builder.getIndexType(), loc);
    Value zero = arith::ConstantOp::create(
        builder, loc,
        getReductionIdentity(type.getElementType(), ReductionKind::sum));
    tensor::YieldOp::create(builder, loc, zero);
    value = pad.getResult();
  };
  auto cropDim = [&](int64_t dim, int64_t size) {
    value = buildDimSlice(builder, loc, value, dim, builder.getIndexAttr(0),
                          size);
  };
  for (const meshmath::ReshardStep &step : meshmath::planReshard(
           toLayout(source), toLayout(target),
           meshmath::Shape(globalTensor.getShape()), meshShape)) {
    if (step.padTo >= 0) {
      Type element = cast<RankedTensorType>(value.getType()).getElementType();
      if (!element.isIntOrIndexOrFloat()) {
        InFlightDiagnostic diag = user->emitOpError()
                                  << "cannot pad an operand of element type "
                                  << element << " for an uneven split";
        diag.attachNote(loc) << "value laid out as " << source
                             << ", needed as " << target;
        return diag;
      }
      padDim(step.dim, step.padTo);
    }
    ArrayAttr axes = axisNames(step.axes);
    int64_t groupSize = meshmath::groupSize(meshShape, step.axes);
    auto kind = static_cast<ReductionKind>(step.reduction);
    RankedTensorType current = cast<RankedTensorType>(value.getType());
    auto resized = [&](int64_t dim, bool multiply) {
      SmallVector<int64_t> shape(current.getShape());
      if (!ShapedType::isDynamic(shape[dim]))
        shape[dim] = multiply ? shape[dim] * groupSize : shape[dim] / groupSize;
      return current.clone(shape);
    };
    switch (step.kind) {
    case meshmath::ReshardStep::AllReduce:
      value = AllReduceOp::create(builder, loc, TypeRange{current},
                                  /*token=*/Type(), ValueRange{value}, meshRef,
                                  axes, comm, partialOrigin, kind)
                  .getResult(0);
      tagCollective(value);
      break;
    case meshmath::ReshardStep::ReduceScatter:
      value = ReduceScatterOp::create(builder, loc, resized(step.dim, false),
                                      /*token=*/Type(), value, meshRef, axes,
                                      comm, partialOrigin, kind,
                                      step.dim)
                  .getResult();
      tagCollective(value);
      break;
    case meshmath::ReshardStep::AllGather:
      value = AllGatherOp::create(builder, loc, resized(step.dim, true),
                                  /*token=*/Type(), value, meshRef, axes,
                                  comm, reshardOrigin, step.dim)
                  .getResult();
      tagCollective(value);
      if (step.cropTo >= 0)
        cropDim(step.dim, step.cropTo);
      break;
    case meshmath::ReshardStep::AllToAll: {
      RankedTensorType split = resized(step.dim, false);
      SmallVector<int64_t> shape(split.getShape());
      if (!ShapedType::isDynamic(shape[step.concatDim]))
        shape[step.concatDim] *= groupSize;
      value = AllToAllOp::create(builder, loc, split.clone(shape),
                                 /*token=*/Type(), value, meshRef, axes,
                                 comm, reshardOrigin, step.dim,
                                 step.concatDim)
                  .getResult();
      tagCollective(value);
      if (step.cropTo >= 0)
        cropDim(step.concatDim, step.cropTo);
      break;
    }
    case meshmath::ReshardStep::Slice: {
      int64_t size = current.getDimSize(step.dim);
      if (ShapedType::isDynamic(size)) {
        InFlightDiagnostic diag =
            user->emitOpError()
            << "needs dim " << step.dim << " of an operand split, but its size "
            << "is dynamic (splitting a dynamic dim is not supported)";
        diag.attachNote(loc) << "value laid out as " << source
                             << ", needed as " << target;
        return diag;
      }
      if (llvm::any_of(current.getShape(), ShapedType::isDynamic)) {
        InFlightDiagnostic diag = user->emitOpError()
                                  << "cannot slice an operand with dynamic dims";
        diag.attachNote(loc) << "value laid out as " << source
                             << ", needed as " << target;
        return diag;
      }
      int64_t local = size / groupSize;
      Value offset = buildBlockOffset(
          builder, loc, target.getMesh(),
          llvm::to_vector(axes.getAsRange<StringAttr>()), local);
      value = buildDimSlice(builder, loc, value, step.dim, offset, local);
      break;
    }
    case meshmath::ReshardStep::Reduce:
      value = ReduceOp::create(builder, loc, TypeRange{current},
                               /*token=*/Type(), ValueRange{value}, meshRef,
                               axes, comm, partialOrigin, kind, step.root)
                  .getResult(0);
      tagCollective(value);
      break;
    case meshmath::ReshardStep::Broadcast:
      value = BroadcastOp::create(builder, loc, TypeRange{current},
                                  /*token=*/Type(), ValueRange{value}, meshRef,
                                  axes, comm, reshardOrigin, step.root)
                  .getResult(0);
      tagCollective(value);
      break;
    case meshmath::ReshardStep::Own:
      break;
    case meshmath::ReshardStep::DropHalo:
    case meshmath::ReshardStep::ExchangeHalo:
    case meshmath::ReshardStep::SliceOverlap:
    case meshmath::ReshardStep::GatherOverlap:
    case meshmath::ReshardStep::OverlapToBlock:
    case meshmath::ReshardStep::HaloToOverlap: {
      if (!current.hasStaticShape() ||
          !current.getElementType().isIntOrIndexOrFloat()) {
        InFlightDiagnostic diag =
            user->emitOpError()
            << "needs a halo or overlap on an operand of type " << current
            << "; halos need static shapes and integer or float elements";
        diag.attachNote(loc) << "value laid out as " << source
                             << ", needed as " << target;
        return diag;
      }
      value = buildHaloStep(value, step, target.getMesh(), groupSize, comm,
                            tagCollective);
      break;
    }
    case meshmath::ReshardStep::MakePartial: {
      // max, min and avg of equal copies are the value itself; zeros sum to
      // zero. Ranks that do not own a value hold anything: always masked.
      if (!step.fromOwner &&
          ((kind != ReductionKind::sum && kind != ReductionKind::prod) ||
           (kind == ReductionKind::sum && isZeroTensor(global))))
        break;
      Value isFirst = buildIsGroupIndex(
          builder, loc, FlatSymbolRefAttr::get(builder.getContext(), meshRef),
          axes, step.root);
      if (!current.getElementType().isIntOrIndexOrFloat()) {
        InFlightDiagnostic diag = user->emitOpError()
                                  << "cannot make an operand of element type "
                                  << current.getElementType() << " partial";
        diag.attachNote(loc) << "value laid out as " << source
                             << ", needed as " << target;
        return diag;
      }
      if (!current.hasStaticShape()) {
        InFlightDiagnostic diag = user->emitOpError()
                                  << "cannot make an operand with dynamic dims "
                                     "partial";
        diag.attachNote(loc) << "value laid out as " << source
                             << ", needed as " << target;
        return diag;
      }
      // The owner's value is one of the parts: the others hold the identity
      // (-inf for a max, not 0).
      Value identity = arith::ConstantOp::create(
          builder, loc,
          DenseElementsAttr::get(
              current, cast<Attribute>(getReductionIdentity(
                           current.getElementType(), kind))));
      value = arith::SelectOp::create(builder, loc, isFirst, value, identity);
      break;
    }
    }
  }
  return value;
}

/// The layout `dist-propagate` recorded for result `index` of `op`, if any.
static ShardingAttr getRecordedLayout(Operation *op, unsigned index) {
  auto recorded = op->getAttrOfType<ArrayAttr>(DistDialect::getShardingsAttrName());
  return recorded ? dyn_cast<ShardingAttr>(recorded[index]) : ShardingAttr();
}

LogicalResult FunctionPartitioner::localizeCapturedValues(Operation *op) {
  if (op->getNumRegions() == 0)
    return success();
  // Values defined inside `op` are never mapped: only captured values are.
  DenseMap<Value, Value> wholeCopies;
  WalkResult walk = op->walk([&](Operation *inner) {
    if (inner == op)
      return WalkResult::advance();
    for (OpOperand &use : inner->getOpOperands()) {
      Value global = use.get();
      Value local = locals.lookupOrNull(global);
      if (!local)
        continue;
      if (isa<RankedTensorType>(global.getType())) {
        Value &whole = wholeCopies[global];
        if (!whole) {
          FailureOr<Value> copy = reshard(global, ShardingAttr(), op);
          if (failed(copy))
            return WalkResult::interrupt();
          whole = *copy;
        }
        local = whole;
      }
      if (local != global)
        use.set(local);
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

void FunctionPartitioner::keepInPlace(Operation *op) {
  inPlace.insert(op);
  if (op->getBlock() != builder.getInsertionBlock())
    op->moveBefore(builder.getInsertionBlock(), builder.getInsertionPoint());
  builder.setInsertionPointAfter(op);
}

LogicalResult FunctionPartitioner::partitionWithRule(Operation *op,
                                                     const ShardingRule &rule,
                                                     ArrayAttr recorded) {
  // The op's results keep the layouts propagation recorded (they rank first);
  // operands come as they are.
  SmallVector<TensorInfo> operands, results;
  for (Value operand : op->getOperands()) {
    TensorInfo info;
    if (auto type = dyn_cast<RankedTensorType>(globalType(operand))) {
      info.isTensor = true;
      info.sharding = shardingOf(operand);
      info.numElements = type.hasStaticShape() ? type.getNumElements() : 0;
    }
    operands.push_back(info);
  }
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    TensorInfo info;
    if (isa<RankedTensorType>(result.getType())) {
      info.isTensor = true;
      info.isUserFixed = true;
      info.sharding = cast<ShardingAttr>(recorded[i]);
    }
    results.push_back(info);
  }
  // An additive op that propagation left partial keeps its partial inputs
  // pending with the others masked (a loop accumulator whose loop does not
  // carry the partial state, say).
  if (rule.partialPolicy == PartialPolicy::Additive && !results.empty() &&
      results[0].sharding && results[0].sharding.isPartial())
    for (TensorInfo &info : operands)
      info.mayBecomePartial = info.isTensor;
  std::optional<FactorAssignment> assignment =
      decideFactors(rule, operands, results, mesh, /*extend=*/false);
  if (!assignment)
    return partitionReplicated(op);

  // Layouts from the factors; ownership is decided separately.
  auto unowned = [](ShardingAttr s) { return s ? s.withoutOwner() : s; };
  SmallVector<ShardingAttr> neededLayouts, made;
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    neededLayouts.push_back(
        unowned(projectOperand(rule, *assignment, operands, i)));
  for (auto [i, result] : llvm::enumerate(op->getResults()))
    made.push_back(isa<RankedTensorType>(result.getType())
                       ? unowned(projectResult(rule, *assignment, i,
                                               results[i].sharding))
                       : ShardingAttr());
  keepOwnership(op, rule, neededLayouts, made);
  std::optional<BlockOwner> blockOwner =
      keepRangedDims(op, rule, neededLayouts, made);

  SmallVector<Value> newOperands;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    ShardingAttr needed = neededLayouts[i];
    // An operand the op only overwrites needs the right shape, not its data.
    if (rule.operandIsInitOnly[i] && needed && shardingOf(operand) != needed) {
      auto type = cast<RankedTensorType>(globalType(operand));
      FailureOr<RankedTensorType> localType = getLocalType(type, needed, mesh);
      if (succeeded(localType) && localType->hasStaticShape()) {
        newOperands.push_back(tensor::EmptyOp::create(
            builder, operand.getLoc(), localType->getShape(),
            localType->getElementType()));
        continue;
      }
    }
    FailureOr<Value> local = reshard(operand, needed, op);
    if (failed(local))
      return failure();
    newOperands.push_back(*local);
  }
  if (rule.paddedReduction == PaddedReduction::MaskOperands)
    maskPaddedReductions(op, rule, *assignment, newOperands);
  SmallVector<Type> localTypes;
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type) {
      localTypes.push_back(result.getType());
      continue;
    }
    FailureOr<RankedTensorType> localType = getLocalType(type, made[i], mesh);
    if (failed(localType))
      return op->emitOpError() << "result " << i << " of type " << type
                               << " cannot be laid out as " << made[i];
    localTypes.push_back(*localType);
  }
  if (failed(localizeCapturedValues(op)))
    return failure();
  auto groupSize = [&](ArrayRef<StringAttr> axes) {
    return mesh.getGroupSize(axes);
  };
  // Looked up only if the local form asks (the op's operands are replaced by
  // local ones as it is rebuilt).
  SmallVector<Value> globalOperands(op->getOperands());
  auto globalOperandType = [&](unsigned i) {
    return globalType(globalOperands[i]);
  };
  FactorSplits splits{assignment->mesh, assignment->factorAxes, groupSize,
                      rule.factors, globalOperandType};
  SmallVector<Type> globalResultTypes(op->getResultTypes());
  // A write into one rank's block runs on that rank; the others keep their
  // block as it is.
  scf::IfOp guard;
  if (blockOwner && rule.writesRangedDims) {
    Location loc = op->getLoc();
    guard = scf::IfOp::create(builder, loc, localTypes,
                              buildIsOwner(loc, *blockOwner),
                              /*withElseRegion=*/true);
    builder.setInsertionPointToStart(guard.elseBlock());
    scf::YieldOp::create(builder, loc,
                         newOperands[rule.rangedDims.front().operand]);
    builder.setInsertionPointToStart(guard.thenBlock());
  }
  FailureOr<Operation *> local = cast<ShardingRuleOpInterface>(op).buildLocalOp(
      builder, locals, newOperands, localTypes, splits);
  if (failed(local))
    return failure(); // the rule's model said why
  (*local)->removeAttr(shardingsName);
  // A rebuilt op keeps its role in the training step.
  Attribute role = op->getDiscardableAttr(DistDialect::getRoleAttrName());
  if (role)
    (*local)->setDiscardableAttr(DistDialect::getRoleAttrName(), role);
  if (guard) {
    if (*local == op)
      return op->emitOpError()
             << "writes one rank's block of a split operand and must be "
                "rebuilt to run on that rank alone";
    scf::YieldOp::create(builder, op->getLoc(), (*local)->getResults());
    builder.setInsertionPointAfter(guard);
    if (role)
      guard->setDiscardableAttr(DistDialect::getRoleAttrName(), role);
    local = guard.getOperation();
    ownedOps[guard] = *blockOwner;
    ownerWrites.insert(guard);
  } else if (isMemoryEffectFree(*local)) {
    // Results all owned by one owner: only that rank needs to compute them.
    std::optional<BlockOwner> owner;
    bool allOwned = !made.empty();
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      ShardingAttr s = made[i];
      if (!isa<RankedTensorType>(result.getType()) || !s || !s.isOwned() ||
          (owner && (s.getOwnerAxes() != ArrayRef<StringAttr>(owner->axes) ||
                     s.getOwner() != owner->index))) {
        allOwned = false;
        break;
      }
      owner = BlockOwner{SmallVector<StringAttr>(s.getOwnerAxes()), s.getOwner()};
    }
    if (allOwned && owner)
      ownedOps[*local] = *owner;
  }
  if (*local == op) {
    keepInPlace(op);
    for (auto [result, type] : llvm::zip(op->getResults(), globalResultTypes))
      if (result.getType() != type)
        globals[result].type = type;
  }
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    locals.map(result, (*local)->getResult(i));
    if (!made[i])
      continue;
    globals[result].layout = made[i];
    if (failed(ensureRecordedLayout(result, cast<ShardingAttr>(recorded[i]), op)))
      return failure();
  }
  return success();
}

void FunctionPartitioner::maskPaddedReductions(
    Operation *op, const ShardingRule &rule, const FactorAssignment &assignment,
    MutableArrayRef<Value> localOperands) {
  for (auto [f, factor] : llvm::enumerate(rule.factors)) {
    ArrayRef<StringAttr> axes = assignment.factorAxes[f];
    if (factor.kind != FactorKind::Reduction || axes.empty() ||
        !meshmath::isPaddedSplit(factor.size, mesh.getGroupSize(axes)))
      continue;
    for (auto [i, dims] : llvm::enumerate(rule.operandDims)) {
      if (rule.operandIsInitOnly[i] || rule.operandIsAccumulator[i])
        continue;
      for (auto [d, dimFactor] : llvm::enumerate(dims)) {
        if (dimFactor != (int64_t)f)
          continue;
        Value &local = localOperands[i];
        Type element = cast<RankedTensorType>(local.getType()).getElementType();
        local = maskPadding(builder, op->getLoc(), local, d, assignment.mesh,
                            axes, factor.size,
                            getReductionIdentity(element, factor.reduction));
      }
    }
  }
}

/// True if `sharding` splits a dim by, or is partial over, one of `axes`.
static bool usesAnyAxis(ShardingAttr sharding, ArrayRef<StringAttr> axes) {
  if (!sharding)
    return false;
  auto uses = [&](ArrayRef<StringAttr> list) {
    return llvm::any_of(list, [&](StringAttr a) { return llvm::is_contained(axes, a); });
  };
  return uses(sharding.getPartialAxes()) ||
         llvm::any_of(sharding.getDims(),
                      [&](DimShardingAttr dim) { return uses(dim.getAxes()); });
}

void FunctionPartitioner::keepOwnership(Operation *op, const ShardingRule &rule,
                                        MutableArrayRef<ShardingAttr> needed,
                                        MutableArrayRef<ShardingAttr> made) {
  ShardingAttr first;
  bool sameOwner = true;
  for (Value operand : op->getOperands()) {
    if (!isa<RankedTensorType>(globalType(operand)))
      continue;
    ShardingAttr s = shardingOf(operand);
    if (!s.isOwned())
      continue;
    if (!first)
      first = s;
    else if (s.getOwnerAxes() != first.getOwnerAxes())
      return; // owners along other axes: broadcast
    else if (s.getOwner() != first.getOwner())
      sameOwner = false;
  }
  // A scalar result has no layout to say that only the owner's is right
  // (a flag read from an owned tensor would steer other ranks' branches):
  // such an op takes its operands replicated.
  if (!first || llvm::any_of(op->getResultTypes(), [](Type type) {
        return !isa<RankedTensorType>(type);
      }))
    return;
  ArrayRef<StringAttr> axes = first.getOwnerAxes();
  if (llvm::any_of(needed, [&](ShardingAttr s) { return usesAnyAxis(s, axes); }) ||
      llvm::any_of(made, [&](ShardingAttr s) { return usesAnyAxis(s, axes); }))
    return;
  // Halos are never owned or partial: a stencil takes its operands from
  // every rank (the owner broadcasts).
  auto hasHalos = [](ShardingAttr s) { return s && s.hasHalos(); };
  if (llvm::any_of(needed, hasHalos) || llvm::any_of(made, hasHalos))
    return;
  auto withDefault = [&](ShardingAttr s, unsigned i) {
    return s ? s : replicated(globalType(op->getOperand(i)));
  };
  if (sameOwner) {
    for (auto [i, s] : llvm::enumerate(needed))
      if (isa<RankedTensorType>(globalType(op->getOperand(i))))
        s = withDefault(s, i).withOwner(axes, first.getOwner());
    for (ShardingAttr &s : made)
      if (s)
        s = s.withOwner(axes, first.getOwner());
    return;
  }
  // Different owners: partial sums, where the op adds its operands and
  // what is pending is a sum too (ranks other than an operand's owner then
  // hold zeros of it, made by masking).
  auto pendingOther = [](ShardingAttr s) {
    return s && s.isPartial() && s.getPartialKind() != ReductionKind::sum;
  };
  if (rule.partialPolicy != PartialPolicy::Additive ||
      llvm::any_of(needed, pendingOther) || llvm::any_of(made, pendingOther))
    return;
  auto partialSum = [&](ShardingAttr s) {
    SmallVector<StringAttr> partial(s.getPartialAxes());
    llvm::append_range(partial, axes);
    return ShardingAttr::get(s.getMesh(), s.getDims(), partial,
                             ReductionKind::sum);
  };
  for (auto [i, s] : llvm::enumerate(needed))
    if (isa<RankedTensorType>(globalType(op->getOperand(i))))
      s = partialSum(withDefault(s, i));
  for (ShardingAttr &s : made)
    if (s)
      s = partialSum(s);
}

std::optional<FunctionPartitioner::BlockOwner>
FunctionPartitioner::keepRangedDims(Operation *op, const ShardingRule &rule,
                                    MutableArrayRef<ShardingAttr> needed,
                                    MutableArrayRef<ShardingAttr> made) {
  if (rule.rangedDims.empty() || op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return std::nullopt;
  unsigned operand = rule.rangedDims.front().operand;
  Value ranged = op->getOperand(operand);
  auto type = dyn_cast<RankedTensorType>(globalType(ranged));
  ShardingAttr current = shardingOf(ranged);
  if (!type || current.isPartial() || current.isOwned() || current.hasHalos())
    return std::nullopt;
  // Exactly one split ranged dim, its range inside one even block.
  std::optional<BlockOwner> owner;
  int64_t splitDim = -1;
  for (const ShardingRule::RangedDim &range : rule.rangedDims) {
    ArrayRef<StringAttr> axes = current.getDimAxes(range.dim);
    if (range.operand != operand || axes.empty())
      continue;
    int64_t size = type.getDimSize(range.dim);
    int64_t groupSize = mesh.getGroupSize(axes);
    if (owner || ShapedType::isDynamic(size) || size % groupSize ||
        range.size < 1)
      return std::nullopt;
    int64_t block = size / groupSize;
    if (range.offset / block != (range.offset + range.size - 1) / block)
      return std::nullopt;
    owner = BlockOwner{SmallVector<StringAttr>(axes), range.offset / block};
    splitDim = range.dim;
  }
  if (!owner)
    return std::nullopt;
  // The ranged operand as it is along the split dim.
  auto unowned = [&](ShardingAttr s, unsigned i) {
    return s ? s.withoutOwner() : replicated(globalType(op->getOperand(i)));
  };
  ShardingAttr need = unowned(needed[operand], operand);
  SmallVector<DimShardingAttr> dims(need.getDims());
  if (usesAnyAxis(need, owner->axes))
    return std::nullopt;
  dims[splitDim] = current.getDims()[splitDim];
  need = ShardingAttr::get(need.getMesh(), dims, need.getPartialAxes(),
                           need.getPartialKind());
  ShardingAttr result = made[0] ? made[0].withoutOwner()
                                 : replicated(op->getResult(0).getType());
  if (!rule.writesRangedDims) {
    if (usesAnyAxis(result, owner->axes))
      return std::nullopt;
    needed[operand] = need;
    made[0] = result.withOwner(owner->axes, owner->index);
    return owner;
  }
  // A write: the source comes from the owner, the result keeps the split.
  for (auto [i, s] : llvm::enumerate(needed)) {
    if (i == operand || !isa<RankedTensorType>(globalType(op->getOperand(i))))
      continue;
    ShardingAttr source = unowned(s, i);
    if (usesAnyAxis(source, owner->axes))
      return std::nullopt;
    s = source.withOwner(owner->axes, owner->index);
  }
  needed[operand] = need;
  made[0] = need;
  return owner;
}

void FunctionPartitioner::guardOwnedOps(Block &block) {
  // The owned ops of the block by owner, in block order.
  SmallVector<std::pair<BlockOwner, SmallVector<Operation *>>> groups;
  for (Operation &op : block) {
    auto it = ownedOps.find(&op);
    if (it == ownedOps.end())
      continue;
    auto group = llvm::find_if(groups, [&](const auto &g) {
      return g.first.axes == it->second.axes && g.first.index == it->second.index;
    });
    if (group == groups.end()) {
      groups.push_back({it->second, {}});
      group = std::prev(groups.end());
    }
    group->second.push_back(&op);
  }
  for (auto &[owner, ops] : groups) {
    // Consecutive runs of them, each guarded after its last op: an op joins
    // the run unless an op left in place before it uses the run's values.
    llvm::DenseMap<Operation *, unsigned> position;
    for (auto [i, op] : llvm::enumerate(block))
      position[&op] = i;
    llvm::SmallPtrSet<Operation *, 16> owned(ops.begin(), ops.end());
    auto deadline = [&](Operation *op) {
      unsigned first = ~0u;
      for (Operation *user : op->getUsers())
        if (Operation *top = block.findAncestorOpInBlock(*user);
            top && !owned.contains(top))
          first = std::min(first, position[top]);
      return first;
    };
    SmallVector<SmallVector<Operation *>> runs;
    unsigned runDeadline = 0;
    for (Operation *op : ops) {
      if (runs.empty() || position[op] >= runDeadline) {
        runs.emplace_back();
        runDeadline = ~0u;
      }
      runs.back().push_back(op);
      runDeadline = std::min(runDeadline, deadline(op));
    }
    for (ArrayRef<Operation *> run : runs)
      guardRun(block, owner, run);
  }
}

void FunctionPartitioner::guardRun(Block &block, const BlockOwner &owner,
                                   ArrayRef<Operation *> run) {
  llvm::SetVector<Operation *> guarded(run.begin(), run.end());
  // A run of views (a read of a packed row, reshapes) and writes that are
  // guarded already computes nothing to save.
  if (llvm::all_of(run, [&](Operation *op) {
        return ownerWrites.contains(op) || isa<ViewLikeOpInterface>(op) ||
               isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                   tensor::ExtractSliceOp>(op);
      }))
    return;
  // What leaves the guard, and what the other ranks hold of it.
  SmallVector<Value> leaving;
  for (Operation *op : guarded)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !guarded.contains(block.findAncestorOpInBlock(*user));
          }))
        leaving.push_back(result);
  if (llvm::any_of(leaving, [](Value v) {
        auto type = dyn_cast<RankedTensorType>(v.getType());
        return !type || !type.hasStaticShape();
      }) || leaving.empty()) // unused results: canonicalization drops them
    return;
  Operation *lastOp = guarded.back(); // the run is in block order
  Location loc = lastOp->getLoc();
  builder.setInsertionPointAfter(lastOp);
  auto guard = scf::IfOp::create(builder, loc, ValueRange(leaving).getTypes(),
                                 buildIsOwner(loc, owner),
                                 /*withElseRegion=*/true);
  if (Attribute role = lastOp->getDiscardableAttr(DistDialect::getRoleAttrName()))
    guard->setDiscardableAttr(DistDialect::getRoleAttrName(), role);
  // The other ranks: a guarded write keeps its destination (what the
  // write before it kept, along a chain of them); the rest is empty.
  builder.setInsertionPointToStart(guard.elseBlock());
  std::function<Value(Value)> otherRanks = [&](Value value) -> Value {
    Operation *def = value.getDefiningOp();
    if (!def || !guarded.contains(def))
      return value;
    if (ownerWrites.contains(def)) {
      auto write = cast<scf::IfOp>(def);
      return otherRanks(write.elseYield().getOperand(
          cast<OpResult>(value).getResultNumber()));
    }
    auto type = cast<RankedTensorType>(value.getType());
    return tensor::EmptyOp::create(builder, loc, type.getShape(),
                                   type.getElementType());
  };
  SmallVector<Value> elseValues;
  for (Value value : leaving)
    elseValues.push_back(otherRanks(value));
  scf::YieldOp::create(builder, loc, elseValues);
  // The owner: the ops themselves, in order.
  Block *then = guard.thenBlock();
  for (Operation *op : guarded)
    op->moveBefore(then, then->end());
  builder.setInsertionPointToEnd(then);
  scf::YieldOp::create(builder, loc, leaving);
  for (auto [value, result] : llvm::zip(leaving, guard.getResults()))
    value.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !guard->isProperAncestor(use.getOwner());
    });
  // A guarded write inside needs no guard of its own.
  for (Operation *op : guarded) {
    ownedOps.erase(op);
    if (!ownerWrites.erase(op))
      continue;
    auto write = cast<scf::IfOp>(op);
    Block *writeThen = write.thenBlock();
    SmallVector<Value> written(write.thenYield().getOperands());
    write.thenYield()->erase();
    then->getOperations().splice(write->getIterator(),
                                 writeThen->getOperations());
    write->replaceAllUsesWith(written);
    write->erase();
  }
}

void FunctionPartitioner::keepEdgeOwnership(
    Operation *op, ArrayRef<DataFlowEdge> edges,
    MutableArrayRef<ShardingAttr> layouts,
    DenseMap<OpOperand *, ShardingAttr> &sourceLayouts) {
  for (auto [index, layout] : llvm::enumerate(layouts)) {
    const DataFlowEdge &edge = edges[index];
    if (!layout || edge.isFixed || edge.sources.empty() ||
        !llvm::all_of(edge.targets, llvm::IsaPred<OpResult>) ||
        !llvm::all_of(edge.sources, [&](OpOperand *source) {
          return edge.isInnerSource(source, op);
        }))
      continue;
    ShardingAttr owned = shardingOf(edge.sources.front()->get());
    if (!owned.isOwned() || owned.withoutOwner() != layout ||
        !llvm::all_of(edge.sources, [&](OpOperand *source) {
          return shardingOf(source->get()) == owned;
        }))
      continue;
    layout = owned;
    for (OpOperand *source : edge.sources)
      sourceLayouts[source] = owned;
    for (Value target : edge.targets)
      globals[target].layout = owned;
  }
}

/// True if no op in `op`'s regions makes a tensor: its regions compute on
/// scalars (a linalg body), so the op run whole on whole operands (captured
/// tensors included) computes the global result.
static bool hasScalarRegions(Operation *op) {
  WalkResult walk = op->walk([&](Operation *nested) {
    if (nested != op &&
        llvm::any_of(nested->getResultTypes(), llvm::IsaPred<TensorType>))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

LogicalResult FunctionPartitioner::partitionReplicated(Operation *op) {
  if (op->getNumRegions() != 0 && !hasScalarRegions(op))
    return op->emitOpError()
           << "has regions that make tensors but neither a sharding rule nor "
              "a data-flow model; partitioning it is not supported yet";
  SmallVector<Value> newOperands;
  for (Value operand : op->getOperands()) {
    FailureOr<Value> local = reshard(operand, ShardingAttr(), op);
    if (failed(local))
      return failure();
    newOperands.push_back(*local);
  }
  if (failed(localizeCapturedValues(op)))
    return failure();
  op->setOperands(newOperands);
  op->removeAttr(shardingsName);
  keepInPlace(op);
  for (Value result : op->getResults())
    locals.map(result, result);
  return success();
}

LogicalResult FunctionPartitioner::partitionReturn(func::ReturnOp op) {
  SmallVector<Value> operands;
  for (auto [i, operand] : llvm::enumerate(op.getOperands())) {
    FailureOr<Value> local =
        reshard(operand, getBoundarySharding(func.getResultAttrDict(i)), op);
    if (failed(local))
      return failure();
    operands.push_back(*local);
  }
  op->setOperands(operands);
  keepInPlace(op);
  return success();
}

LogicalResult
FunctionPartitioner::partitionDataFlow(DataFlowShardingOpInterface dataFlow) {
  Operation *op = dataFlow;
  SmallVector<DataFlowEdge> edges;
  if (failed(dataFlow.getDataFlowEdges(&symbolTables, edges)))
    return failure();
  // Each edge's layout: the fixed one, or the one propagation recorded.
  ArrayAttr recorded = op->getAttrOfType<ArrayAttr>(shardingsName);
  auto edgeRecords =
      op->getAttrOfType<ArrayAttr>(DistDialect::getEdgeShardingsAttrName());
  unsigned unowned = 0;
  SmallVector<ShardingAttr> layouts;
  DenseMap<OpOperand *, ShardingAttr> sourceLayouts;
  for (const DataFlowEdge &edge : edges) {
    ShardingAttr layout;
    if (edge.isFixed)
      layout = edge.fixedLayout;
    else if (edge.result)
      layout = getRecordedLayout(op, *edge.result);
    else if (edgeRecords && unowned < edgeRecords.size())
      layout = dyn_cast<ShardingAttr>(edgeRecords[unowned++]);
    layouts.push_back(layout);
    for (OpOperand *source : edge.sources)
      sourceLayouts[source] = layout;
  }
  // Values flowing in from outside take the edge's layout; other operands
  // (bounds, conditions) are whole.
  SmallVector<Value> operands;
  for (OpOperand &operand : op->getOpOperands()) {
    FailureOr<Value> local =
        reshard(operand.get(), sourceLayouts.lookup(&operand), op);
    if (failed(local))
      return failure();
    operands.push_back(*local);
  }
  // Values the edges define take their local types.
  for (auto [edge, layout] : llvm::zip(edges, layouts))
    for (Value target : edge.targets) {
      auto type = dyn_cast<RankedTensorType>(target.getType());
      if (!type || !layout)
        continue;
      FailureOr<RankedTensorType> local = getLocalType(type, layout, mesh);
      if (failed(local)) {
        InFlightDiagnostic diag = op->emitOpError();
        if (auto result = dyn_cast<OpResult>(target))
          diag << "result " << result.getResultNumber();
        else
          diag << "region argument "
               << cast<BlockArgument>(target).getArgNumber();
        return diag << " of type " << type << " cannot be laid out as "
                    << layout;
      }
      globals[target] = {layout, type};
      target.setType(*local);
    }
  // The regions, op by op where they are; then terminators forward the
  // local values in their edges' layouts.
  {
    OpBuilder::InsertionGuard guard(builder);
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        for (BlockArgument arg : block.getArguments())
          locals.map(arg, arg);
        for (Operation &inner :
             llvm::make_early_inc_range(block.without_terminator())) {
          builder.setInsertionPoint(&inner);
          if (failed(partitionOp(&inner)))
            return failure();
        }
      }
    keepEdgeOwnership(op, edges, layouts, sourceLayouts);
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        Operation *terminator = block.getTerminator();
        builder.setInsertionPoint(terminator);
        SmallVector<Value> forwarded;
        for (OpOperand &operand : terminator->getOpOperands()) {
          FailureOr<Value> local = reshard(
              operand.get(), sourceLayouts.lookup(&operand), terminator);
          if (failed(local))
            return failure();
          forwarded.push_back(*local);
        }
        terminator->setOperands(forwarded);
      }
  }
  op->setOperands(operands);
  op->removeAttr(shardingsName);
  op->removeAttr(DistDialect::getEdgeShardingsAttrName());
  keepInPlace(op);
  // Users expect the layouts propagation recorded (a callee's partial
  // result is reduced here).
  for (OpResult result : op->getResults()) {
    locals.map(result, result);
    ShardingAttr expected =
        recorded ? dyn_cast<ShardingAttr>(recorded[result.getResultNumber()])
                 : ShardingAttr();
    if (failed(ensureRecordedLayout(result, expected, op)))
      return failure();
  }
  return success();
}

LogicalResult FunctionPartitioner::buildLocalForm(Operation *op) {
  if (auto dataFlow = dyn_cast<DataFlowShardingOpInterface>(op))
    return partitionDataFlow(dataFlow);
  if (auto annotate = dyn_cast<AnnotateOp>(op)) {
    // The ops the reshard makes go before the insertion point.
    Block *block = builder.getInsertionBlock();
    Block::iterator end = builder.getInsertionPoint();
    Operation *previous = end == block->begin() ? nullptr : &*std::prev(end);
    FailureOr<Value> local = reshard(annotate.getInput(), annotate.getSharding(),
                                     op, annotate.getComm().value_or(0));
    if (failed(local))
      return failure();
    // A fetch keeps its collectives apart from other fetches of the value.
    if (Attribute fetch =
            annotate->getDiscardableAttr(DistDialect::getFetchAttrName()))
      for (Operation &made : llvm::make_range(
               previous ? std::next(previous->getIterator()) : block->begin(),
               end))
        if (isa<CollectiveOpInterface>(made))
          made.setDiscardableAttr(DistDialect::getFetchAttrName(), fetch);
    locals.map(annotate.getResult(), *local);
    globals[annotate.getResult()].layout = annotate.getSharding();
    return success();
  }
  if (auto ret = dyn_cast<func::ReturnOp>(op))
    return partitionReturn(ret);
  auto recorded = op->getAttrOfType<ArrayAttr>(DistDialect::getShardingsAttrName());
  FailureOr<const ShardingRule *> rule = ruleCache.lookup(op);
  if (failed(rule))
    return failure();
  if (recorded && *rule)
    return partitionWithRule(op, **rule, recorded);
  // No rule: whole operands, and the results are whole too.
  if (failed(partitionReplicated(op)))
    return failure();
  for (auto [i, result] : llvm::enumerate(op->getResults()))
    if (failed(ensureRecordedLayout(result, getRecordedLayout(op, i), op)))
      return failure();
  return success();
}

/// `attrs` with its dist.sharding entry renamed to `name`.
static DictionaryAttr renameSharding(DictionaryAttr attrs, StringAttr name) {
  SmallVector<NamedAttribute> entries;
  for (NamedAttribute entry : attrs)
    entries.emplace_back(entry.getName() == DistDialect::getShardingAttrName()
                             ? name
                             : entry.getName(),
                         entry.getValue());
  return DictionaryAttr::get(attrs.getContext(), entries);
}

/// The local type of a function argument or result (`what` and `index` name
/// it) of global type `type`; `attrs` get the sharding renamed to
/// `dist.partitioned_as`. Unannotated, it keeps its type.
static FailureOr<Type> localizeBoundary(func::FuncOp func, MeshOp mesh,
                                        Type type, DictionaryAttr &attrs,
                                        StringRef what, unsigned index) {
  ShardingAttr s = getBoundarySharding(attrs);
  if (!s)
    return type;
  FailureOr<RankedTensorType> local =
      getLocalType(cast<RankedTensorType>(type), s, mesh);
  if (failed(local))
    return func.emitOpError() << what << " " << index
                              << " cannot be laid out as " << s;
  attrs = renameSharding(
      attrs, StringAttr::get(func.getContext(),
                             DistDialect::getPartitionedAsAttrName()));
  // Padded blocks: the global shape is no longer the local one times the
  // group sizes, so it is written down for whoever feeds the function.
  if (getGlobalType(*local, s, mesh) != type) {
    NamedAttrList list(attrs);
    list.set(DistDialect::getGlobalShapeAttrName(),
             DenseI64ArrayAttr::get(func.getContext(),
                                    cast<RankedTensorType>(type).getShape()));
    attrs = list.getDictionary(func.getContext());
  }
  return Type(*local);
}

/// The local types of `func`'s arguments (or results) and their attributes
/// with the shardings renamed.
static LogicalResult localizeBoundaries(func::FuncOp func, MeshOp mesh,
                                        bool arguments,
                                        SmallVectorImpl<Type> &types,
                                        SmallVectorImpl<DictionaryAttr> &attrs) {
  TypeRange globalTypes =
      arguments ? func.getArgumentTypes() : func.getResultTypes();
  for (auto [i, type] : llvm::enumerate(globalTypes)) {
    DictionaryAttr dict =
        arguments ? func.getArgAttrDict(i) : func.getResultAttrDict(i);
    FailureOr<Type> local = localizeBoundary(
        func, mesh, type, dict, arguments ? "argument" : "result", i);
    if (failed(local))
      return failure();
    types.push_back(*local);
    attrs.push_back(dict);
  }
  return success();
}

/// A declaration's signature takes the local types of its boundary
/// shardings: its definition, elsewhere, is a per-rank function, and its
/// partitioned callers pass local values.
static LogicalResult partitionDeclaration(func::FuncOp func, MeshOp mesh) {
  SmallVector<Type> argTypes, resultTypes;
  SmallVector<DictionaryAttr> argAttrs, resultAttrs;
  if (failed(localizeBoundaries(func, mesh, /*arguments=*/true, argTypes,
                                argAttrs)) ||
      failed(localizeBoundaries(func, mesh, /*arguments=*/false, resultTypes,
                                resultAttrs)))
    return failure();
  func.setAllArgAttrs(argAttrs);
  func.setAllResultAttrs(resultAttrs);
  func.setFunctionType(
      FunctionType::get(func.getContext(), argTypes, resultTypes));
  return success();
}

LogicalResult FunctionPartitioner::run() {
  Block &body = func.getBody().front();
  // One pass over the body (a walk of a long op list is a cache miss per op):
  // the ops to partition, and the rules of the body's ops and of loop bodies
  // (not of linalg's scalar bodies), read before any type changes.
  SmallVector<Operation *> oldOps;
  for (Operation &op : body) {
    oldOps.push_back(&op);
    WalkResult walk = op.walk<WalkOrder::PreOrder>([&](Operation *nested) {
      if (failed(ruleCache.lookup(nested)))
        return WalkResult::interrupt();
      return nested->getNumRegions() != 0 &&
                     isa<DataFlowShardingOpInterface>(nested)
                 ? WalkResult::advance()
                 : WalkResult::skip();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  // Arguments: local types, local layouts. Attributes are set once for all
  // arguments (setting them one by one is quadratic in the argument count).
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  for (BlockArgument arg : body.getArguments()) {
    Type type = arg.getType();
    DictionaryAttr attrs = func.getArgAttrDict(arg.getArgNumber());
    if (ShardingAttr s = getBoundarySharding(attrs)) {
      FailureOr<Type> local = localizeBoundary(func, mesh, type, attrs,
                                               "argument", arg.getArgNumber());
      if (failed(local))
        return failure();
      globals[arg].layout = s;
      globals[arg].type = type;
      arg.setType(*local);
    }
    argAttrs.push_back(attrs);
    locals.map(arg, arg);
    argTypes.push_back(arg.getType());
  }
  func.setAllArgAttrs(argAttrs);

  // The body, op by op. Most ops become their own local form in place; the
  // others get a new local form before them and are erased at the end.
  for (Operation *op : oldOps) {
    builder.setInsertionPoint(op);
    if (failed(partitionOp(op)))
      return failure();
  }
  for (Operation *op : llvm::reverse(replaced)) {
    ownedOps.erase(op);
    op->dropAllUses();
    op->erase();
  }
  if (!ownedOps.empty()) {
    SmallVector<Block *> blocks;
    func.walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      guardOwnedOps(*block);
  }

  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  if (failed(localizeBoundaries(func, mesh, /*arguments=*/false, resultTypes,
                                resultAttrs)))
    return failure();
  func.setAllResultAttrs(resultAttrs);
  func.setFunctionType(builder.getFunctionType(argTypes, resultTypes));
  return success();
}

/// The mesh of a function's annotations, if it has any.
static FailureOr<MeshOp> getFunctionMesh(func::FuncOp func,
                                         SymbolTableCollection &symbolTables) {
  FlatSymbolRefAttr name;
  auto consider = [&](ShardingAttr s) {
    if (s && !name)
      name = s.getMesh();
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    consider(getBoundarySharding(func.getArgAttrDict(i)));
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    consider(getBoundarySharding(func.getResultAttrDict(i)));
  // The first sharding found names the mesh: stop there.
  bool failedEdges = false;
  func.walk([&](Operation *op) {
    if (name)
      return WalkResult::interrupt();
    if (auto annotate = dyn_cast<AnnotateOp>(op)) {
      consider(annotate.getSharding());
    } else if (auto recorded = op->getAttrOfType<ArrayAttr>(
                   DistDialect::getShardingsAttrName())) {
      for (Attribute entry : recorded)
        consider(dyn_cast<ShardingAttr>(entry));
    } else if (auto dataFlow = dyn_cast<DataFlowShardingOpInterface>(op)) {
      // Layouts fixed by an op (calling a partitioned function) make the
      // caller a per-rank program.
      SmallVector<DataFlowEdge> edges;
      if (failed(dataFlow.getDataFlowEdges(&symbolTables, edges))) {
        failedEdges = true;
        return WalkResult::interrupt();
      }
      for (const DataFlowEdge &edge : edges)
        if (edge.isFixed)
          consider(edge.fixedLayout);
    }
    return WalkResult::advance();
  });
  if (failedEdges)
    return failure();
  if (!name)
    return MeshOp();
  MeshOp mesh = lookupMesh(func, name, &symbolTables);
  if (!mesh)
    return func.emitOpError() << "refers to an unknown mesh " << name;
  return mesh;
}

namespace {
struct DistPartitionPass
    : public dist::impl::DistPartitionBase<DistPartitionPass> {
  void runOnOperation() override {
    SymbolTableCollection symbolTables;
    auto &ruleCache = getAnalysis<ShardingRuleCache>();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      FailureOr<MeshOp> mesh = getFunctionMesh(func, symbolTables);
      if (failed(mesh))
        return signalPassFailure();
      if (!*mesh)
        continue;
      if (func.isExternal()) {
        if (failed(partitionDeclaration(func, *mesh)))
          return signalPassFailure();
        continue;
      }
      if (!func.getBody().hasOneBlock()) {
        func.emitOpError() << "has " << func.getBody().getBlocks().size()
                           << " blocks; dist-partition handles functions with "
                              "one block (structured control flow)";
        return signalPassFailure();
      }
      FunctionPartitioner partitioner(func, *mesh, ruleCache, symbolTables);
      if (failed(partitioner.run()))
        return signalPassFailure();
    }
    // A function used as a value keeps its global type there; only direct
    // calls are rewritten.
    WalkResult indirect = getOperation().walk([&](func::ConstantOp constant) {
      auto callee = symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
          constant, constant.getValueAttr());
      if (!callee || callee.getFunctionType() == constant.getType())
        return WalkResult::advance();
      constant.emitOpError()
          << "refers to @" << callee.getName()
          << ", whose signature dist-partition changed to "
          << callee.getFunctionType()
          << "; functions used as values (func.call_indirect) cannot be "
             "partitioned";
      return WalkResult::interrupt();
    });
    if (indirect.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
