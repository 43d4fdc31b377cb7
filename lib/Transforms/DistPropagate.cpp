//===- DistPropagate.cpp - Complete shardings from annotations ------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"
#include "dist/Interfaces/DataFlowSharding.h"
#include "dist/Interfaces/ShardingRuleInterface.h"
#include "dist/Support/AddressOrderKeys.h"
#include "dist/Transforms/FactorAssignment.h"
#include "dist/Transforms/Passes.h"
#include "dist/Transforms/ShardingRuleCache.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include <deque>

#define DEBUG_TYPE "dist-propagate"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPROPAGATE
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

/// Calls `fn` on every op of `func`'s body and of the regions of the
/// data-flow ops propagation sees through (scf.for, scf.if, ...), in program
/// order; the scalar bodies of other ops (linalg) are not entered.
static void forEachPropagatedOp(func::FuncOp func,
                                function_ref<void(Operation *)> fn) {
  func.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    fn(op);
    return op->getNumRegions() != 0 && isa<DataFlowShardingOpInterface>(op)
               ? WalkResult::advance()
               : WalkResult::skip();
  });
}

/// True if `op` ends a region of a data-flow op (its operands are edge
/// sources of the parent).
static bool isDataFlowTerminator(Operation *op) {
  return op->hasTrait<OpTrait::IsTerminator>() &&
         isa_and_nonnull<DataFlowShardingOpInterface>(op->getParentOp());
}

namespace {

/// Propagation state of one function.
class FunctionPropagation {
public:
  FunctionPropagation(func::FuncOp func, SymbolTableCollection &symbolTables,
                      ShardingRuleCache &ruleCache)
      : func(func), symbolTables(symbolTables), ruleCache(ruleCache) {}

  LogicalResult run();

private:
  LogicalResult initialize();
  void process(Operation *op);
  /// Sets or refines the sharding of `value`; enqueues its neighbours if it
  /// changed.
  void update(Value value, ShardingAttr proposed);
  void enqueue(Operation *op);
  TensorInfo getInfo(Value value);
  MeshOp getMesh(FlatSymbolRefAttr name) {
    // A function uses one mesh: remember the last one looked up.
    if (name != lastMeshName) {
      lastMeshName = name;
      lastMesh = lookupMesh(func, name, &symbolTables);
    }
    return lastMesh;
  }
  void writeBack();
  /// The edges of data-flow op `op` (failure was reported when the op was
  /// first seen).
  SmallVector<DataFlowEdge> getEdges(Operation *op) {
    SmallVector<DataFlowEdge> edges;
    if (failed(cast<DataFlowShardingOpInterface>(op).getDataFlowEdges(
            &symbolTables, edges)))
      edges.clear();
    return edges;
  }
  /// A data-flow op: the values of each edge share one layout; a fixed
  /// edge's layout is a good start for its sources.
  void processDataFlow(Operation *op);

  func::FuncOp func;
  SymbolTableCollection &symbolTables;
  ShardingRuleCache &ruleCache;
  /// The mesh the function's annotations use (for replicated defaults).
  FlatSymbolRefAttr defaultMesh;
  FlatSymbolRefAttr lastMeshName;
  MeshOp lastMesh;
  ValueMap<ShardingAttr> shardings;
  ValueSet fixed;
  /// Block arguments that may carry a pending reduction (a loop's
  /// accumulator): their edge has a source inside the op.
  ValueSet mayCarryPartial;
  std::deque<Operation *> worklist;
  OpSet queued;
};

} // namespace

// Ownership (`owner = i {axes}`) does not take part in propagation: it says
// which ranks hold a value, not how its dims are laid out, and the
// partitioner carries it from the annotations and boundaries that give it.
static ShardingAttr withoutOwner(ShardingAttr sharding) {
  return sharding ? sharding.withoutOwner() : sharding;
}

static ShardingAttr getArgSharding(func::FuncOp func, unsigned i) {
  return withoutOwner(func.getArgAttrOfType<ShardingAttr>(
      i, DistDialect::getShardingAttrName()));
}

static ShardingAttr getResultSharding(func::FuncOp func, unsigned i) {
  return withoutOwner(func.getResultAttrOfType<ShardingAttr>(
      i, DistDialect::getShardingAttrName()));
}

