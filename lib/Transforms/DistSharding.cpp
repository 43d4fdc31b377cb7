//===- DistSharding.cpp - ZeRO sharding of a data-parallel step -----------===//
//
// Splits the state of a data-parallel training step over the data-parallel
// axis (ZeRO / FSDP style: every tensor cut evenly across the group), by
// annotation: optimizer state is laid out split (stage 1), gradients are
// pinned split where backward makes them, so partitioning reduce-scatters
// them instead of all-reducing (stage 2), and parameters are kept split
// between steps and gathered before each use (stage 3). The update is
// pinned split, so each rank updates only its block; partitioning then
// gathers the updated parameters where they leave replicated.
//
// With ownership=whole (the seeds' style), each parameter and its state are
// instead owned whole by one rank of the group, balanced by bytes: the same
// annotations carry an owned layout, and partitioning reduces gradients onto
// their owners and broadcasts the owners' updates.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "TrainingStepUtils.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/StepState.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTSHARDING
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// What happens to one parameter: the dim its block is cut along (none when
/// the axis divides no dim; it then stays replicated, as in data
/// parallelism) or the rank that owns it whole, its layout before and after.
struct ShardedParameter {
  unsigned argument;
  std::optional<int64_t> dim;
  ShardingAttr layout, sharded;
  std::optional<int64_t> owner;
  bool isSharded() const { return dim || owner; }
};

/// A stage-3 segment: from its first op on, the parameters it uses are
/// gathered once, at its start.
struct Segment {
  Operation *start;
  SmallVector<unsigned> parameters; // argument numbers, in order of first use
  int64_t bytes = 0;
};

struct DistShardingPass
    : public dist::impl::DistShardingBase<DistShardingPass> {
  using DistShardingBase::DistShardingBase;
  void runOnOperation() override;

private:
  LogicalResult runOnStep(func::FuncOp func, MeshOp mesh);
  /// Gives each parameter an owner among `axisSize` ranks, balancing their
  /// bytes: largest first, each to the least loaded rank (the lowest index
  /// among equals).
  static void assignOwners(func::FuncOp func,
                           MutableArrayRef<ShardedParameter> parameters,
                           StringAttr axis, int64_t axisSize);
  void printLayout(func::FuncOp func, MeshOp mesh,
                   ArrayRef<ShardedParameter> parameters,
                   const llvm::DenseMap<unsigned, SmallVector<unsigned>> &state,
                   ArrayRef<Segment> segments);
  /// Stage 3: gathers each sharded parameter before its uses outside the
  /// update: per use, just before it; or, with segment options, once per
  /// segment that uses it, at the segment's start (`segments`).
  LogicalResult placeGathers(func::FuncOp func,
                             ArrayRef<ShardedParameter> parameters,
                             SmallVectorImpl<Segment> &segments);
  /// ownership=whole: replaces the owned optimizer state of each element
  /// type by one argument (and result) with a row per rank of the group,
  /// split over the axis: rank r's row holds the state of the parameters r
  /// owns, so the per-rank program holds one row, not every tensor. Each
  /// tensor is read from its owner's row at the start and written back at
  /// the end (partitioning makes the read owned and runs the write on the
  /// owner). State of a parameter split otherwise (mp) stays as it is.
  void packOwnedState(func::FuncOp func, MeshOp mesh,
                      ArrayRef<ShardedParameter> parameters,
                      const llvm::DenseMap<unsigned, SmallVector<unsigned>> &state,
                      const llvm::DenseMap<unsigned, unsigned> &resultOf);
};
} // namespace

/// `layout` with `axis` added (minor) to dim `dim`.
static ShardingAttr withAxisOnDim(ShardingAttr layout, int64_t dim,
                                  StringRef axis) {
  SmallVector<SmallVector<StringRef>> dims = getDimAxisNames(layout, layout.getRank());
  dims[dim].push_back(axis);
  SmallVector<StringRef> partial;
  for (StringAttr a : layout.getPartialAxes())
    partial.push_back(a.getValue());
  return ShardingAttr::get(layout.getContext(), layout.getMesh().getValue(),
                           dims, partial, layout.getPartialKind());
}

/// The first dim of `type` whose blocks (under `layout`) `axisSize` divides.
static std::optional<int64_t> chooseDim(RankedTensorType type,
                                        ShardingAttr layout, MeshOp mesh,
                                        int64_t axisSize) {
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (type.isDynamicDim(d))
      continue;
    int64_t blocks = 1;
    for (StringAttr a : layout.getDimAxes(d))
      blocks *= mesh.getAxisSize(a);
    if (type.getDimSize(d) % (blocks * axisSize) == 0)
      return d;
  }
  return std::nullopt;
}

