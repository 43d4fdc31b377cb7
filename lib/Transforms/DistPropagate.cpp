//===- DistPropagate.cpp - Complete shardings from annotations ------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"
#include "dist/Interfaces/ShardingRuleInterface.h"
#include "dist/Support/AddressOrderKeys.h"
#include "dist/Transforms/FactorAssignment.h"
#include "dist/Transforms/Passes.h"
#include "dist/Transforms/ShardingRuleCache.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

#include <deque>

#define DEBUG_TYPE "dist-propagate"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPROPAGATE
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

/// Calls `fn` on every op of `func`'s body and of the bodies of the region
/// ops propagation sees through (scf.for), in program order; the scalar
/// bodies of other ops (linalg) are not entered.
static void forEachPropagatedOp(func::FuncOp func,
                                function_ref<void(Operation *)> fn) {
  func.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    fn(op);
    return isa<scf::ForOp, scf::IfOp>(op) ? WalkResult::advance()
                                           : WalkResult::skip();
  });
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
  /// scf.for: the init, iter arg, yielded value and result of each carried
  /// value share one layout.
  void processLoop(scf::ForOp loop);
  /// scf.if: each result and the values both branches yield for it share one
  /// layout.
  void processBranch(scf::IfOp branch);
  /// The function `call` calls, if it is defined in this module.
  func::FuncOp getCallee(func::CallOp call) {
    return symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
  }

  func::FuncOp func;
  SymbolTableCollection &symbolTables;
  ShardingRuleCache &ruleCache;
  /// The mesh the function's annotations use (for replicated defaults).
  FlatSymbolRefAttr defaultMesh;
  FlatSymbolRefAttr lastMeshName;
  MeshOp lastMesh;
  ValueMap<ShardingAttr> shardings;
  ValueSet fixed;
  std::deque<Operation *> worklist;
  OpSet queued;
};

} // namespace

static ShardingAttr getArgSharding(func::FuncOp func, unsigned i) {
  return func.getArgAttrOfType<ShardingAttr>(i,
                                             DistDialect::getShardingAttrName());
}

static ShardingAttr getResultSharding(func::FuncOp func, unsigned i) {
  return func.getResultAttrOfType<ShardingAttr>(
      i, DistDialect::getShardingAttrName());
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
  // A function that calls annotated functions works on their mesh.
  if (!defaultMesh)
    func.walk([&](func::CallOp call) {
      func::FuncOp callee = getCallee(call);
      if (!callee)
        return WalkResult::advance();
      for (unsigned i = 0; i < callee.getNumArguments() && !defaultMesh; ++i)
        if (ShardingAttr s = getArgSharding(callee, i))
          defaultMesh = s.getMesh();
      for (unsigned i = 0; i < callee.getNumResults() && !defaultMesh; ++i)
        if (ShardingAttr s = getResultSharding(callee, i))
          defaultMesh = s.getMesh();
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
      shardings[annotate.getResult()] = annotate.getSharding();
      fixed.insert(annotate.getResult());
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      // One layout per callee: the call's results have the callee's result
      // layouts (replicated where it declares none).
      func::FuncOp callee = getCallee(call);
      for (auto [i, value] : llvm::enumerate(call.getResults())) {
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type)
          continue;
        ShardingAttr s = callee ? getResultSharding(callee, i) : ShardingAttr();
        if (s && s.getMesh() != defaultMesh) {
          call.emitOpError() << "calls " << call.getCalleeAttr()
                             << ", whose results are laid out on mesh "
                             << s.getMesh() << ", from a function on "
                             << defaultMesh << "; one function must use one mesh";
          result = failure();
          return;
        }
        shardings[value] = s ? dropPartial(s) : getReplicated(defaultMesh, type.getRank());
        fixed.insert(value);
      }
    } else if (!isa<func::ReturnOp, scf::ForOp, scf::IfOp, scf::YieldOp>(op)) {
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
  if (auto arg = dyn_cast<BlockArgument>(value))
    info.mayBecomePartial =
        isa<scf::ForOp>(arg.getOwner()->getParentOp()) && arg.getArgNumber() > 0;
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
  // The ops that read or make the value; a loop stands for its iter args
  // and its yield.
  auto neighbour = [](Operation *op) {
    return isa<scf::YieldOp>(op) ? op->getParentOp() : op;
  };
  if (Operation *def = value.getDefiningOp())
    enqueue(def);
  else if (auto arg = dyn_cast<BlockArgument>(value))
    if (isa<scf::ForOp>(arg.getOwner()->getParentOp()))
      enqueue(arg.getOwner()->getParentOp());
  // A branch's results are made by its yields.
  if (auto branch = value.getDefiningOp<scf::IfOp>())
    enqueue(branch);
  for (Operation *user : value.getUsers())
    enqueue(neighbour(user));
}

void FunctionPropagation::processBranch(scf::IfOp branch) {
  if (branch.getNumResults() == 0)
    return;
  SmallVector<Operation *> yields = {branch.thenYield()};
  if (!branch.getElseRegion().empty())
    yields.push_back(branch.elseYield());
  for (auto [i, result] : llvm::enumerate(branch.getResults())) {
    if (!isa<RankedTensorType>(result.getType()))
      continue;
    SmallVector<Value> yielded;
    for (Operation *yield : yields)
      yielded.push_back(yield->getOperand(i));
    // The result takes whatever a branch makes (a partial yield makes it
    // partial; the other branch is masked); the yields take only the layout.
    yielded.push_back(result);
    ArrayRef<Value> carried(yielded);
    for (Value from : carried) {
      ShardingAttr s = shardings.lookup(from);
      if (!s)
        continue;
      update(result, s);
      for (Value to : carried.drop_back())
        update(to, dropPartial(s));
    }
  }
}

void FunctionPropagation::processLoop(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [init, arg, yielded, result] :
       llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                 yield.getOperands(), loop.getResults())) {
    if (!isa<RankedTensorType>(result.getType()))
      continue;
    // A carried value has one layout. A pending reduction may be carried
    // (accumulating partial gradients): whether it is partial is decided by
    // what the body yields, so partial state travels from the yield to the
    // iter arg and the result; everything else shares the layout only.
    Value carried[] = {init, arg, yielded, result};
    for (Value from : carried) {
      ShardingAttr s = shardings.lookup(from);
      if (!s)
        continue;
      for (Value to : carried)
        if (to != from)
          update(to, from == yielded && to != init ? s : dropPartial(s));
    }
  }
}