LogicalResult FunctionPropagation::initialize() {
  Block &body = func.getBody().front();
  // The function's mesh: the first one any annotation names.
  for (unsigned i = 0; i < func.getNumArguments() && !defaultMesh; ++i)
    if (ShardingAttr s = getArgSharding(func, i))
      defaultMesh = s.getMesh();
  for (unsigned i = 0; i < func.getNumResults() && !defaultMesh; ++i)
    if (ShardingAttr s = getResultSharding(func, i))
      defaultMesh = s.getMesh();
  if (!defaultMesh)
    func.walk([&](AnnotateOp op) {
      defaultMesh = op.getSharding().getMesh();
      return WalkResult::interrupt();
    });
  // A function that calls annotated functions works on their mesh (the
  // layouts fixed by data-flow ops).
  if (!defaultMesh)
    func.walk([&](DataFlowShardingOpInterface op) {
      SmallVector<DataFlowEdge> edges;
      if (failed(op.getDataFlowEdges(&symbolTables, edges)))
        return WalkResult::interrupt();
      for (const DataFlowEdge &edge : edges)
        if (edge.isFixed && edge.fixedLayout && !defaultMesh)
          defaultMesh = edge.fixedLayout.getMesh();
      return defaultMesh ? WalkResult::interrupt() : WalkResult::advance();
    });
  if (!defaultMesh)
    return success();
  // One mesh per function: resharding between meshes is not supported.
  auto checkMesh = [&](ShardingAttr s, Location loc) -> LogicalResult {
    if (!s || s.getMesh() == defaultMesh)
      return success();
    return emitError(loc) << "sharding on mesh " << s.getMesh()
                          << " in a function whose other shardings use "
                          << defaultMesh
                          << "; one function must use one mesh";
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (failed(checkMesh(getArgSharding(func, i), body.getArgument(i).getLoc())))
      return failure();
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (failed(checkMesh(getResultSharding(func, i), func.getLoc())))
      return failure();
  // Every annotation, including those in regions propagation does not enter.
  WalkResult walk = func.walk([&](AnnotateOp op) {
    return failed(checkMesh(op.getSharding(), op.getLoc()))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  for (BlockArgument arg : body.getArguments())
    if (ShardingAttr s = getArgSharding(func, arg.getArgNumber())) {
      shardings[arg] = s;
      fixed.insert(arg);
    }

  LogicalResult result = success();
  forEachPropagatedOp(func, [&](Operation *op) {
    if (failed(result))
      return;
    if (auto annotate = dyn_cast<AnnotateOp>(op)) {
      shardings[annotate.getResult()] = withoutOwner(annotate.getSharding());
      fixed.insert(annotate.getResult());
    } else if (auto dataFlow = dyn_cast<DataFlowShardingOpInterface>(op)) {
      SmallVector<DataFlowEdge> edges;
      if (failed(dataFlow.getDataFlowEdges(&symbolTables, edges))) {
        result = failure();
        return;
      }
      for (const DataFlowEdge &edge : edges) {
        if (!edge.isFixed) {
          bool fromInside = llvm::any_of(edge.sources, [&](OpOperand *source) {
            return edge.isInnerSource(source, op);
          });
          for (Value target : edge.targets)
            if (fromInside && isa<BlockArgument>(target))
              mayCarryPartial.insert(target);
          continue;
        }
        // A fixed layout (a callee's boundary) holds for the values the op
        // defines (replicated where none is given); a pending reduction
        // there is done on the spot.
        ShardingAttr s = withoutOwner(edge.fixedLayout);
        if (s && s.getMesh() != defaultMesh) {
          InFlightDiagnostic diag = op->emitOpError();
          if (edge.result)
            diag << "result " << *edge.result;
          else
            diag << "operand " << edge.sources.front()->getOperandNumber();
          diag << " is laid out on mesh " << s.getMesh()
               << " in a function on " << defaultMesh
               << "; one function must use one mesh";
          if (edge.fixedAt)
            diag.attachNote(*edge.fixedAt) << "layout given here";
          result = failure();
          return;
        }
        for (Value target : edge.targets)
          if (auto type = dyn_cast<RankedTensorType>(target.getType())) {
            shardings[target] =
                s ? dropPartial(s) : getReplicated(defaultMesh, type.getRank());
            fixed.insert(target);
          }
      }
    } else if (!isa<func::ReturnOp>(op) && !isDataFlowTerminator(op)) {
      FailureOr<const ShardingRule *> rule = ruleCache.lookup(op);
      if (failed(rule)) {
        result = failure();
        return;
      }
      // Without a rule the op computes its tensors whole on every rank.
      // (`process` finds the rule in the cache again.)
      if (!*rule)
        for (Value value : op->getResults())
          if (auto type = dyn_cast<RankedTensorType>(value.getType())) {
            shardings[value] = getReplicated(defaultMesh, type.getRank());
            fixed.insert(value);
          }
    }
    enqueue(op);
  });
  return result;
}

void FunctionPropagation::enqueue(Operation *op) {
  if (op && queued.insert(op).second)
    worklist.push_back(op);
}

TensorInfo FunctionPropagation::getInfo(Value value) {
  TensorInfo info;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return info;
  info.isTensor = true;
  info.sharding = shardings.lookup(value);
  info.isUserFixed = fixed.contains(value);
  info.mayBecomePartial =
      isa<BlockArgument>(value) && mayCarryPartial.contains(value);
  info.numElements = type.hasStaticShape() ? type.getNumElements() : 0;
  return info;
}

void FunctionPropagation::update(Value value, ShardingAttr proposed) {
  if (!proposed || fixed.contains(value))
    return;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || proposed.getRank() != type.getRank())
    return;
  ShardingAttr &current = shardings[value];
  if (!isRefinement(current, proposed))
    return;
  current = proposed;
  // The ops that read or make the value; a data-flow op stands for its
  // block arguments and its regions' terminators.
  auto neighbour = [](Operation *op) {
    return isDataFlowTerminator(op) ? op->getParentOp() : op;
  };
  if (Operation *def = value.getDefiningOp())
    enqueue(def);
  else if (auto arg = dyn_cast<BlockArgument>(value))
    if (isa_and_nonnull<DataFlowShardingOpInterface>(
            arg.getOwner()->getParentOp()))
      enqueue(arg.getOwner()->getParentOp());
  for (Operation *user : value.getUsers())
    enqueue(neighbour(user));
}

void FunctionPropagation::processDataFlow(Operation *op) {
  for (const DataFlowEdge &edge : getEdges(op)) {
    if (edge.isFixed) {
      // Operands go in as the fixed layout says (a callee's arguments).
      if (ShardingAttr s = withoutOwner(edge.fixedLayout);
          s && s.getMesh() == defaultMesh)
        for (OpOperand *source : edge.sources)
          update(source->get(), dropPartial(s));
      continue;
    }
    // The values of an edge share one layout. A pending reduction may be
    // carried (a loop accumulating partial gradients; a branch making a
    // partial value, the other branch masked): whether it is partial is
    // decided inside the op, so partial state travels only from the values
    // the op's regions yield to the values the edge defines; everything else
    // shares the layout only. Order: values from outside, block arguments,
    // values from inside, results.
    SmallVector<Value, 8> values;
    SmallVector<bool, 8> isInner, isTarget;
    auto add = [&](Value value, bool inner, bool target) {
      values.push_back(value);
      isInner.push_back(inner);
      isTarget.push_back(target);
    };
    for (OpOperand *source : edge.sources)
      if (!edge.isInnerSource(source, op))
        add(source->get(), false, false);
    for (Value target : edge.targets)
      if (isa<BlockArgument>(target))
        add(target, false, true);
    for (OpOperand *source : edge.sources)
      if (edge.isInnerSource(source, op))
        add(source->get(), true, false);
    for (Value target : edge.targets)
      if (!isa<BlockArgument>(target))
        add(target, false, true);
    if (!isa<RankedTensorType>(values.front().getType()))
      continue;
    for (auto [from, fromInner] : llvm::zip(values, isInner)) {
      ShardingAttr s = shardings.lookup(from);
      if (!s)
        continue;
      for (auto [to, toTarget] : llvm::zip(values, isTarget))
        if (to != from)
          update(to, fromInner && toTarget ? s : dropPartial(s));
    }
  }
}

void FunctionPropagation::process(Operation *op) {
  if (auto annotate = dyn_cast<AnnotateOp>(op)) {
    // The annotated layout is a good start for the operand too.
    update(annotate.getInput(), withoutOwner(annotate.getSharding()));
    return;
  }
  if (isa<DataFlowShardingOpInterface>(op)) {
    processDataFlow(op);
    return;
  }
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    for (auto [i, operand] : llvm::enumerate(ret.getOperands()))
      update(operand, dropPartial(getResultSharding(func, i)));
    return;
  }
  // Null for ops outside the walk above (the scalar bodies of linalg ops).
  const ShardingRule *rulePtr = ruleCache.getIfLookedUp(op);
  if (!rulePtr)
    return;
  const ShardingRule &rule = *rulePtr;
  SmallVector<TensorInfo> operands, results;
  for (Value operand : op->getOperands())
    operands.push_back(getInfo(operand));
  for (Value result : op->getResults())
    results.push_back(getInfo(result));
  FlatSymbolRefAttr meshName = getCommonMesh(operands, results);
  if (!meshName)
    return;
  std::optional<FactorAssignment> assignment =
      decideFactors(rule, operands, results, getMesh(meshName));
  if (!assignment)
    return;
  // Backward, only layouts travel: whether an operand is partial is decided
  // by its producer; except for a loop's iter arg, which is partial if the
  // loop accumulates a partial value.
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    ShardingAttr needed = projectOperand(rule, *assignment, operands, i);
    update(operand, operands[i].mayBecomePartial ? needed : dropPartial(needed));
  }
  for (auto [i, result] : llvm::enumerate(op->getResults()))
    update(result, projectResult(rule, *assignment, i, results[i].sharding));
}