/// The dist.annotate ops that pin `gradient` (a chain, one per
/// dist-data-parallel run).
static SmallVector<AnnotateOp> pinsOf(Value gradient) {
  SmallVector<AnnotateOp> pins;
  Value value = gradient;
  while (true) {
    AnnotateOp next;
    for (Operation *user : value.getUsers())
      if (auto annotate = dyn_cast<AnnotateOp>(user))
        next = annotate;
    if (!next)
      return pins;
    pins.push_back(next);
    value = next.getResult();
  }
}

/// Whether `type` is a tensor of the shape of tensor type `like`.
static bool isShapedLike(Type type, Type like) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getShape() == cast<RankedTensorType>(like).getShape();
}

static bool isOptimizerOp(Operation *op) {
  auto role = op->getAttrOfType<RoleAttr>(DistDialect::getRoleAttrName());
  return role && role.getValue() == Role::optimizer;
}

/// Pins `updated`, the next value of parameter `param`, where it is made:
/// split as `sharded`, then (when `gathered` is set) gathered back to it.
/// Through region branch ops (not loops) whose regions yield their results
/// (the scf.if that updates once every k calls under gradient merge), the
/// pins go into each region that makes a new value, so the gather runs only
/// when the update does.
static void pinWhereMade(Value updated, Value param, ShardingAttr sharded,
                         ShardingAttr gathered) {
  if (updated == param)
    return;
  Operation *def = updated.getDefiningOp();
  if (def && isa<RegionBranchOpInterface>(def) &&
      !isa<LoopLikeOpInterface>(def)) {
    unsigned index = cast<OpResult>(updated).getResultNumber();
    bool yieldsResults = llvm::all_of(def->getRegions(), [&](Region &region) {
      return region.hasOneBlock() &&
             region.front().getTerminator()->getNumOperands() ==
                 def->getNumResults();
    });
    if (yieldsResults) {
      for (Region &region : def->getRegions())
        pinWhereMade(region.front().getTerminator()->getOperand(index), param,
                     sharded, gathered);
      return;
    }
  }
  OpBuilder builder(updated.getContext());
  builder.setInsertionPointAfterValue(updated);
  auto role = RoleAttr::get(updated.getContext(), Role::optimizer);
  auto pin = AnnotateOp::create(builder, updated.getLoc(), updated.getType(),
                                updated, sharded, /*comm=*/IntegerAttr());
  pin->setAttr(DistDialect::getRoleAttrName(), role);
  Value next = pin.getResult();
  if (gathered) {
    auto gather = AnnotateOp::create(builder, updated.getLoc(),
                                     updated.getType(), next, gathered,
                                     /*comm=*/IntegerAttr());
    gather->setAttr(DistDialect::getRoleAttrName(), role);
    next = gather.getResult();
  }
  updated.replaceAllUsesExcept(next, pin);
}

