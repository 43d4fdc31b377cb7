//===- DistOps.cpp - dist dialect operations ------------------------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::dist;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `[a, b]`: a list of mesh axis names.
static ParseResult parseAxisList(OpAsmParser &parser, ArrayAttr &axes) {
  SmallVector<Attribute> names;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            std::string name;
            if (parser.parseKeywordOrString(&name))
              return failure();
            names.push_back(parser.getBuilder().getStringAttr(name));
            return success();
          }))
    return failure();
  axes = parser.getBuilder().getArrayAttr(names);
  return success();
}

static void printAxisList(OpAsmPrinter &printer, Operation *, ArrayAttr axes) {
  printer << '[';
  llvm::interleaveComma(axes.getAsValueRange<StringAttr>(), printer,
                        [&](StringRef axis) { printer.printKeywordOrString(axis); });
  printer << ']';
}

/// `[dp = 2, mp = 4]`: the axes of a mesh with their sizes.
static ParseResult parseMeshAxes(OpAsmParser &parser, ArrayAttr &names,
                                 DenseI64ArrayAttr &shape) {
  SmallVector<Attribute> axisNames;
  SmallVector<int64_t> sizes;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            std::string name;
            int64_t size;
            if (parser.parseKeywordOrString(&name) || parser.parseEqual() ||
                parser.parseInteger(size))
              return failure();
            axisNames.push_back(parser.getBuilder().getStringAttr(name));
            sizes.push_back(size);
            return success();
          }))
    return failure();
  names = parser.getBuilder().getArrayAttr(axisNames);
  shape = parser.getBuilder().getDenseI64ArrayAttr(sizes);
  return success();
}

static void printMeshAxes(OpAsmPrinter &printer, MeshOp, ArrayAttr names,
                          DenseI64ArrayAttr shape) {
  printer << '[';
  llvm::interleaveComma(
      llvm::zip(names.getAsValueRange<StringAttr>(), shape.asArrayRef()),
      printer, [&](auto axis) {
        printer.printKeywordOrString(std::get<0>(axis));
        printer << " = " << std::get<1>(axis);
      });
  printer << ']';
}

/// `[0 -> 1, 1 -> 0]`: source/target pairs, stored flat.
static ParseResult parsePermutePairs(OpAsmParser &parser,
                                     DenseI64ArrayAttr &pairs) {
  SmallVector<int64_t> flat;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            int64_t source, target;
            if (parser.parseInteger(source) || parser.parseArrow() ||
                parser.parseInteger(target))
              return failure();
            flat.push_back(source);
            flat.push_back(target);
            return success();
          }))
    return failure();
  pairs = parser.getBuilder().getDenseI64ArrayAttr(flat);
  return success();
}

static void printPermutePairs(OpAsmPrinter &printer, Operation *,
                              DenseI64ArrayAttr pairs) {
  ArrayRef<int64_t> flat = pairs.asArrayRef();
  printer << '[';
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    printer << (i ? ", " : "") << flat[i] << " -> " << flat[i + 1];
  printer << ']';
}

#define GET_OP_CLASSES
#include "dist/Dialect/Dist/IR/DistOps.cpp.inc"

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

LogicalResult MeshOp::verify() {
  ArrayRef<int64_t> shape = getShape();
  if (getAxisNames().size() != shape.size())
    return emitOpError() << "has " << getAxisNames().size()
                         << " axis names but " << shape.size() << " sizes";
  llvm::SmallDenseSet<StringRef> seen;
  for (auto [i, name] :
       llvm::enumerate(getAxisNames().getAsValueRange<StringAttr>())) {
    if (name.empty())
      return emitOpError() << "axis " << i << " has an empty name";
    if (!seen.insert(name).second)
      return emitOpError() << "axis name '" << name << "' is used twice";
    if (shape[i] < 1)
      return emitOpError() << "axis " << i << " ('" << name << "') has size "
                           << shape[i] << "; mesh axes must have size >= 1";
  }
  // Ranks are 32-bit in MPI and NCCL; larger meshes would also overflow the
  // group-size arithmetic.
  constexpr int64_t kMaxDevices = std::numeric_limits<int32_t>::max();
  int64_t devices = 1;
  for (int64_t size : shape) {
    if (size > kMaxDevices / devices)
      return emitOpError() << "has more than " << kMaxDevices
                           << " devices, the most a mesh may have";
    devices *= size;
  }
  return success();
}

int64_t MeshOp::getNumDevices() {
  return meshmath::numDevices(getMeshShape(*this));
}