void FunctionPropagation::writeBack() {
  Block &body = func.getBody().front();
  MLIRContext *context = func.getContext();
  auto shardingOrReplicated = [&](Value value, RankedTensorType type) {
    ShardingAttr s = shardings.lookup(value);
    return s ? s : getReplicated(defaultMesh, type.getRank());
  };
  // Attributes are set once for all arguments and results (one by one is
  // quadratic in their number).
  auto withSharding = [&](DictionaryAttr attrs, ShardingAttr sharding) {
    NamedAttrList entries(attrs);
    entries.set(DistDialect::getShardingAttrName(), sharding);
    return entries.getDictionary(context);
  };
  auto shardingsName = StringAttr::get(context, DistDialect::getShardingsAttrName());
  SmallVector<DictionaryAttr> argAttrs;
  for (BlockArgument arg : body.getArguments()) {
    DictionaryAttr attrs = func.getArgAttrDict(arg.getArgNumber());
    // A given layout is kept as written (with its owner, if any).
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (type && !getArgSharding(func, arg.getArgNumber()))
      attrs = withSharding(attrs, shardingOrReplicated(arg, type));
    argAttrs.push_back(attrs);
  }
  func.setAllArgAttrs(argAttrs);
  auto edgeShardingsName =
      StringAttr::get(context, DistDialect::getEdgeShardingsAttrName());
  forEachPropagatedOp(func, [&](Operation *op) {
    // Edges that no result records (an scf.while's `before` arguments).
    if (op->getNumRegions() != 0 && isa<DataFlowShardingOpInterface>(op)) {
      SmallVector<Attribute> entries;
      for (const DataFlowEdge &edge : getEdges(op)) {
        if (edge.result || edge.isFixed)
          continue;
        Value target = edge.targets.empty() ? Value() : edge.targets.front();
        auto type = target ? dyn_cast<RankedTensorType>(target.getType())
                           : RankedTensorType();
        entries.push_back(type ? Attribute(shardingOrReplicated(target, type))
                               : Attribute(UnitAttr::get(context)));
      }
      if (!entries.empty())
        op->setAttr(edgeShardingsName, ArrayAttr::get(context, entries));
    }
    if (isa<AnnotateOp>(op) || op->getNumResults() == 0 ||
        llvm::none_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>))
      return;
    SmallVector<Attribute> entries;
    for (Value result : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      entries.push_back(type ? Attribute(shardingOrReplicated(result, type))
                             : Attribute(UnitAttr::get(context)));
    }
    op->setAttr(shardingsName, ArrayAttr::get(context, entries));
  });
  // Undeclared results get the returned value's layout, reduced: handing a
  // pending reduction to the caller must be asked for explicitly.
  Operation *ret = body.getTerminator();
  SmallVector<DictionaryAttr> resultAttrs;
  for (auto [i, operand] : llvm::enumerate(ret->getOperands())) {
    DictionaryAttr attrs = func.getResultAttrDict(i);
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (type && !getResultSharding(func, i))
      attrs = withSharding(attrs, dropPartial(shardingOrReplicated(operand, type)));
    resultAttrs.push_back(attrs);
  }
  func.setAllResultAttrs(resultAttrs);
}