LogicalResult DistShardingPass::runOnStep(func::FuncOp func, MeshOp mesh) {
  MLIRContext *context = func.getContext();
  StringRef shardingName = DistDialect::getShardingAttrName();
  auto axisAttr = StringAttr::get(context, axis);
  int64_t axisSize = mesh.getAxisSize(axisAttr);
  auto shardingOf = [&](unsigned i) {
    return func.getArgAttrOfType<ShardingAttr>(i, shardingName);
  };
  auto argLoc = [&](unsigned i) { return func.getArgument(i).getLoc(); };

  // The step must already be data parallel over the axis: some argument
  // (the batch) split over it.
  bool batchSplit = llvm::any_of(
      llvm::seq(func.getNumArguments()), [&](unsigned i) {
        ShardingAttr sharding = shardingOf(i);
        return sharding && !func.getArgAttr(i, DistDialect::getParamAttrName()) &&
               shardingUsesAxis(sharding, axis);
      });
  if (!batchSplit)
    return func.emitOpError()
           << "splits no argument over '" << axis
           << "': dist-sharding shards the state of a data-parallel step; "
              "run dist-data-parallel{axis="
           << axis << "} first";

  // Gradients by parameter, each with the pins dist-data-parallel put on it.
  llvm::DenseMap<unsigned, SmallVector<AnnotateOp>> pinsByParameter;
  WalkResult walk = func.walk([&](Operation *op) {
    auto param =
        op->getAttrOfType<IntegerAttr>(DistDialect::getGradOfAttrName());
    if (!param || op->getNumResults() != 1)
      return WalkResult::advance();
    SmallVector<AnnotateOp> pins = pinsOf(op->getResult(0));
    if (pins.empty()) {
      op->emitOpError() << "makes the gradient of argument " << param.getInt()
                        << ", which is not pinned to its parameter's layout: "
                           "run dist-data-parallel{axis="
                        << axis << "} before dist-sharding";
      return WalkResult::interrupt();
    }
    llvm::append_range(pinsByParameter[param.getInt()], pins);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (pinsByParameter.empty())
    return func.emitOpError()
           << "has parameters but no gradients (no op marked '"
           << DistDialect::getGradOfAttrName()
           << "'): dist-sharding needs the backward pass of a step";

  // Optimizer state by parameter; the result that updates each argument.
  llvm::DenseMap<unsigned, SmallVector<unsigned>> stateByParameter;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (auto of = func.getArgAttrOfType<IntegerAttr>(
            i, DistDialect::getStateOfAttrName()))
      stateByParameter[of.getInt()].push_back(i);
  llvm::DenseMap<unsigned, unsigned> resultOf;
  for (unsigned r = 0, e = func.getNumResults(); r < e; ++r)
    if (std::optional<unsigned> arg = getUpdatedArgument(func, r))
      resultOf[*arg] = r;

  SmallVector<ShardedParameter> parameters;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (!func.getArgAttr(i, DistDialect::getParamAttrName()))
      continue;
    auto type = dyn_cast<RankedTensorType>(func.getArgument(i).getType());
    if (!type)
      continue;
    // A parameter's state is laid out without halos (a stencil's extra rows
    // are the reader's business, and owned layouts have none).
    ShardingAttr layout = shardingOf(i);
    if (layout)
      layout = layout.withoutHalos();
    if (!layout)
      layout = ShardingAttr::get(context, mesh.getSymName(),
                                 SmallVector<SmallVector<StringRef>>(
                                     type.getRank()));
    if (shardingUsesAxis(layout, axis))
      return emitError(argLoc(i))
             << "parameter " << i << " is already laid out over '" << axis
             << "'; dist-sharding splits replicated state over it";
    ShardedParameter parameter{i, std::nullopt, layout, layout, std::nullopt};
    if (ownership == "split") {
      parameter.dim = chooseDim(type, layout, mesh, axisSize);
      if (parameter.dim)
        parameter.sharded = withAxisOnDim(layout, *parameter.dim, axis);
    }
    parameters.push_back(parameter);
  }
  if (ownership == "whole")
    assignOwners(func, parameters, axisAttr, axisSize);

  OpBuilder builder(context);
  Operation *ret = func.getBody().front().getTerminator();
  for (const ShardedParameter &p : parameters) {
    if (!p.isSharded())
      continue;
    Type paramType = func.getArgument(p.argument).getType();
    // Stage 1: optimizer state shaped like the parameter is split (moments,
    // and f32 master weights of a bf16 or fp16 parameter).
    for (unsigned s : stateByParameter.lookup(p.argument)) {
      if (!isShapedLike(func.getArgument(s).getType(), paramType))
        continue;
      func.setArgAttr(s, shardingName, p.sharded);
      if (auto r = resultOf.find(s); r != resultOf.end())
        func.setResultAttr(r->second, shardingName, p.sharded);
    }
    // Stage 2: the gradient is reduce-scattered (or reduced onto its owner)
    // where backward makes it. Stage 1 keeps the full gradient until its
    // first use (the optimizer's, or clipping's) and reduce-scatters it
    // there: the same bytes, ZeRO's 2 (N - 1) / N, but the full gradients
    // stay live through backward.
    SmallVector<AnnotateOp> pins = pinsByParameter.lookup(p.argument);
    for (AnnotateOp pin : pins)
      pin.setShardingAttr(p.sharded);
    if (stage == 1 && !pins.empty())
      if (Operation *first = findFirstUserInBlock(pins.back()))
        for (AnnotateOp pin : pins)
          pin->moveBefore(first);
    // The update runs on this rank's block only: its value is pinned split
    // where it is made (and, in stages 1 and 2, gathered right there).
    auto r = resultOf.find(p.argument);
    if (r != resultOf.end())
      pinWhereMade(ret->getOperand(r->second), func.getArgument(p.argument),
                   p.sharded, stage < 3 ? p.layout : ShardingAttr());
    if (stage < 3)
      continue;
    // Stage 3: the parameter stays split between steps and is gathered
    // before its uses outside the update (placed below).
    func.setArgAttr(p.argument, shardingName, p.sharded);
    if (r != resultOf.end())
      func.setResultAttr(r->second, shardingName, p.sharded);
  }
  SmallVector<Segment> segments;
  if (stage >= 3 && failed(placeGathers(func, parameters, segments)))
    return failure();
  if (printLayoutOption)
    printLayout(func, mesh, parameters, stateByParameter, segments);
  if (ownership == "whole" && packState)
    packOwnedState(func, mesh, parameters, stateByParameter, resultOf);
  return success();
}

/// The name of argument `argument` (its dist.name, else argN).
static std::string nameOfArgument(func::FuncOp func, unsigned argument) {
  auto name = func.getArgAttrOfType<StringAttr>(argument,
                                                DistDialect::getNameAttrName());
  return name ? name.getValue().str() : "arg" + std::to_string(argument);
}

/// `value` (a static tensor) reshaped to `type`, the same elements with one
/// of the two shapes 1-D: all dims merged into one (or split out of it), or
/// a scalar's one element.
static Value reshapeElements(OpBuilder &builder, Location loc, Value value,
                             RankedTensorType type) {
  auto from = cast<RankedTensorType>(value.getType());
  if (from == type)
    return value;
  bool collapse = from.getRank() > type.getRank();
  RankedTensorType wide = collapse ? from : type;
  RankedTensorType flat = collapse ? type : from;
  SmallVector<ReassociationIndices> groups;
  if (flat.getRank() == 1)
    groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, wide.getRank())));
  if (collapse)
    return tensor::CollapseShapeOp::create(builder, loc, type, value, groups);
  return tensor::ExpandShapeOp::create(builder, loc, type, value, groups);
}