void FunctionPropagation::process(Operation *op) {
  if (auto annotate = dyn_cast<AnnotateOp>(op)) {
    // The annotated layout is a good start for the operand too.
    update(annotate.getInput(), annotate.getSharding());
    return;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    processLoop(loop);
    return;
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    processBranch(branch);
    return;
  }
  if (auto call = dyn_cast<func::CallOp>(op)) {
    // The callee's argument layouts are a good start for the operands.
    if (func::FuncOp callee = getCallee(call))
      for (auto [i, operand] : llvm::enumerate(call.getOperands()))
        if (ShardingAttr s = getArgSharding(callee, i))
          if (s.getMesh() == defaultMesh)
            update(operand, dropPartial(s));
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
    if (auto type = dyn_cast<RankedTensorType>(arg.getType()))
      attrs = withSharding(attrs, shardingOrReplicated(arg, type));
    argAttrs.push_back(attrs);
  }
  func.setAllArgAttrs(argAttrs);
  forEachPropagatedOp(func, [&](Operation *op) {
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

namespace {
/// Gives each use of `op`'s result but the first its own copy of `op`.
static void cloneForEachUse(Operation *op) {
  SmallVector<OpOperand *> uses = llvm::map_to_vector(
      op->getResult(0).getUses(), [](OpOperand &use) { return &use; });
  OpBuilder builder(op->getContext());
  builder.setInsertionPointAfter(op);
  for (OpOperand *use : llvm::drop_begin(uses))
    use->set(builder.clone(*op)->getResult(0));
}

/// A `tensor.empty`, or a `linalg.fill` of one, read by several ops would tie
/// those ops' layouts together although its value is free to recreate (a
/// zero accumulator shared by a column- and a row-parallel matmul, after CSE
/// for example). Each use gets its own copy, so each takes the layout its
/// user wants and no reshard is made for it.
static void splitSharedInits(func::FuncOp func) {
  // One walk finds both (a walk of a long op list is a cache miss per op).
  SmallVector<Operation *> fills, empties;
  auto isShared = [](Operation *op) {
    return !op->use_empty() && !op->getResult(0).hasOneUse();
  };
  func.walk([&](Operation *op) {
    if (op->getNumResults() != 1)
      return;
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (isShared(op) && fill.hasPureTensorSemantics() &&
          fill.getOutputs().front().getDefiningOp<tensor::EmptyOp>())
        fills.push_back(op);
    } else if (isa<tensor::EmptyOp>(op) && isShared(op)) {
      empties.push_back(op);
    }
  });
  // The copies of a fill share its empty, which then needs copies too.
  llvm::SmallPtrSet<Operation *, 16> listed(empties.begin(), empties.end());
  for (Operation *fill : fills) {
    cloneForEachUse(fill);
    Operation *empty =
        cast<linalg::FillOp>(fill).getOutputs().front().getDefiningOp();
    if (listed.insert(empty).second)
      empties.push_back(empty);
  }
  for (Operation *empty : empties)
    if (isShared(empty))
      cloneForEachUse(empty);
}

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
      WalkResult walk = func.walk([&](func::CallOp call) {
        auto callee = symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
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
      splitSharedInits(func);
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