std::optional<int64_t> MeshOp::getAxisIndex(StringAttr axis) {
  for (auto [i, name] : llvm::enumerate(getAxisNames()))
    if (name == axis)
      return i;
  return std::nullopt;
}

int64_t MeshOp::getAxisSize(StringAttr axis) {
  return getShape()[*getAxisIndex(axis)];
}

FailureOr<SmallVector<int64_t>>
MeshOp::getAxisIndices(ArrayRef<StringAttr> axes,
                       function_ref<InFlightDiagnostic()> emitError) {
  SmallVector<int64_t> indices;
  for (StringAttr axis : axes) {
    std::optional<int64_t> index = getAxisIndex(axis);
    if (!index) {
      InFlightDiagnostic diag = emitError();
      diag << "mesh @" << getSymName() << " has no axis '" << axis.getValue()
           << "'";
      diag.attachNote(getLoc()) << "mesh declared here";
      return diag;
    }
    indices.push_back(*index);
  }
  return indices;
}

int64_t MeshOp::getGroupSize(ArrayRef<StringAttr> axes) {
  int64_t size = 1;
  for (StringAttr axis : axes)
    size *= getAxisSize(axis);
  return size;
}

//===----------------------------------------------------------------------===//
// AnnotateOp
//===----------------------------------------------------------------------===//

LogicalResult
AnnotateOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  MeshOp mesh = lookupMesh(*this, getSharding().getMesh(), &symbolTables);
  return verifySharding(getSharding(), getType(), mesh,
                        [&] { return emitOpError(); });
}

//===----------------------------------------------------------------------===//
// Collectives: shared checks
//===----------------------------------------------------------------------===//

static SmallVector<StringAttr> getAxisAttrs(ArrayAttr axes) {
  return llvm::to_vector(axes.getAsRange<StringAttr>());
}

static std::string describeGroup(FlatSymbolRefAttr mesh, ArrayAttr axes,
                                 int64_t groupSize) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "the group size " << groupSize << " of axes [";
  llvm::interleaveComma(axes.getAsValueRange<StringAttr>(), os);
  os << "] on " << mesh;
  return text;
}

/// Checks the mesh and axes of an op acting on a group of ranks and returns
/// the group size.
static FailureOr<int64_t> verifyGroup(Operation *op, FlatSymbolRefAttr meshName,
                                      ArrayAttr axes,
                                      SymbolTableCollection &symbolTables) {
  MeshOp mesh = lookupMesh(op, meshName, &symbolTables);
  if (!mesh)
    return op->emitOpError() << "refers to an unknown mesh " << meshName;
  SmallVector<StringAttr> axisAttrs = getAxisAttrs(axes);
  if (failed(mesh.getAxisIndices(axisAttrs, [&] { return op->emitOpError(); })))
    return failure();
  llvm::SmallDenseSet<StringAttr> seen;
  for (StringAttr axis : axisAttrs)
    if (!seen.insert(axis).second)
      return op->emitOpError() << "mesh axis '" << axis.getValue()
                               << "' appears twice in the group";
  return mesh.getGroupSize(axisAttrs);
}

/// Checks that a tensor of `elementType` can be reduced.
static LogicalResult verifyReducible(Operation *op, Type elementType) {
  if (!isa<IntegerType, FloatType, IndexType>(elementType))
    return op->emitOpError() << "cannot reduce elements of type "
                             << elementType
                             << "; expected an integer or floating-point type";
  return success();
}

static LogicalResult verifyDimInRange(Operation *op, StringRef name,
                                      int64_t dim, ShapedType type) {
  if (dim >= type.getRank())
    return op->emitOpError() << name << " " << dim
                             << " is out of range for the operand type "
                             << type << " of rank " << type.getRank();
  return success();
}

/// Checks that `result` has the operand's rank and element type, and the same
/// size in every dim except those in `changedDims`.
static LogicalResult verifySameExcept(Operation *op, ShapedType input,
                                      ShapedType result,
                                      ArrayRef<int64_t> changedDims) {
  if (input.getElementType() != result.getElementType())
    return op->emitOpError() << "result element type "
                             << result.getElementType()
                             << " differs from the operand's "
                             << input.getElementType();
  if (input.getRank() != result.getRank())
    return op->emitOpError() << "result rank " << result.getRank()
                             << " differs from the operand's "
                             << input.getRank();
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (llvm::is_contained(changedDims, d))
      continue;
    int64_t in = input.getDimSize(d), out = result.getDimSize(d);
    if (!ShapedType::isDynamic(in) && !ShapedType::isDynamic(out) && in != out)
      return op->emitOpError() << "result dim " << d << " has size " << out
                               << ", expected " << in
                               << " (the operand's; only the collective's "
                                  "dims may change)";
  }
  return success();
}