LogicalResult FunctionPropagation::run() {
  if (func.isExternal())
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitOpError()
           << "has " << func.getBody().getBlocks().size()
           << " blocks; dist-propagate handles functions with one block "
              "(structured control flow)";
  if (failed(initialize()))
    return failure();
  if (!defaultMesh)
    return success();
  while (!worklist.empty()) {
    Operation *op = worklist.front();
    worklist.pop_front();
    queued.erase(op);
    process(op);
  }
  writeBack();
  return success();
}

/// True if `op` makes a value that is free to recreate: a side-effect-free
/// op with one tensor result whose tensor operands its rule says it only
/// overwrites, each made by such an op too (`tensor.empty`, a `linalg.fill`
/// of one).
static bool isFreeToRecreate(Operation *op, ShardingRuleCache &ruleCache,
                             DenseMap<Operation *, bool> &known) {
  auto [it, inserted] = known.try_emplace(op, false);
  if (!inserted)
    return it->second;
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()) ||
      !isMemoryEffectFree(op))
    return false;
  FailureOr<const ShardingRule *> rule = ruleCache.lookup(op);
  if (failed(rule) || !*rule)
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<RankedTensorType>(operand.get().getType()))
      continue;
    Operation *def = operand.get().getDefiningOp();
    if (!(*rule)->operandIsInitOnly[operand.getOperandNumber()] || !def ||
        !isFreeToRecreate(def, ruleCache, known))
      return false;
  }
  return known[op] = true;
}