void DistShardingPass::packOwnedState(
    func::FuncOp func, MeshOp mesh, ArrayRef<ShardedParameter> parameters,
    const llvm::DenseMap<unsigned, SmallVector<unsigned>> &state,
    const llvm::DenseMap<unsigned, unsigned> &resultOf) {
  MLIRContext *context = func.getContext();
  int64_t rows = mesh.getAxisSize(StringAttr::get(context, axis));
  struct Member {
    unsigned argument;
    const ShardedParameter *parameter;
    RankedTensorType type;
    int64_t offset = 0;
    unsigned order = 0; // in parameter order, among its pool's members
  };
  // Per element type, in order of first appearance: the members, by owner
  // and then by argument.
  llvm::MapVector<Type, SmallVector<Member>> pools;
  for (const ShardedParameter &p : parameters) {
    if (!p.owner || !p.layout.isReplicated())
      continue;
    Type paramType = func.getArgument(p.argument).getType();
    auto named = [&](unsigned a) {
      return func.getArgAttr(a, DistDialect::getNameAttrName()) != nullptr;
    };
    for (unsigned s : state.lookup(p.argument)) {
      auto type = dyn_cast<RankedTensorType>(func.getArgument(s).getType());
      if (!type || !type.hasStaticShape() || !isShapedLike(type, paramType))
        continue;
      // Members are known by name (their indices change as they are
      // erased); a next value that is another argument as it came (state
      // swapped between buffers) is left unpacked.
      if (!named(s) || !named(p.argument))
        continue;
      if (auto r = resultOf.find(s); r != resultOf.end())
        if (auto next = dyn_cast<BlockArgument>(
                func.getBody().front().getTerminator()->getOperand(r->second));
            next && next.getOwner()->getParentOp() == func &&
            next.getArgNumber() != s)
          continue;
      SmallVector<Member> &pool = pools[type.getElementType()];
      pool.push_back({s, &p, type, 0, (unsigned)pool.size()});
    }
  }
  Block &body = func.getBody().front();
  Operation *ret = body.getTerminator();
  llvm::BitVector erasedArgs(func.getNumArguments()),
      erasedResults(func.getNumResults());
  StringRef shardingName = DistDialect::getShardingAttrName();
  StringRef nameName = DistDialect::getNameAttrName();
  auto role = RoleAttr::get(context, Role::optimizer);
  for (auto &[element, members] : pools) {
    llvm::sort(members, [](const Member &a, const Member &b) {
      return std::make_pair(*a.parameter->owner, a.order) <
             std::make_pair(*b.parameter->owner, b.order);
    });
    SmallVector<int64_t> used(rows, 0);
    for (Member &m : members) {
      m.offset = used[*m.parameter->owner];
      used[*m.parameter->owner] += m.type.getNumElements();
    }
    int64_t columns = *llvm::max_element(used);
    auto poolType = RankedTensorType::get({rows, columns}, element);
    auto layout = ShardingAttr::get(context, mesh.getSymName(),
                                    {{axis}, {}});
    std::string typeName;
    llvm::raw_string_ostream(typeName) << element;
    auto poolName = StringAttr::get(context, "owned_state." + typeName);

    SmallVector<Attribute> descriptions;
    for (const Member &m : members) {
      NamedAttrList entry;
      entry.append("name", StringAttr::get(context, nameOfArgument(func, m.argument)));
      entry.append("param", StringAttr::get(
                                context, nameOfArgument(func, m.parameter->argument)));
      entry.append("owner", IntegerAttr::get(IntegerType::get(context, 64),
                                             *m.parameter->owner));
      entry.append("offset",
                   IntegerAttr::get(IntegerType::get(context, 64), m.offset));
      entry.append("shape", DenseI64ArrayAttr::get(context, m.type.getShape()));
      if (Attribute fill = func.getArgAttr(m.argument,
                                           DistDialect::getInputFillAttrName()))
        entry.append("fill", fill);
      if (Attribute normal = func.getArgAttr(
              m.argument, DistDialect::getInputNormalAttrName()))
        entry.append("normal", normal);
      if (func.getArgAttr(m.argument, DistDialect::getInputFromParamAttrName()))
        entry.append("from_param", UnitAttr::get(context));
      descriptions.push_back(entry.getDictionary(context));
    }
    NamedAttrList argAttrs;
    argAttrs.append(nameName, poolName);
    argAttrs.append(shardingName, layout);
    argAttrs.append(DistDialect::getStatePoolAttrName(),
                    ArrayAttr::get(context, descriptions));
    unsigned poolIndex = func.getNumArguments();
    Location loc = func.getArgument(members.front().argument).getLoc();
    (void)func.insertArgument(poolIndex, poolType,
                              argAttrs.getDictionary(context), loc);
    erasedArgs.resize(func.getNumArguments());
    Value pool = func.getArgument(poolIndex);

    // Each parameter's state is read from the row just before its first
    // use and written back right after the last of it is made, threading
    // the rows through the step in program order. Where updates run
    // parameter by parameter (no other tensor's write between a read and
    // its write), bufferization reads and writes the rows in place, and the
    // owner's guard (partitioning) covers read, update and write; where
    // they interleave, it copies what a later write would overwrite.
    OpBuilder builder(context);
    auto rowSlice = [&](const Member &m) {
      SmallVector<OpFoldResult> offsets = {
          builder.getIndexAttr(*m.parameter->owner),
          builder.getIndexAttr(m.offset)};
      SmallVector<OpFoldResult> sizes = {
          builder.getIndexAttr(1),
          builder.getIndexAttr(m.type.getNumElements())};
      SmallVector<OpFoldResult> strides(2, builder.getIndexAttr(1));
      return std::make_tuple(offsets, sizes, strides);
    };
    llvm::DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(body))
      position[&op] = i;
    // Per parameter: its members, the op of their first use and the op that
    // makes the last of their next values (none: nothing to write).
    struct Access {
      SmallVector<const Member *> members;
      Operation *firstUse = nullptr;
      Operation *lastMade = nullptr;
    };
    llvm::MapVector<unsigned, Access> accesses;
    for (const Member &m : members) {
      Access &access = accesses[m.parameter->argument];
      access.members.push_back(&m);
      for (Operation *user : func.getArgument(m.argument).getUsers()) {
        Operation *top = body.findAncestorOpInBlock(*user);
        if (!access.firstUse || position[top] < position[access.firstUse])
          access.firstUse = top;
      }
      auto r = resultOf.find(m.argument);
      if (r == resultOf.end())
        continue;
      Value next = ret->getOperand(r->second);
      if (next == func.getArgument(m.argument))
        continue; // returned as it came: nothing to write
      Operation *def = next.getDefiningOp();
      Operation *made = def ? body.findAncestorOpInBlock(*def) : nullptr;
      if (!made || (access.firstUse &&
                    position[made] < position[access.firstUse]))
        made = access.firstUse;
      if (made && (!access.lastMade ||
                   position[made] > position[access.lastMade]))
        access.lastMade = made;
    }
    // Reads (before their op) and writes (after theirs) in program order.
    struct Event {
      int64_t position;
      bool isWrite;
      unsigned order;
      Access *access;
    };
    SmallVector<Event> events;
    unsigned order = 0;
    for (auto &[param, access] : accesses) {
      if (access.firstUse)
        events.push_back({position[access.firstUse], false, order++, &access});
      bool writes = llvm::any_of(access.members, [&](const Member *m) {
        auto r = resultOf.find(m->argument);
        return r != resultOf.end() &&
               ret->getOperand(r->second) != func.getArgument(m->argument);
      });
      if (writes)
        events.push_back({access.lastMade ? position[access.lastMade] : -1,
                          true, order++, &access});
    }
    llvm::sort(events, [](const Event &a, const Event &b) {
      return std::make_tuple(a.position, a.isWrite, a.order) <
             std::make_tuple(b.position, b.isWrite, b.order);
    });
    Value next = pool;
    Operation *lastWrite = nullptr; // the last op of the last write
    int64_t lastWritePosition = -2;
    llvm::DenseMap<unsigned, Value> readValues;
    for (const Event &event : events) {
      if (!event.isWrite) {
        builder.setInsertionPoint(event.access->firstUse);
        for (const Member *m : event.access->members) {
          auto [offsets, sizes, strides] = rowSlice(*m);
          auto flatType =
              RankedTensorType::get({m->type.getNumElements()}, element);
          auto read = tensor::ExtractSliceOp::create(builder, loc, flatType, next,
                                                     offsets, sizes, strides);
          read->setAttr(DistDialect::getRoleAttrName(), role);
          Value value = reshapeElements(builder, loc, read, m->type);
          if (Operation *reshape = value.getDefiningOp(); reshape != read)
            reshape->setAttr(DistDialect::getRoleAttrName(), role);
          func.getArgument(m->argument).replaceAllUsesWith(value);
          readValues[m->argument] = value;
        }
        continue;
      }
      if (event.position == lastWritePosition)
        builder.setInsertionPointAfter(lastWrite);
      else if (event.access->lastMade == ret)
        builder.setInsertionPoint(ret); // state only returned: before it
      else if (event.access->lastMade)
        builder.setInsertionPointAfter(event.access->lastMade);
      else
        builder.setInsertionPointToStart(&body);
      for (const Member *m : event.access->members) {
        auto r = resultOf.find(m->argument);
        if (r == resultOf.end())
          continue;
        Value value = ret->getOperand(r->second);
        if (value == readValues.lookup(m->argument) ||
            value == func.getArgument(m->argument))
          continue;
        Value flat = reshapeElements(
            builder, loc, value,
            RankedTensorType::get({m->type.getNumElements()}, element));
        if (flat != value)
          flat.getDefiningOp()->setAttr(DistDialect::getRoleAttrName(), role);
        auto [offsets, sizes, strides] = rowSlice(*m);
        auto write = tensor::InsertSliceOp::create(builder, loc, flat, next,
                                                   offsets, sizes, strides);
        write->setAttr(DistDialect::getRoleAttrName(), role);
        auto pin = AnnotateOp::create(builder, loc, poolType, write.getResult(),
                                      layout, /*comm=*/IntegerAttr());
        pin->setAttr(DistDialect::getRoleAttrName(), role);
        next = pin.getResult();
        lastWrite = pin;
      }
      lastWritePosition = event.position;
    }
    for (const Member &m : members) {
      erasedArgs.set(m.argument);
      if (auto r = resultOf.find(m.argument); r != resultOf.end())
        erasedResults.set(r->second);
    }
    unsigned resultIndex = func.getNumResults();
    NamedAttrList resultAttrs;
    resultAttrs.append(nameName, poolName);
    resultAttrs.append(shardingName, layout);
    (void)func.insertResult(resultIndex, poolType,
                            resultAttrs.getDictionary(context));
    ret->insertOperands(ret->getNumOperands(), next);
    erasedResults.resize(func.getNumResults());
  }
  if (!pools.empty())
    eraseStepArguments(func, erasedArgs, erasedResults);
}