/// Checks `result` dim `d` == operand dim `d` * or / the group size.
static LogicalResult verifyScaledDim(Operation *op, ShapedType input,
                                     ShapedType result, int64_t d,
                                     bool multiply, int64_t groupSize,
                                     const std::string &group) {
  int64_t in = input.getDimSize(d), out = result.getDimSize(d);
  if (ShapedType::isDynamic(in))
    return success();
  if (!multiply && in % groupSize != 0)
    return op->emitOpError() << "operand dim " << d << " of size " << in
                             << " is not divisible by " << group;
  int64_t expected;
  if (!multiply)
    expected = in / groupSize;
  else if (llvm::MulOverflow(in, groupSize, expected))
    return op->emitOpError() << "operand dim " << d << " of size " << in
                             << " times " << group
                             << " overflows a 64-bit size";
  if (!ShapedType::isDynamic(out) && out != expected)
    return op->emitOpError()
           << "result dim " << d << " has size " << out << ", expected "
           << expected << " (operand dim " << d << " of size " << in
           << (multiply ? " times " : " divided by ") << group << ")";
  return success();
}

static LogicalResult verifyRoot(Operation *op, int64_t root, int64_t groupSize,
                                const std::string &group) {
  if (root >= groupSize)
    return op->emitOpError() << "root " << root << " is out of range for "
                             << group;
  return success();
}

template <typename OpTy>
static int64_t getOpGroupSize(OpTy op, SymbolTableCollection &symbolTables) {
  MeshOp mesh = lookupMesh(op, op.getMeshAttr(), &symbolTables);
  return mesh.getGroupSize(getAxisAttrs(op.getAxes()));
}

#define DIST_DEFINE_GET_GROUP_SIZE(OpTy)                                       \
  int64_t OpTy::getGroupSize(SymbolTableCollection &symbolTables) {            \
    return getOpGroupSize(*this, symbolTables);                                \
  }
DIST_DEFINE_GET_GROUP_SIZE(AllReduceOp)
DIST_DEFINE_GET_GROUP_SIZE(AllGatherOp)
DIST_DEFINE_GET_GROUP_SIZE(ReduceScatterOp)
DIST_DEFINE_GET_GROUP_SIZE(AllToAllOp)
DIST_DEFINE_GET_GROUP_SIZE(ReduceOp)
DIST_DEFINE_GET_GROUP_SIZE(BroadcastOp)
DIST_DEFINE_GET_GROUP_SIZE(PermuteOp)
DIST_DEFINE_GET_GROUP_SIZE(BufferAllReduceOp)
DIST_DEFINE_GET_GROUP_SIZE(BufferAllGatherOp)
DIST_DEFINE_GET_GROUP_SIZE(BufferReduceScatterOp)
DIST_DEFINE_GET_GROUP_SIZE(BufferAllToAllOp)
DIST_DEFINE_GET_GROUP_SIZE(BufferReduceOp)
DIST_DEFINE_GET_GROUP_SIZE(BufferBroadcastOp)
DIST_DEFINE_GET_GROUP_SIZE(BufferPermuteOp)
#undef DIST_DEFINE_GET_GROUP_SIZE

//===----------------------------------------------------------------------===//
// Collectives: per-op checks. `verify` checks what needs no mesh;
// `verifySymbolUses` what depends on the group size.
//===----------------------------------------------------------------------===//

// Each check is written once, over the operand and result (or output buffer)
// types, and shared by the tensor and buffer forms.

template <typename OpTy>
static LogicalResult verifyAllGatherTypes(OpTy op, ShapedType input,
                                          ShapedType result) {
  if (failed(verifyDimInRange(op, "dim", op.getDim(), input)))
    return failure();
  return verifySameExcept(op, input, result, {(int64_t)op.getDim()});
}

template <typename OpTy>
static LogicalResult
verifyAllGatherGroup(OpTy op, ShapedType input, ShapedType result,
                     SymbolTableCollection &symbolTables) {
  FailureOr<int64_t> groupSize =
      verifyGroup(op, op.getMeshAttr(), op.getAxes(), symbolTables);
  if (failed(groupSize))
    return failure();
  return verifyScaledDim(op, input, result, op.getDim(), /*multiply=*/true,
                         *groupSize,
                         describeGroup(op.getMeshAttr(), op.getAxes(),
                                       *groupSize));
}

