//===- TrainingStepUtils.cpp - Helpers of the training-step rewrites ------===//

#include "TrainingStepUtils.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::dist;

void dist::eraseStepArguments(func::FuncOp func,
                              const llvm::BitVector &arguments,
                              const llvm::BitVector &results) {
  MLIRContext *context = func.getContext();
  // Per argument, how many erased arguments precede it.
  SmallVector<int64_t> erasedBefore(arguments.size() + 1, 0);
  for (unsigned a = 0; a < arguments.size(); ++a)
    erasedBefore[a + 1] = erasedBefore[a] + arguments.test(a);
  auto renumber = [&](IntegerAttr index) {
    int64_t i = index.getInt();
    int64_t before = erasedBefore[std::min<int64_t>(i, arguments.size())];
    return IntegerAttr::get(index.getType(), i - before);
  };
  StringRef argMarks[] = {DistDialect::getStateOfAttrName(),
                          DistDialect::getGradAccumulatorOfAttrName()};
  StringRef resultMarks[] = {DistDialect::getStateOfAttrName(),
                             DistDialect::getGradAccumulatorOfAttrName(),
                             DistDialect::getUpdatesAttrName()};
  for (unsigned a = 0, e = func.getNumArguments(); a < e; ++a)
    for (StringRef mark : argMarks)
      if (auto index = func.getArgAttrOfType<IntegerAttr>(a, mark))
        func.setArgAttr(a, mark, renumber(index));
  for (unsigned r = 0, e = func.getNumResults(); r < e; ++r)
    for (StringRef mark : resultMarks)
      if (auto index = func.getResultAttrOfType<IntegerAttr>(r, mark))
        func.setResultAttr(r, mark, renumber(index));
  auto gradOf = StringAttr::get(context, DistDialect::getGradOfAttrName());
  func.walk([&](Operation *op) {
    if (auto index = op->getAttrOfType<IntegerAttr>(gradOf))
      op->setAttr(gradOf, renumber(index));
  });
  Operation *ret = func.getBody().front().getTerminator();
  for (int r = results.size() - 1; r >= 0; --r)
    if (results.test(r))
      ret->eraseOperand(r);
  (void)func.eraseResults(results);
  (void)func.eraseArguments(arguments);
}

Value dist::buildSplatConstant(OpBuilder &builder, Location loc,
                               RankedTensorType type, double value) {
  TypedAttr element;
  if (isa<FloatType>(type.getElementType()))
    element = builder.getFloatAttr(type.getElementType(), value);
  else
    element = builder.getIntegerAttr(type.getElementType(), (int64_t)value);
  return arith::ConstantOp::create(builder, loc,
                                   DenseElementsAttr::get(type, element));
}

std::string dist::derivedStateName(func::FuncOp func, unsigned arg,
                                   StringRef suffix) {
  auto name =
      func.getArgAttrOfType<StringAttr>(arg, DistDialect::getNameAttrName());
  return (name ? name.getValue().str() : "arg" + std::to_string(arg)) + "." +
         suffix.str();
}

std::pair<Value, Value> dist::buildOnceEveryK(OpBuilder &builder, Location loc,
                                              Value counter, int64_t k) {
  auto type = cast<RankedTensorType>(counter.getType());
  Value next = arith::AddIOp::create(builder, loc, counter,
                                     buildSplatConstant(builder, loc, type, 1));
  Value count = tensor::ExtractOp::create(builder, loc, next);
  Value period =
      arith::ConstantOp::create(builder, loc, builder.getI64IntegerAttr(k));
  Value zero =
      arith::ConstantOp::create(builder, loc, builder.getI64IntegerAttr(0));
  Value remainder = arith::RemSIOp::create(builder, loc, count, period);
  auto isMultiple = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq, remainder, zero);
  // On the condition rather than on the scf.if using it: canonicalization
  // rebuilds an scf.if without its attributes.
  isMultiple->setAttr(DistDialect::getTrueOnceEveryAttrName(),
                      builder.getI64IntegerAttr(k));
  return {next, isMultiple};
}

LogicalResult
dist::forEachTrainingStep(ModuleOp module, StringRef passName, StepPhase phase,
                          function_ref<LogicalResult(func::FuncOp)> rewrite) {
  bool ok = true, foundStep = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    bool isStep = false;
    std::optional<unsigned> partitioned;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      isStep |= bool(func.getArgAttr(i, DistDialect::getParamAttrName()));
      if (!partitioned &&
          func.getArgAttr(i, DistDialect::getPartitionedAsAttrName()))
        partitioned = i;
    }
    if (!isStep)
      continue;
    foundStep = true;
    if (phase == StepPhase::Global && partitioned) {
      func.emitOpError() << "is a per-rank program (argument " << *partitioned
                         << " is partitioned); " << passName
                         << " takes a global program";
      ok = false;
      continue;
    }
    if (phase == StepPhase::PerRank && !partitioned) {
      func.emitOpError() << "is a global program (no argument is "
                            "partitioned); "
                         << passName << " takes a per-rank program";
      ok = false;
      continue;
    }
    if (failed(rewrite(func)))
      ok = false;
  }
  if (ok && !foundStep) {
    module.emitError() << passName
                       << ": no training step (no function argument is "
                          "marked '"
                       << DistDialect::getParamAttrName() << "')";
    ok = false;
  }
  return success(ok);
}

FailureOr<MeshOp> dist::findStepMesh(ModuleOp module, StringRef meshName,
                                     StringRef passName) {
  SmallVector<MeshOp> meshes(module.getOps<MeshOp>());
  if (!meshName.empty()) {
    for (MeshOp mesh : meshes)
      if (mesh.getSymName() == meshName)
        return mesh;
    return module.emitError() << passName << ": no dist.mesh named @"
                              << meshName;
  }
  if (meshes.size() != 1)
    return module.emitError()
           << passName << ": the module has " << meshes.size()
           << " meshes; name one with the 'mesh' option";
  return meshes.front();
}

SmallVector<SmallVector<StringRef>>
dist::getDimAxisNames(ShardingAttr sharding, int64_t rank) {
  SmallVector<SmallVector<StringRef>> dims(rank);
  if (!sharding)
    return dims;
  for (int64_t d = 0; d < rank; ++d)
    for (StringAttr axis : sharding.getDimAxes(d))
      dims[d].push_back(axis.getValue());
  return dims;
}

ShardingAttr dist::keepHalos(ShardingAttr rebuilt, ShardingAttr original) {
  if (!original || !original.hasHalos() || rebuilt.isPartial() ||
      rebuilt.isOwned() || rebuilt.getRank() != original.getRank())
    return rebuilt;
  SmallVector<DimShardingAttr> dims(rebuilt.getDims());
  for (auto [dim, from] : llvm::zip(dims, original.getDims()))
    if (from.hasHalo() && dim.getAxes() == from.getAxes())
      dim = from;
  return ShardingAttr::get(rebuilt.getMesh(), dims);
}

bool dist::shardingUsesAxis(ShardingAttr sharding, StringRef axis) {
  if (!sharding)
    return false;
  for (DimShardingAttr dim : sharding.getDims())
    for (StringAttr a : dim.getAxes())
      if (a.getValue() == axis)
        return true;
  return llvm::any_of(sharding.getPartialAxes(),
                      [&](StringAttr a) { return a.getValue() == axis; });
}
