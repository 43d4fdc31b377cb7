//===- DistDialect.cpp - dist dialect -------------------------------------===//

#include "dist/Dialect/Dist/IR/DistDialect.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "dist/Dialect/Dist/IR/StepState.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::dist;

#include "dist/Dialect/Dist/IR/DistDialect.cpp.inc"

void DistDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dist/Dialect/Dist/IR/DistOps.cpp.inc"
      >();
}

/// Verifies a `dist.sharding` or `dist.partitioned_as` attribute attached to
/// a function argument or result of type `type`; `what` is e.g.
/// "argument 1".
static LogicalResult verifyBoundarySharding(Operation *op, NamedAttribute attr,
                                            Type type, const Twine &what) {
  bool isLocal = attr.getName() == DistDialect::getPartitionedAsAttrName();
  if (attr.getName() != DistDialect::getShardingAttrName() && !isLocal)
    return op->emitOpError()
           << what << ": unknown dist attribute '" << attr.getName().getValue()
           << "'";
  auto sharding = dyn_cast<ShardingAttr>(attr.getValue());
  if (!sharding)
    return op->emitOpError() << what << ": '" << attr.getName().getValue()
                             << "' must be a #dist.sharding, got "
                             << attr.getValue();
  MeshOp mesh = lookupMesh(op, sharding.getMesh());
  auto emitError = [&]() { return op->emitOpError() << what << ": "; };
  // A per-rank function keeps describing its buffers after bufferization.
  if (auto memref = dyn_cast<MemRefType>(type); memref && isLocal)
    type = RankedTensorType::get(memref.getShape(), memref.getElementType());
  if (!isLocal)
    return verifySharding(sharding, type, mesh, emitError);
  // A local type: it has the rank of the global one, but divisibility was
  // checked before partitioning.
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType || !mesh || tensorType.getRank() != sharding.getRank())
    return verifySharding(sharding, type, mesh, emitError);
  for (auto [d, dim] : llvm::enumerate(sharding.getDims())) {
    if (failed(mesh.getAxisIndices(dim.getAxes(), emitError)))
      return failure();
    // A local block holds its halo's rows besides at least one of its own,
    // and at least as many as the halo takes from each neighbour.
    meshmath::Halo halo = dim.getHalo();
    int64_t size = tensorType.getDimSize(d);
    if (!halo.empty() &&
        (ShapedType::isDynamic(size) || size - halo.extra() < 1 ||
         size - halo.extra() < std::max(halo.lo, halo.hi)))
      return emitError() << "local dim " << d << " of " << type
                         << " is too small for "
                         << (halo.overlap ? "its overlap" : "its halo")
                         << ": a block needs at least "
                         << std::max<int64_t>({1, halo.lo, halo.hi})
                         << " rows besides " << halo.extra();
  }
  return mesh.getAxisIndices(sharding.getPartialAxes(), emitError);
}

/// `dist.global_shape = array<i64: ...>` beside `dist.partitioned_as` on a
/// boundary value of type `type` whose attributes are `attrs`: the global
/// shape whose padded blocks the local type holds.
static LogicalResult verifyGlobalShape(Operation *op, NamedAttribute attr,
                                       Type type, DictionaryAttr attrs,
                                       const Twine &what) {
  auto shape = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  auto sharding =
      attrs ? attrs.getAs<ShardingAttr>(DistDialect::getPartitionedAsAttrName())
            : ShardingAttr();
  if (auto memref = dyn_cast<MemRefType>(type))
    type = RankedTensorType::get(memref.getShape(), memref.getElementType());
  auto local = dyn_cast<RankedTensorType>(type);
  if (!shape || !sharding || !local)
    return op->emitOpError()
           << what << ": '" << attr.getName().getValue()
           << "' must be an array<i64> beside a 'dist.partitioned_as' on a "
              "ranked tensor, got "
           << attr.getValue() << " on " << type;
  MeshOp mesh = lookupMesh(op, sharding.getMesh());
  if (!mesh || (int64_t)shape.size() != local.getRank() ||
      sharding.getRank() != local.getRank())
    return op->emitOpError() << what << ": '" << attr.getName().getValue()
                             << "' " << attr.getValue()
                             << " does not match the local type " << type;
  for (auto [d, dim] : llvm::enumerate(sharding.getDims())) {
    if (llvm::any_of(dim.getAxes(),
                     [&](StringAttr axis) { return !mesh.getAxisIndex(axis); }))
      return failure(); // reported for dist.partitioned_as
    std::optional<int64_t> block = meshmath::haloBlockSize(
        shape[d], mesh.getGroupSize(dim.getAxes()), dim.getHalo());
    if (shape[d] < 0 || !block ||
        *block + dim.getHalo().extra() != local.getDimSize(d))
      return op->emitOpError()
             << what << ": '" << attr.getName().getValue() << "' "
             << attr.getValue() << " does not match the local type " << type
             << " laid out as " << sharding << " (dim " << d << ")";
  }
  return success();
}