/// Tags each fetch (the annotation that gathers or broadcasts a parameter
/// for its uses) with its index in program order (`dist.fetch`).
static void numberFetches(func::FuncOp func, ArrayRef<AnnotateOp> fetches) {
  llvm::SmallPtrSet<Operation *, 16> isFetch;
  for (AnnotateOp fetch : fetches)
    isFetch.insert(fetch);
  Builder builder(func.getContext());
  int64_t next = 0;
  func.walk<WalkOrder::PreOrder>([&](AnnotateOp annotate) {
    if (isFetch.contains(annotate))
      annotate->setDiscardableAttr(DistDialect::getFetchAttrName(),
                                   builder.getI64IntegerAttr(next++));
  });
}

LogicalResult
DistShardingPass::placeGathers(func::FuncOp func,
                               ArrayRef<ShardedParameter> parameters,
                               SmallVectorImpl<Segment> &segments) {
  Block &body = func.getBody().front();
  llvm::DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  // The uses to gather for, with the body op that holds each.
  struct Use {
    OpOperand *operand;
    Operation *top;
  };
  struct Uses {
    const ShardedParameter *parameter;
    SmallVector<Use> uses;
    unsigned first = ~0u;
  };
  SmallVector<Uses> byParameter;
  for (const ShardedParameter &p : parameters) {
    if (!p.isSharded())
      continue;
    Uses entry{&p, {}, ~0u};
    for (OpOperand &use : func.getArgument(p.argument).getUses()) {
      Operation *user = use.getOwner();
      // The update reads its block; a terminator only forwards the value
      // (the branch of gradient merge that does not update).
      if (isOptimizerOp(user) || user->hasTrait<OpTrait::IsTerminator>())
        continue;
      Operation *top = body.findAncestorOpInBlock(*user);
      entry.uses.push_back({&use, top});
      entry.first = std::min(entry.first, position[top]);
    }
    if (!entry.uses.empty())
      byParameter.push_back(std::move(entry));
  }
  // Fetches are numbered (in program order, at the end) so that cleanup
  // keeps them apart: each copy lives only through the uses it serves.
  SmallVector<AnnotateOp> fetches;
  auto gather = [&](const ShardedParameter &p, Operation *before,
                    ArrayRef<Use> uses) {
    OpBuilder builder(before);
    BlockArgument argument = func.getArgument(p.argument);
    auto annotate = AnnotateOp::create(builder, argument.getLoc(),
                                       argument.getType(), argument, p.layout,
                                       /*comm=*/IntegerAttr());
    fetches.push_back(annotate);
    // The gather takes the role of the first use it serves.
    const Use *first = llvm::min_element(uses, [&](const Use &a, const Use &b) {
      return position.lookup(a.top) < position.lookup(b.top);
    });
    if (Attribute role =
            first->operand->getOwner()->getAttr(DistDialect::getRoleAttrName()))
      annotate->setAttr(DistDialect::getRoleAttrName(), role);
    for (const Use &use : uses)
      use.operand->set(annotate.getResult());
  };

  // Without segments, each use gathers for itself.
  llvm::StringSet<> anchors;
  for (const std::string &anchor : segmentAnchors)
    anchors.insert(anchor);
  if (segmentMB == 0 && anchors.empty()) {
    for (const Uses &entry : byParameter)
      for (const Use &use : entry.uses)
        gather(*entry.parameter, use.operand->getOwner(), use);
    numberFetches(func, fetches);
    return success();
  }
  // Segments, in the order parameters are first used.
  llvm::sort(byParameter, [](const Uses &a, const Uses &b) {
    return a.first != b.first ? a.first < b.first
                              : a.parameter->argument < b.parameter->argument;
  });
  double limit = segmentMB * 1024 * 1024;
  SmallVector<unsigned> starts; // body positions
  for (const Uses &entry : byParameter) {
    const ShardedParameter &p = *entry.parameter;
    int64_t bytes =
        getStaticBytes(func.getArgument(p.argument).getType()).value_or(0);
    bool anchored = anchors.contains(nameOfArgument(func, p.argument));
    if (segments.empty() ||
        (!segments.back().parameters.empty() &&
         (anchored || (segmentMB > 0 && segments.back().bytes + bytes > limit)))) {
      // A segment starts at this parameter's first use (segments never
      // start before the previous one: first uses are sorted).
      Segment segment;
      segment.start = &*std::next(body.begin(), entry.first);
      if (!segments.empty() && segments.back().start == segment.start) {
        segments.back().bytes += bytes;
        segments.back().parameters.push_back(p.argument);
        continue;
      }
      segments.push_back(segment);
      starts.push_back(entry.first);
    }
    segments.back().bytes += bytes;
    segments.back().parameters.push_back(p.argument);
  }
  // Each parameter is gathered at the start of every segment that uses it.
  for (const Uses &entry : byParameter) {
    llvm::MapVector<unsigned, SmallVector<Use>> usesBySegment;
    for (const Use &use : entry.uses) {
      unsigned pos = position[use.top];
      unsigned segment = llvm::upper_bound(starts, pos) - starts.begin() - 1;
      usesBySegment[segment].push_back(use);
    }
    for (auto &[segment, uses] : usesBySegment)
      gather(*entry.parameter, segments[segment].start, uses);
  }
  numberFetches(func, fetches);
  return success();
}