template <typename OpTy>
static LogicalResult verifyReduceScatterTypes(OpTy op, ShapedType input,
                                              ShapedType result) {
  if (failed(verifyReducible(op, input.getElementType())) ||
      failed(verifyDimInRange(op, "dim", op.getDim(), input)))
    return failure();
  return verifySameExcept(op, input, result, {(int64_t)op.getDim()});
}

template <typename OpTy>
static LogicalResult
verifyReduceScatterGroup(OpTy op, ShapedType input, ShapedType result,
                         SymbolTableCollection &symbolTables) {
  FailureOr<int64_t> groupSize =
      verifyGroup(op, op.getMeshAttr(), op.getAxes(), symbolTables);
  if (failed(groupSize))
    return failure();
  return verifyScaledDim(op, input, result, op.getDim(), /*multiply=*/false,
                         *groupSize,
                         describeGroup(op.getMeshAttr(), op.getAxes(),
                                       *groupSize));
}

template <typename OpTy>
static LogicalResult verifyAllToAllTypes(OpTy op, ShapedType input,
                                         ShapedType result) {
  if (failed(verifyDimInRange(op, "split_dim", op.getSplitDim(), input)) ||
      failed(verifyDimInRange(op, "concat_dim", op.getConcatDim(), input)))
    return failure();
  if (op.getSplitDim() == op.getConcatDim())
    return verifySameExcept(op, input, result, {});
  return verifySameExcept(
      op, input, result,
      {(int64_t)op.getSplitDim(), (int64_t)op.getConcatDim()});
}

template <typename OpTy>
static LogicalResult
verifyAllToAllGroup(OpTy op, ShapedType input, ShapedType result,
                    SymbolTableCollection &symbolTables) {
  FailureOr<int64_t> groupSize =
      verifyGroup(op, op.getMeshAttr(), op.getAxes(), symbolTables);
  if (failed(groupSize))
    return failure();
  std::string group = describeGroup(op.getMeshAttr(), op.getAxes(), *groupSize);
  int64_t splitSize = input.getDimSize(op.getSplitDim());
  if (!ShapedType::isDynamic(splitSize) && splitSize % *groupSize != 0)
    return op.emitOpError() << "operand split_dim " << op.getSplitDim()
                            << " of size " << splitSize
                            << " is not divisible by " << group;
  if (op.getSplitDim() == op.getConcatDim())
    return success();
  if (failed(verifyScaledDim(op, input, result, op.getSplitDim(),
                             /*multiply=*/false, *groupSize, group)))
    return failure();
  return verifyScaledDim(op, input, result, op.getConcatDim(),
                         /*multiply=*/true, *groupSize, group);
}

template <typename OpTy>
static LogicalResult verifyRootGroup(OpTy op,
                                     SymbolTableCollection &symbolTables) {
  FailureOr<int64_t> groupSize =
      verifyGroup(op, op.getMeshAttr(), op.getAxes(), symbolTables);
  if (failed(groupSize))
    return failure();
  return verifyRoot(op, op.getRoot(), *groupSize,
                    describeGroup(op.getMeshAttr(), op.getAxes(), *groupSize));
}

static SmallVector<std::pair<int64_t, int64_t>>
decodePairs(ArrayRef<int64_t> flat) {
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    pairs.emplace_back(flat[i], flat[i + 1]);
  return pairs;
}

template <typename OpTy>
static LogicalResult verifyPermutePairs(OpTy op) {
  if (op.getPairs().size() % 2 != 0)
    return op.emitOpError() << "'pairs' must hold an even number of ranks, got "
                            << op.getPairs().size();
  llvm::SmallDenseSet<int64_t> sources, targets;
  for (auto [source, target] : decodePairs(op.getPairs())) {
    if (source < 0 || target < 0)
      return op.emitOpError() << "pair " << source << " -> " << target
                              << " has a negative rank";
    if (!sources.insert(source).second)
      return op.emitOpError() << "rank " << source << " is a source twice";
    if (!targets.insert(target).second)
      return op.emitOpError() << "rank " << target << " is a target twice";
  }
  return success();
}