/// `dist.input_range = array<i64: lo, hi>` on an integer argument.
static LogicalResult verifyInputRange(Operation *op, NamedAttribute attr,
                                      Type type, unsigned argIndex) {
  auto range = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  if (!range || range.size() != 2 || range[0] >= range[1])
    return op->emitOpError()
           << "argument " << argIndex << ": '" << attr.getName().getValue()
           << "' must be array<i64: lo, hi> with lo < hi, got "
           << attr.getValue();
  if (!getElementTypeOrSelf(type).isSignlessInteger() &&
      !getElementTypeOrSelf(type).isIndex())
    return op->emitOpError() << "argument " << argIndex << ": '"
                             << attr.getName().getValue()
                             << "' applies to integer arguments, not " << type;
  // Values lo .. hi - 1 must fit the element type: signed, except i1 (0, 1).
  Type element = getElementTypeOrSelf(type);
  unsigned width = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  if (width < 64) {
    int64_t min = width == 1 ? 0 : -(int64_t(1) << (width - 1));
    int64_t max = width == 1 ? 1 : (int64_t(1) << (width - 1)) - 1;
    if (range[0] < min || range[1] - 1 > max)
      return op->emitOpError()
             << "argument " << argIndex << ": '" << attr.getName().getValue()
             << "' [" << range[0] << ", " << range[1] << ") does not fit "
             << element << " (" << min << " .. " << max << ")";
  }
  return success();
}

/// The global tensor type of a function boundary value of type `type` with
/// attributes `attrs`: a buffer is seen as a tensor, and a local type of a
/// partitioned function (dist.partitioned_as) as its global type.
static Type getBoundaryGlobalType(Operation *op, Type type,
                                  DictionaryAttr attrs) {
  if (auto memref = dyn_cast<MemRefType>(type))
    type = RankedTensorType::get(memref.getShape(), memref.getElementType());
  auto tensorType = dyn_cast<RankedTensorType>(type);
  auto sharding =
      attrs ? attrs.getAs<ShardingAttr>(DistDialect::getPartitionedAsAttrName())
            : ShardingAttr();
  if (!tensorType || !sharding || sharding.getRank() != tensorType.getRank())
    return type;
  if (auto shape = attrs.getAs<DenseI64ArrayAttr>(
          DistDialect::getGlobalShapeAttrName());
      shape && (int64_t)shape.size() == tensorType.getRank())
    return tensorType.clone(shape.asArrayRef());
  MeshOp mesh = lookupMesh(op, sharding.getMesh());
  if (!mesh)
    return type;
  for (DimShardingAttr dim : sharding.getDims())
    for (StringAttr axis : dim.getAxes())
      if (!mesh.getAxisIndex(axis))
        return type;
  return getGlobalType(tensorType, sharding, mesh);
}