void DistShardingPass::assignOwners(func::FuncOp func,
                                    MutableArrayRef<ShardedParameter> parameters,
                                    StringAttr axis, int64_t axisSize) {
  auto bytesOf = [&](const ShardedParameter &p) {
    return getStaticBytes(func.getArgument(p.argument).getType()).value_or(0);
  };
  SmallVector<ShardedParameter *> order;
  for (ShardedParameter &p : parameters)
    order.push_back(&p);
  llvm::sort(order, [&](ShardedParameter *a, ShardedParameter *b) {
    int64_t bytesA = bytesOf(*a), bytesB = bytesOf(*b);
    return bytesA != bytesB ? bytesA > bytesB : a->argument < b->argument;
  });
  SmallVector<int64_t> load(axisSize, 0);
  for (ShardedParameter *p : order) {
    int64_t owner = llvm::min_element(load) - load.begin();
    load[owner] += bytesOf(*p);
    p->owner = owner;
    p->sharded = p->layout.withOwner(axis, owner);
  }
}

/// Per rank of the group: the bytes of parameters, gradients and optimizer
/// state it keeps, the parameters left whole, and (ownership=whole) the
/// parameters it owns.
void DistShardingPass::printLayout(
    func::FuncOp func, MeshOp mesh, ArrayRef<ShardedParameter> parameters,
    const llvm::DenseMap<unsigned, SmallVector<unsigned>> &state,
    ArrayRef<Segment> segments) {
  int64_t axisSize = mesh.getAxisSize(StringAttr::get(&getContext(), axis));
  bool whole = ownership == "whole";
  // Per rank (split: every rank alike, so one entry).
  int64_t ranks = whole ? axisSize : 1;
  SmallVector<int64_t> paramBytes(ranks), gradBytes(ranks), stateBytes(ranks);
  SmallVector<SmallVector<std::string>> owned(ranks);
  int64_t split = 0;
  SmallVector<std::string> unsplit;
  auto nameOf = [&](unsigned argument) { return nameOfArgument(func, argument); };
  for (const ShardedParameter &p : parameters) {
    Type type = func.getArgument(p.argument).getType();
    int64_t bytes = getStaticBytes(type).value_or(0);
    int64_t ownState = 0, otherState = 0;
    for (unsigned s : state.lookup(p.argument)) {
      Type stateType = func.getArgument(s).getType();
      (isShapedLike(stateType, type) ? ownState : otherState) +=
          getStaticBytes(stateType).value_or(0);
    }
    split += p.isSharded();
    if (!p.isSharded())
      unsplit.push_back(nameOf(p.argument));
    for (int64_t r = 0; r < ranks; ++r) {
      // What rank r keeps of a sharded tensor of `b` bytes.
      auto kept = [&](int64_t b) {
        if (!p.isSharded())
          return b;
        if (!whole)
          return b / axisSize;
        return *p.owner == r ? b : 0;
      };
      paramBytes[r] += stage >= 3 ? kept(bytes) : bytes;
      gradBytes[r] += stage >= 2 ? kept(bytes) : bytes;
      stateBytes[r] += kept(ownState) + otherState;
      if (whole && *p.owner == r)
        owned[r].push_back(nameOf(p.argument));
    }
  }
  llvm::outs() << llvm::formatv(
      "dist-sharding @{0}: stage {1} over '{2}' ({3} ranks), {4} of {5} "
      "parameters {6}\n",
      func.getSymName(), (int64_t)stage, axis, axisSize, split,
      parameters.size(), whole ? "owned whole" : "split");
  if (!whole)
    llvm::outs() << llvm::formatv(
        "  per rank: parameters {0} B, gradients {1} B, optimizer state {2} B "
        "(every rank the same: each holds 1/{3} of every split tensor)\n",
        paramBytes[0], gradBytes[0], stateBytes[0], axisSize);
  for (int64_t r = 0; whole && r < ranks; ++r)
    llvm::outs() << llvm::formatv(
        "  rank {0}: parameters {1} B, gradients {2} B, optimizer state {3} B; "
        "owns {4}\n",
        r, paramBytes[r], gradBytes[r], stateBytes[r],
        owned[r].empty() ? std::string("nothing") : llvm::join(owned[r], ", "));
  if (!unsplit.empty())
    llvm::outs() << "  whole on every rank (no dim divisible by " << axisSize
                 << "): " << llvm::join(unsplit, ", ") << "\n";
  for (auto [i, segment] : llvm::enumerate(segments)) {
    SmallVector<std::string> names;
    for (unsigned argument : segment.parameters)
      names.push_back(nameOf(argument));
    llvm::outs() << llvm::formatv("  segment {0}: {1} B of parameters gathered "
                                  "at its start: {2}\n",
                                  i, segment.bytes, llvm::join(names, ", "));
  }
}

void DistShardingPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (stage < 1 || stage > 3) {
    module.emitError() << "dist-sharding: stage must be 1, 2 or 3, got "
                       << static_cast<int64_t>(stage);
    return signalPassFailure();
  }
  if (segmentMB < 0) {
    module.emitError() << "dist-sharding: segment-mb must be >= 0, got "
                       << segmentMB;
    return signalPassFailure();
  }
  if ((segmentMB > 0 || !segmentAnchors.empty()) && stage < 3) {
    module.emitError()
        << "dist-sharding: segments (segment-mb, segment-anchors) place the "
           "gathers of stage 3 parameters; stage is "
        << static_cast<int64_t>(stage);
    return signalPassFailure();
  }
  if (ownership != "split" && ownership != "whole") {
    module.emitError() << "dist-sharding: ownership must be 'split' or "
                          "'whole', got '"
                       << ownership << "'";
    return signalPassFailure();
  }
  FailureOr<MeshOp> mesh = findStepMesh(module, meshName, "dist-sharding");
  if (failed(mesh))
    return signalPassFailure();
  if (!mesh->getAxisIndex(StringAttr::get(&getContext(), axis))) {
    mesh->emitError() << "dist-sharding: axis '" << axis
                      << "' is not an axis of this mesh";
    return signalPassFailure();
  }
  // An anchor names a parameter of some step.
  llvm::StringSet<> parameterNames;
  module.walk([&](func::FuncOp func) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (func.getArgAttr(i, DistDialect::getParamAttrName()))
        parameterNames.insert(nameOfArgument(func, i));
  });
  for (const std::string &anchor : segmentAnchors)
    if (!parameterNames.contains(anchor)) {
      module.emitError() << "dist-sharding: segment anchor '" << anchor
                         << "' names no parameter (an anchor is a "
                            "parameter's dist.name)";
      return signalPassFailure();
    }
  if (failed(forEachTrainingStep(module, "dist-sharding", StepPhase::Global,
                                 [&](func::FuncOp func) {
                                   return runOnStep(func, *mesh);
                                 })))
    signalPassFailure();
}
