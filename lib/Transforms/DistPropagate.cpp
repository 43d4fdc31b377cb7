//===- DistPropagate.cpp - Complete shardings from annotations ------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"
#include "dist/Interfaces/ShardingRuleInterface.h"
#include "dist/Transforms/FactorAssignment.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

namespace {

/// Propagation state of one function.
class FunctionPropagation {
public:
  FunctionPropagation(func::FuncOp func, SymbolTableCollection &symbolTables)
      : func(func), symbolTables(symbolTables) {}

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
    return lookupMesh(func, name, &symbolTables);
  }
  void writeBack();

  func::FuncOp func;
  SymbolTableCollection &symbolTables;
  /// The mesh the function's annotations use (for replicated defaults).
  FlatSymbolRefAttr defaultMesh;
  DenseMap<Value, ShardingAttr> shardings;
  DenseSet<Value> fixed;
  DenseMap<Operation *, std::optional<ShardingRule>> rules;
  std::deque<Operation *> worklist;
  DenseSet<Operation *> queued;
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

  for (Operation &op : body) {
    if (auto annotate = dyn_cast<AnnotateOp>(op)) {
      shardings[annotate.getResult()] = annotate.getSharding();
      fixed.insert(annotate.getResult());
    } else if (!isa<func::ReturnOp>(op)) {
      std::optional<ShardingRule> rule;
      if (auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op)) {
        FailureOr<ShardingRule> computed = ruleOp.getShardingRule();
        if (succeeded(computed)) {
          if (failed(computed->verify(&op)))
            return failure();
          rule = std::move(*computed);
        }
      }
      // Without a rule the op computes its tensors whole on every rank.
      if (!rule)
        for (Value result : op.getResults())
          if (auto type = dyn_cast<RankedTensorType>(result.getType())) {
            shardings[result] = getReplicated(defaultMesh, type.getRank());
            fixed.insert(result);
          }
      rules[&op] = std::move(rule);
    }
    enqueue(&op);
  }
  return success();
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
  Block &body = func.getBody().front();
  if (Operation *def = value.getDefiningOp())
    enqueue(body.findAncestorOpInBlock(*def));
  for (Operation *user : value.getUsers())
    enqueue(body.findAncestorOpInBlock(*user));
}

void FunctionPropagation::process(Operation *op) {
  if (auto annotate = dyn_cast<AnnotateOp>(op)) {
    // The annotated layout is a good start for the operand too.
    update(annotate.getInput(), annotate.getSharding());
    return;
  }
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    for (auto [i, operand] : llvm::enumerate(ret.getOperands()))
      update(operand, dropPartial(getResultSharding(func, i)));
    return;
  }
  auto ruleIt = rules.find(op);
  if (ruleIt == rules.end() || !ruleIt->second)
    return;
  const ShardingRule &rule = *ruleIt->second;
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
  // by its producer.
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    update(operand, dropPartial(projectOperand(rule, *assignment, operands, i)));
  for (auto [i, result] : llvm::enumerate(op->getResults()))
    update(result, projectResult(rule, *assignment, i));
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
  SmallVector<DictionaryAttr> argAttrs;
  for (BlockArgument arg : body.getArguments()) {
    DictionaryAttr attrs = func.getArgAttrDict(arg.getArgNumber());
    if (auto type = dyn_cast<RankedTensorType>(arg.getType()))
      attrs = withSharding(attrs, shardingOrReplicated(arg, type));
    argAttrs.push_back(attrs);
  }
  func.setAllArgAttrs(argAttrs);
  for (Operation &op : body) {
    if (isa<AnnotateOp>(op) || op.getNumResults() == 0 ||
        llvm::none_of(op.getResultTypes(), llvm::IsaPred<RankedTensorType>))
      continue;
    SmallVector<Attribute> entries;
    for (Value result : op.getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      entries.push_back(type ? Attribute(shardingOrReplicated(result, type))
                             : Attribute(UnitAttr::get(context)));
    }
    op.setAttr(DistDialect::getShardingsAttrName(),
               ArrayAttr::get(context, entries));
  }
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
struct DistPropagatePass
    : public dist::impl::DistPropagateBase<DistPropagatePass> {
  void runOnOperation() override {
    SymbolTableCollection symbolTables;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      FunctionPropagation propagation(func, symbolTables);
      if (failed(propagation.run()))
        return signalPassFailure();
    }
  }
};
} // namespace