/// The state marking of result `resultIndex`: the argument it updates
/// (by `dist.updates` or by `dist.name`) has its (global) type, the two
/// markings agree, and no other result updates the same argument.
static LogicalResult verifyStateResult(FunctionOpInterface func,
                                       unsigned resultIndex) {
  Operation *op = func;
  std::optional<unsigned> arg = getUpdatedArgument(func, resultIndex);
  if (!arg)
    return success();
  auto name = func.getResultAttrOfType<StringAttr>(
      resultIndex, DistDialect::getNameAttrName());
  if (name && func.getResultAttr(resultIndex, DistDialect::getUpdatesAttrName()))
    for (unsigned other = 0, e = func.getNumArguments(); other < e; ++other)
      if (other != *arg && func.getArgAttrOfType<StringAttr>(
                               other, DistDialect::getNameAttrName()) == name)
        return op->emitOpError()
               << "result " << resultIndex << " updates argument " << *arg
               << " ('" << DistDialect::getUpdatesAttrName()
               << "') but is named " << name << " like argument " << other;
  Type argType = getBoundaryGlobalType(op, func.getArgumentTypes()[*arg],
                                       func.getArgAttrDict(*arg));
  Type resultType =
      getBoundaryGlobalType(op, func.getResultTypes()[resultIndex],
                            func.getResultAttrDict(resultIndex));
  if (argType != resultType)
    return op->emitOpError()
           << "result " << resultIndex << " of type " << resultType
           << " updates argument " << *arg << " of type " << argType
           << "; the new value must have the argument's type";
  for (unsigned other = 0; other < resultIndex; ++other)
    if (getUpdatedArgument(func, other) == arg)
      return op->emitOpError()
             << "result " << resultIndex << " updates argument " << *arg
             << ", which result " << other << " already updates";
  return success();
}

/// `dist.updates = <argument index> : i64` on result `resultIndex`: the
/// result is the next value of that argument.
static LogicalResult verifyUpdates(FunctionOpInterface func,
                                   NamedAttribute attr, unsigned resultIndex) {
  Operation *op = func;
  auto index = dyn_cast<IntegerAttr>(attr.getValue());
  if (!index || !index.getType().isSignlessInteger())
    return op->emitOpError()
           << "result " << resultIndex << ": '" << attr.getName().getValue()
           << "' must be the index of an argument (an integer such as 0 : "
              "i64), got "
           << attr.getValue();
  int64_t arg = index.getValue().getSExtValue();
  unsigned numArgs = func.getNumArguments();
  if (arg < 0 || arg >= (int64_t)numArgs)
    return op->emitOpError()
           << "result " << resultIndex << ": '" << attr.getName().getValue()
           << "' names argument " << arg << " but the function has "
           << numArgs << " argument(s)";
  return verifyStateResult(func, resultIndex);
}

/// `dist.name = "..."` on an argument (`isResult` false) or a result of a
/// function: a non-empty string; argument names are unique.
static LogicalResult verifyName(Operation *op, NamedAttribute attr,
                                unsigned index, bool isResult) {
  const char *what = isResult ? "result " : "argument ";
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name || name.getValue().empty())
    return op->emitOpError() << what << index << ": '"
                             << attr.getName().getValue()
                             << "' must be a non-empty string, got "
                             << attr.getValue();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return success();
  if (isResult)
    return verifyStateResult(func, index);
  for (unsigned other = 0; other < index; ++other)
    if (func.getArgAttrOfType<StringAttr>(other, attr.getName()) == name)
      return op->emitOpError() << "argument " << index << " is named " << name
                               << ", as argument " << other << " is";
  return success();
}

/// `dist.param` (unit) and `dist.state_of` / `dist.grad_of` (an argument
/// index, i64): their form. Whether the index names a parameter is a
/// property of the whole step, checked by dist-verify.
static LogicalResult verifyTrainingMarking(Operation *op, NamedAttribute attr,
                                          const Twine &where) {
  if (attr.getName() == DistDialect::getParamAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << where << ": '" << attr.getName().getValue()
                               << "' is a unit attribute, got "
                               << attr.getValue();
    return success();
  }
  auto index = dyn_cast<IntegerAttr>(attr.getValue());
  if (!index || !index.getType().isSignlessInteger() ||
      index.getValue().isNegative())
    return op->emitOpError() << where << ": '" << attr.getName().getValue()
                             << "' must be the index of an argument (an "
                                "integer such as 0 : i64), got "
                             << attr.getValue();
  return success();
}