template <typename OpTy>
static LogicalResult verifyPermuteGroup(OpTy op,
                                        SymbolTableCollection &symbolTables) {
  FailureOr<int64_t> groupSize =
      verifyGroup(op, op.getMeshAttr(), op.getAxes(), symbolTables);
  if (failed(groupSize))
    return failure();
  for (auto [source, target] : decodePairs(op.getPairs()))
    if (source >= *groupSize || target >= *groupSize)
      return op.emitOpError()
             << "pair " << source << " -> " << target << " is out of range for "
             << describeGroup(op.getMeshAttr(), op.getAxes(), *groupSize);
  return success();
}

LogicalResult AllReduceOp::verify() {
  return verifyReducible(*this, getInput().getType().getElementType());
}

LogicalResult
AllReduceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyGroup(*this, getMeshAttr(), getAxes(), symbolTables);
}

LogicalResult AllGatherOp::verify() {
  return verifyAllGatherTypes(*this, getInput().getType(),
                              getResult().getType());
}

LogicalResult
AllGatherOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyAllGatherGroup(*this, getInput().getType(),
                              getResult().getType(), symbolTables);
}

LogicalResult ReduceScatterOp::verify() {
  return verifyReduceScatterTypes(*this, getInput().getType(),
                                  getResult().getType());
}

LogicalResult
ReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyReduceScatterGroup(*this, getInput().getType(),
                                  getResult().getType(), symbolTables);
}

LogicalResult AllToAllOp::verify() {
  return verifyAllToAllTypes(*this, getInput().getType(),
                             getResult().getType());
}

LogicalResult
AllToAllOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyAllToAllGroup(*this, getInput().getType(),
                             getResult().getType(), symbolTables);
}

LogicalResult ReduceOp::verify() {
  return verifyReducible(*this, getInput().getType().getElementType());
}

LogicalResult ReduceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyRootGroup(*this, symbolTables);
}

LogicalResult
BroadcastOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyRootGroup(*this, symbolTables);
}

SmallVector<std::pair<int64_t, int64_t>> PermuteOp::getSourceTargetPairs() {
  return decodePairs(getPairs());
}

LogicalResult PermuteOp::verify() { return verifyPermutePairs(*this); }

LogicalResult PermuteOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyPermuteGroup(*this, symbolTables);
}

//===----------------------------------------------------------------------===//
// Collectives on buffers
//===----------------------------------------------------------------------===//

LogicalResult BufferAllReduceOp::verify() {
  return verifyReducible(*this, getBuffer().getType().getElementType());
}

LogicalResult
BufferAllReduceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyGroup(*this, getMeshAttr(), getAxes(), symbolTables);
}

LogicalResult BufferReduceOp::verify() {
  return verifyReducible(*this, getBuffer().getType().getElementType());
}

LogicalResult
BufferReduceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyRootGroup(*this, symbolTables);
}

LogicalResult BufferBroadcastOp::verify() { return success(); }

LogicalResult
BufferBroadcastOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyRootGroup(*this, symbolTables);
}

LogicalResult BufferAllGatherOp::verify() {
  return verifyAllGatherTypes(*this, getInput().getType(),
                              getOutput().getType());
}

LogicalResult
BufferAllGatherOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyAllGatherGroup(*this, getInput().getType(),
                              getOutput().getType(), symbolTables);
}

LogicalResult BufferReduceScatterOp::verify() {
  return verifyReduceScatterTypes(*this, getInput().getType(),
                                  getOutput().getType());
}

LogicalResult
BufferReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyReduceScatterGroup(*this, getInput().getType(),
                                  getOutput().getType(), symbolTables);
}

LogicalResult BufferAllToAllOp::verify() {
  return verifyAllToAllTypes(*this, getInput().getType(),
                             getOutput().getType());
}

LogicalResult
BufferAllToAllOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyAllToAllGroup(*this, getInput().getType(),
                             getOutput().getType(), symbolTables);
}

SmallVector<std::pair<int64_t, int64_t>>
BufferPermuteOp::getSourceTargetPairs() {
  return decodePairs(getPairs());
}

LogicalResult BufferPermuteOp::verify() {
  if (getInput().getType().getShape() != getOutput().getType().getShape() ||
      getInput().getType().getElementType() !=
          getOutput().getType().getElementType())
    return emitOpError() << "output type " << getOutput().getType()
                         << " must have the shape and element type of the "
                            "input type "
                         << getInput().getType();
  return verifyPermutePairs(*this);
}

LogicalResult
BufferPermuteOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyPermuteGroup(*this, symbolTables);
}

//===----------------------------------------------------------------------===//
// ProcessIndexOp
//===----------------------------------------------------------------------===//

LogicalResult
ProcessIndexOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyGroup(*this, getMeshAttr(), getAxes(), symbolTables);
}