/// Gives each use of `op`'s result but the first its own copy of `op`.
static void cloneForEachUse(Operation *op) {
  SmallVector<OpOperand *> uses = llvm::map_to_vector(
      op->getResult(0).getUses(), [](OpOperand &use) { return &use; });
  OpBuilder builder(op->getContext());
  builder.setInsertionPointAfter(op);
  for (OpOperand *use : llvm::drop_begin(uses))
    use->set(builder.clone(*op)->getResult(0));
}

/// A value free to recreate (a zero accumulator) read by several ops would
/// tie those ops' layouts together (a column- and a row-parallel matmul
/// sharing one zero fill after CSE, say). Each use gets its own copy, so each
/// takes the layout its user wants and no reshard is made for it.
static void splitSharedInits(func::FuncOp func,
                             ShardingRuleCache &ruleCache) {
  // Users before producers: the copies of a fill share its empty, which is
  // then split in turn.
  SmallVector<Operation *> shared;
  func.walk([&](Operation *op) {
    if (op->getNumResults() == 1 && !op->use_empty() &&
        !op->getResult(0).hasOneUse())
      shared.push_back(op);
  });
  DenseMap<Operation *, bool> known;
  for (Operation *op : llvm::reverse(shared))
    if (!op->getResult(0).hasOneUse() && isFreeToRecreate(op, ruleCache, known))
      cloneForEachUse(op);
}

namespace {
struct DistPropagatePass
    : public dist::impl::DistPropagateBase<DistPropagatePass> {
  void runOnOperation() override {
    SymbolTableCollection symbolTables;
    auto &ruleCache = getAnalysis<ShardingRuleCache>();
    // Callees before callers: a call site takes its callee's completed
    // layouts.
    SmallVector<func::FuncOp> order;
    DenseMap<Operation *, int> state; // 1: on the DFS stack, 2: done
    std::function<LogicalResult(func::FuncOp)> visit =
        [&](func::FuncOp func) -> LogicalResult {
      int &mark = state[func];
      if (mark == 2)
        return success();
      if (mark == 1)
        return func.emitOpError()
               << "is called recursively; dist-propagate needs an acyclic "
                  "call graph";
      mark = 1;
      WalkResult walk = func.walk([&](CallOpInterface call) {
        auto callee = dyn_cast_or_null<func::FuncOp>(
            call.resolveCallableInTable(&symbolTables));
        if (callee && !callee.isExternal() && failed(visit(callee)))
          return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
      state[func] = 2;
      order.push_back(func);
      return success();
    };
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(visit(func)))
        return signalPassFailure();
    for (func::FuncOp func : order) {
      splitSharedInits(func, ruleCache);
      FunctionPropagation propagation(func, symbolTables, ruleCache);
      if (failed(propagation.run()))
        return signalPassFailure();
    }
    // Only attributes and copies of inits were added: dist-partition may
    // reuse the rules.
    markAnalysesPreserved<ShardingRuleCache>();
  }
};
} // namespace