/// `dist.state_pool` on a 2-D static tensor argument: each member a
/// dictionary with a name, its parameter's name, an owner row, an offset and
/// a shape that fits in the row after the offset, members of one row apart.
/// The owner is checked against the rows of a global argument only (a
/// partitioned one holds its own row).
static LogicalResult verifyStatePool(Operation *op, NamedAttribute attr,
                                     Type type, bool isLocal,
                                     unsigned argIndex) {
  auto fail = [&]() {
    return op->emitOpError()
           << "argument " << argIndex << ": '" << attr.getName().getValue()
           << "' ";
  };
  // A per-rank function keeps it after bufferization (a memref).
  auto tensor = dyn_cast<ShapedType>(type);
  if (!tensor || !tensor.hasRank() || tensor.getRank() != 2 ||
      !tensor.hasStaticShape())
    return fail() << "packs state into a 2-D static tensor (a row per owner), "
                     "not "
                  << type;
  auto members = dyn_cast<ArrayAttr>(attr.getValue());
  if (!members)
    return fail() << "must be an array of member dictionaries, got "
                  << attr.getValue();
  // (owner, offset, end) of every member, to find overlaps.
  SmallVector<std::tuple<int64_t, int64_t, int64_t>> extents;
  for (auto [m, entry] : llvm::enumerate(members)) {
    auto member = dyn_cast<DictionaryAttr>(entry);
    auto name = member ? member.getAs<StringAttr>("name") : StringAttr();
    auto param = member ? member.getAs<StringAttr>("param") : StringAttr();
    auto owner = member ? member.getAs<IntegerAttr>("owner") : IntegerAttr();
    auto offset = member ? member.getAs<IntegerAttr>("offset") : IntegerAttr();
    auto shape = member ? member.getAs<DenseI64ArrayAttr>("shape")
                        : DenseI64ArrayAttr();
    if (!name || name.getValue().empty() || !param || !owner || !offset ||
        !shape)
      return fail() << "member " << m
                    << " needs a name and a param (strings), an owner and an "
                       "offset (integers) and a shape (array<i64>), got "
                    << entry;
    int64_t elements = 1;
    for (int64_t size : shape.asArrayRef()) {
      if (size < 0)
        return fail() << "member " << m << " has a negative size in " << shape;
      elements *= size;
    }
    int64_t row = owner.getInt(), begin = offset.getInt();
    if (row < 0 || (!isLocal && row >= tensor.getDimSize(0)))
      return fail() << "member " << m << " (" << name << ") is owned by row "
                    << row << ", outside the " << tensor.getDimSize(0)
                    << " rows of " << type;
    if (begin < 0 || begin + elements > tensor.getDimSize(1))
      return fail() << "member " << m << " (" << name << ") spans columns ["
                    << begin << ", " << begin + elements
                    << "), outside the row of " << tensor.getDimSize(1);
    for (auto [otherRow, otherBegin, otherEnd] : extents)
      if (otherRow == row && begin < otherEnd && otherBegin < begin + elements)
        return fail() << "member " << m << " (" << name
                      << ") overlaps another member of row " << row;
    extents.emplace_back(row, begin, begin + elements);
  }
  return success();
}

LogicalResult DistDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  Type type;
  if (auto func = dyn_cast<FunctionOpInterface>(op))
    type = func.getArgumentTypes()[argIndex];
  else
    type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  if (attr.getName() == getInputRangeAttrName())
    return verifyInputRange(op, attr, type, argIndex);
  if (attr.getName() == getInputNormalAttrName()) {
    auto std = dyn_cast<FloatAttr>(attr.getValue());
    if (!std || !isa<FloatType>(getElementTypeOrSelf(type)) ||
        !(std.getValueAsDouble() >= 0))
      return op->emitOpError()
             << "argument " << argIndex << ": '" << getInputNormalAttrName()
             << "' must be a standard deviation >= 0 (a float value) on a "
                "float argument, got "
             << attr.getValue() << " on " << type;
    return success();
  }
  if (attr.getName() == getInputFromParamAttrName()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!isa<UnitAttr>(attr.getValue()) || !func ||
        !func.getArgAttr(argIndex, getStateOfAttrName()) ||
        !isa<FloatType>(getElementTypeOrSelf(type)))
      return op->emitOpError()
             << "argument " << argIndex << ": '" << getInputFromParamAttrName()
             << "' must be a unit attribute on a float argument that is "
                "optimizer state ('"
             << getStateOfAttrName() << "'), got " << attr.getValue()
             << " on " << type;
    return success();
  }
  if (attr.getName() == getInputFillAttrName()) {
    if (!isa<FloatAttr>(attr.getValue()) ||
        !isa<FloatType>(getElementTypeOrSelf(type)))
      return op->emitOpError()
             << "argument " << argIndex << ": '" << getInputFillAttrName()
             << "' must be a float value on a float argument, got "
             << attr.getValue() << " on " << type;
    return success();
  }
  if (attr.getName() == getNameAttrName())
    return verifyName(op, attr, argIndex, /*isResult=*/false);
  if (attr.getName() == getStatePoolAttrName()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    bool isLocal = func && func.getArgAttr(argIndex, getPartitionedAsAttrName());
    return verifyStatePool(op, attr, type, isLocal, argIndex);
  }
  if (attr.getName() == getParamAttrName() ||
      attr.getName() == getStateOfAttrName() ||
      attr.getName() == getGradAccumulatorOfAttrName())
    return verifyTrainingMarking(op, attr, "argument " + Twine(argIndex));
  if (attr.getName() == getGlobalShapeAttrName())
    return verifyGlobalShape(op, attr, type,
                             cast<FunctionOpInterface>(op).getArgAttrDict(argIndex),
                             "argument " + Twine(argIndex));
  return verifyBoundarySharding(op, attr, type,
                                "argument " + Twine(argIndex));
}

LogicalResult DistDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitOpError() << "'" << attr.getName().getValue()
                             << "' on a result of an op that is no function";
  if (attr.getName() == getUpdatesAttrName())
    return verifyUpdates(func, attr, resultIndex);
  if (attr.getName() == getNameAttrName())
    return verifyName(op, attr, resultIndex, /*isResult=*/true);
  if (attr.getName() == getStateOfAttrName() ||
      attr.getName() == getGradAccumulatorOfAttrName())
    return verifyTrainingMarking(op, attr, "result " + Twine(resultIndex));
  if (attr.getName() == getGlobalShapeAttrName())
    return verifyGlobalShape(op, attr, func.getResultTypes()[resultIndex],
                             func.getResultAttrDict(resultIndex),
                             "result " + Twine(resultIndex));
  return verifyBoundarySharding(op, attr, func.getResultTypes()[resultIndex],
                                "result " + Twine(resultIndex));
}

/// `dist.shardings`: one entry per result, a sharding valid for each tensor
/// result and unit for any other.
static LogicalResult verifyResultShardings(Operation *op, Attribute value) {
  auto entries = dyn_cast<ArrayAttr>(value);
  if (!entries)
    return op->emitOpError() << "'" << DistDialect::getShardingsAttrName()
                             << "' must be an array, got " << value;
  if (entries.size() != op->getNumResults())
    return op->emitOpError() << "'" << DistDialect::getShardingsAttrName()
                             << "' has " << entries.size()
                             << " entries for " << op->getNumResults()
                             << " results";
  // The entries' mesh, looked up once per name.
  FlatSymbolRefAttr meshName;
  MeshOp mesh;
  for (auto [i, entry, result] :
       llvm::enumerate(entries.getValue(), op->getResults())) {
    if (!isa<RankedTensorType>(result.getType())) {
      if (!isa<UnitAttr>(entry))
        return op->emitOpError() << "result " << i << " is no ranked tensor; "
                                 << "its entry in '"
                                 << DistDialect::getShardingsAttrName()
                                 << "' must be unit";
      continue;
    }
    auto sharding = dyn_cast<ShardingAttr>(entry);
    if (!sharding)
      return op->emitOpError() << "result " << i << ": entry in '"
                               << DistDialect::getShardingsAttrName()
                               << "' must be a #dist.sharding, got " << entry;
    if (sharding.getMesh() != meshName) {
      meshName = sharding.getMesh();
      mesh = lookupMesh(op, meshName);
    }
    if (failed(verifySharding(sharding, result.getType(), mesh, [&]() {
                                return op->emitOpError() << "result " << i
                                                         << ": ";
                              })))
      return failure();
  }
  return success();
}

LogicalResult DistDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getRoleAttrName()) {
    if (!isa<RoleAttr>(attr.getValue()))
      return op->emitOpError() << "'" << getRoleAttrName()
                               << "' must be a #dist.role, got "
                               << attr.getValue();
    return success();
  }
  if (attr.getName() == getShardingsAttrName())
    return verifyResultShardings(op, attr.getValue());
  if (attr.getName() == getGradOfAttrName()) {
    // After bufferization the op has no result: it writes the gradient into
    // its output buffer.
    bool bufferized = op->getNumResults() == 0 &&
                      llvm::any_of(op->getOperandTypes(),
                                   llvm::IsaPred<MemRefType>);
    if (op->getNumResults() != 1 && !bufferized)
      return op->emitOpError() << "'" << getGradOfAttrName()
                               << "' marks the result of a one-result op; "
                                  "this op has "
                               << op->getNumResults();
    return verifyTrainingMarking(op, attr, "its result");
  }
  if (attr.getName() == getRoundPartialsAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << "'" << getRoundPartialsAttrName()
                               << "' must be a unit attribute, got "
                               << attr.getValue();
    return success();
  }
  if (attr.getName() == getInputSeedAttrName()) {
    auto seed = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<mlir::ModuleOp>(op) || !seed || seed.getValue().isNegative())
      return op->emitOpError() << "'" << getInputSeedAttrName()
                               << "' belongs on a module and is a seed (an "
                                  "integer >= 0), got "
                               << attr.getValue();
    return success();
  }
  if (attr.getName() == getTrueOnceEveryAttrName()) {
    auto every = dyn_cast<IntegerAttr>(attr.getValue());
    if (!every || !every.getType().isSignlessInteger() ||
        every.getValue().getSExtValue() < 1)
      return op->emitOpError() << "'" << getTrueOnceEveryAttrName()
                               << "' must be a positive integer (true once "
                                  "every k calls), got "
                               << attr.getValue();
    if (op->getNumResults() != 1 || !op->getResult(0).getType().isInteger(1))
      return op->emitOpError() << "'" << getTrueOnceEveryAttrName()
                               << "' belongs on an op with one i1 result";
    return success();
  }
  if (attr.getName() == getEdgeShardingsAttrName()) {
    // Which edges exist is the op's interface's business (dist-propagate
    // writes the list); here only the form is checked.
    auto entries = dyn_cast<ArrayAttr>(attr.getValue());
    if (!entries || !llvm::all_of(entries, [](Attribute entry) {
          return isa<ShardingAttr, UnitAttr>(entry);
        }))
      return op->emitOpError() << "'" << getEdgeShardingsAttrName()
                               << "' must be an array of #dist.sharding or "
                                  "unit, got "
                               << attr.getValue();
    if (op->getNumRegions() == 0)
      return op->emitOpError() << "'" << getEdgeShardingsAttrName()
                               << "' belongs on ops with regions";
    return success();
  }
  if (attr.getName() == getBucketBufferAttrName()) {
    auto type = op->getNumResults() == 1
                    ? dyn_cast<MemRefType>(op->getResult(0).getType())
                    : MemRefType();
    if (!isa<UnitAttr>(attr.getValue()) || !type ||
        !hasSingleEffect<MemoryEffects::Allocate>(op) || type.getRank() != 1 ||
        !type.getElementType().isInteger(8) || !type.hasStaticShape())
      return op->emitOpError() << "'" << getBucketBufferAttrName()
                               << "' is a unit attribute of an allocation "
                                  "of a static 1-D i8 buffer (a bucket's "
                                  "bytes)";
    return success();
  }
  if (attr.getName() == getStreamArgumentAttrName()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    if (!func || !func.isExternal() || !index ||
        !index.getType().isSignlessInteger(64) || index.getInt() < 0 ||
        index.getInt() >= (int64_t)func.getNumArguments())
      return op->emitOpError() << "'" << getStreamArgumentAttrName()
                               << "' is the index (i64) of an argument of "
                                  "a function declaration, got "
                               << attr.getValue();
    return success();
  }
  if (attr.getName() == getNoStreamSyncAttrName()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!isa<UnitAttr>(attr.getValue()) || !func || !func.isExternal())
      return op->emitOpError() << "'" << getNoStreamSyncAttrName()
                               << "' is a unit attribute of a function "
                                  "declaration";
    return success();
  }
  if (attr.getName() == getFetchAttrName()) {
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    if (!index || !index.getType().isSignlessInteger(64) ||
        index.getInt() < 0)
      return op->emitOpError() << "'" << getFetchAttrName()
                               << "' must be a non-negative i64 (the index "
                                  "of a parameter's fetch), got "
                               << attr.getValue();
    return success();
  }
  if (attr.getName() == getShardingAttrName())
    return op->emitOpError()
           << "'" << getShardingAttrName()
           << "' belongs on function arguments and results; use "
              "dist.annotate to pin the sharding of a value";
  return op->emitOpError() << "unknown dist attribute '"
                           << attr.getName().getValue() << "'";
}
