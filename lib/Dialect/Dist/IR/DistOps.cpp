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


/// `async`: present when the op has a `!dist.token` result.
static ParseResult parseAsync(OpAsmParser &parser, Type &tokenType) {
  if (succeeded(parser.parseOptionalKeyword("async")))
    tokenType = TokenType::get(parser.getContext());
  return success();
}

static void printAsync(OpAsmPrinter &printer, Operation *, Type tokenType) {
  if (tokenType)
    printer << "async ";
}

/// The types of a bucket: the inputs' types, which the results share.
static ParseResult parseBucketTypes(OpAsmParser &parser,
                                    SmallVectorImpl<Type> &inputTypes,
                                    SmallVectorImpl<Type> &resultTypes) {
  if (parser.parseTypeList(inputTypes))
    return failure();
  resultTypes.assign(inputTypes.begin(), inputTypes.end());
  return success();
}

static void printBucketTypes(OpAsmPrinter &printer, Operation *,
                             TypeRange inputTypes, TypeRange) {
  llvm::interleaveComma(inputTypes, printer);
}

/// The types of a wait's values; tensors are also its results.
static ParseResult parseWaitTypes(OpAsmParser &parser,
                                  SmallVectorImpl<Type> &valueTypes,
                                  SmallVectorImpl<Type> &resultTypes) {
  if (parser.parseTypeList(valueTypes))
    return failure();
  for (Type type : valueTypes)
    if (isa<RankedTensorType>(type))
      resultTypes.push_back(type);
  return success();
}

static void printWaitTypes(OpAsmPrinter &printer, Operation *,
                           TypeRange valueTypes, TypeRange) {
  llvm::interleaveComma(valueTypes, printer);
}

namespace {
/// The state of collectives in flight: an async collective writes it and its
/// wait reads and writes it, so neither is erased or merged on its own.
struct AsyncCollectiveResource
    : public SideEffects::Resource::Base<AsyncCollectiveResource> {
  StringRef getName() final { return "dist.async_collective"; }
};
} // namespace

#include "dist/Dialect/Dist/IR/CollectiveOpInterface.cpp.inc"

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

/// A bucket's data: at least one value, all of one element type.
static LogicalResult verifyBucket(Operation *op, ValueRange values,
                                  StringRef what) {
  if (values.empty())
    return op->emitOpError() << "needs at least one " << what;
  Type element = cast<ShapedType>(values.front().getType()).getElementType();
  for (auto [i, value] : llvm::enumerate(values)) {
    Type other = cast<ShapedType>(value.getType()).getElementType();
    if (other != element)
      return op->emitOpError()
             << what << " " << i << " has element type " << other
             << " but " << what << " 0 has " << element
             << "; a bucket holds one element type";
  }
  return success();
}

/// A tensor bucket's results have the inputs' types, one for one.
static LogicalResult verifyBucketResults(Operation *op, ValueRange inputs,
                                         ValueRange results) {
  if (inputs.size() != results.size())
    return op->emitOpError() << "has " << inputs.size() << " inputs but "
                             << results.size()
                             << " tensor results; expected one per input";
  for (auto [i, input, result] : llvm::enumerate(inputs, results))
    if (input.getType() != result.getType())
      return op->emitOpError() << "result " << i << " has type "
                               << result.getType() << ", expected "
                               << input.getType() << " (input " << i << "'s)";
  return success();
}

//===----------------------------------------------------------------------===//
// CollectiveOpInterface
//===----------------------------------------------------------------------===//

int64_t dist::detail::getCollectiveGroupSize(
    Operation *op, SymbolTableCollection &symbolTables) {
  auto collective = cast<CollectiveOpInterface>(op);
  MeshOp mesh = lookupMesh(op, collective.getMeshAttr(), &symbolTables);
  return mesh.getGroupSize(collective.getAxisNames());
}

std::optional<int64_t> dist::detail::scaleBytes(int64_t bytes,
                                                int64_t numerator,
                                                int64_t denominator) {
  if (denominator <= 0)
    return 0;
  __int128 scaled = (__int128)bytes * numerator / denominator;
  if (scaled > std::numeric_limits<int64_t>::max())
    return std::nullopt;
  return (int64_t)scaled;
}

int64_t CollectiveOpInterface::getElementBytes() {
  Type element = getElementType();
  int64_t parts = 1;
  if (auto complex = dyn_cast<ComplexType>(element))
    element = complex.getElementType(), parts = 2;
  return parts *
         (element.isIntOrFloat() ? (element.getIntOrFloatBitWidth() + 7) / 8
                                 : 8);
}

std::optional<int64_t> CollectiveOpInterface::getPayloadElements() {
  int64_t total = 0;
  for (ShapedType type : getPayloadTypes()) {
    if (!type.hasStaticShape())
      return std::nullopt;
    int64_t elements = 1;
    for (int64_t size : type.getShape())
      if (llvm::MulOverflow(elements, size, elements))
        return std::nullopt;
    if (llvm::AddOverflow(total, elements, total))
      return std::nullopt;
  }
  return total;
}

std::optional<int64_t> CollectiveOpInterface::getPayloadBytes() {
  std::optional<int64_t> elements = getPayloadElements();
  int64_t bytes;
  if (!elements || llvm::MulOverflow(*elements, getElementBytes(), bytes))
    return std::nullopt;
  return bytes;
}

/// Where the op `user` of an async collective's data sits relative to the
/// collective's wait: only the wait itself may use the data.
static InFlightDiagnostic reportEarlyUse(Operation *op, OpOperand &use,
                                         StringRef what) {
  InFlightDiagnostic diag =
      op->emitOpError() << what << " is used by '"
                        << use.getOwner()->getName()
                        << "' before the collective's dist.wait; use the "
                           "value the wait returns";
  diag.attachNote(use.getOwner()->getLoc()) << "used here";
  return diag;
}

LogicalResult dist::detail::verifyCollectiveOp(Operation *op) {
  // Element types and shapes are each op's to check (its verifier names the
  // operand); this checks what every async collective shares.
  auto collective = cast<CollectiveOpInterface>(op);
  Value token = collective.getAsyncToken();
  if (!token)
    return success();
  if (token.use_empty())
    return op->emitOpError() << "is async but its token is never waited for "
                                "(add a dist.wait)";
  if (!token.hasOneUse())
    return op->emitOpError()
           << "has its token waited for "
           << std::distance(token.use_begin(), token.use_end())
           << " times; an async collective is waited for exactly once";
  Operation *user = *token.user_begin();
  auto wait = dyn_cast<WaitOp>(user);
  if (!wait) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "has its token used by '" << user->getName()
                              << "'; only dist.wait takes a token";
    diag.attachNote(user->getLoc()) << "used here";
    return diag;
  }
  if (wait->getBlock() != op->getBlock()) {
    InFlightDiagnostic diag =
        op->emitOpError() << "is waited for in another block; the dist.wait "
                             "must follow the collective in its block";
    diag.attachNote(wait.getLoc()) << "waited for here";
    return diag;
  }
  // Tensor results in flight are only the wait's to take.
  if (!collective.isBufferForm())
    for (auto [i, result] : llvm::enumerate(collective.getCollectiveOutputs()))
      for (OpOperand &use : result.getUses())
        if (use.getOwner() != wait.getOperation())
          return reportEarlyUse(op, use, "result " + std::to_string(i));
  return success();
}

/// Effects of a collective: its buffers (in the buffer form), and when it is
/// async the in-flight state, so it is neither erased nor merged with
/// another (each token has one wait).
static void getCollectiveEffects(
    CollectiveOpInterface op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (op.getAsyncToken())
    effects.emplace_back(MemoryEffects::Write::get(),
                         AsyncCollectiveResource::get());
  if (!op.isBufferForm())
    return;
  unsigned numInputs = op.getCollectiveInputs().size();
  for (OpOperand &operand : op->getOpOperands()) {
    bool isInput = operand.getOperandNumber() < numInputs;
    if (isInput)
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
    if (!isInput || op.isInPlace())
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

#define DIST_COLLECTIVE_EFFECTS(OpTy)                                          \
  void OpTy::getEffects(                                                       \
      SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>      \
          &effects) {                                                          \
    getCollectiveEffects(*this, effects);                                      \
  }
DIST_COLLECTIVE_EFFECTS(AllReduceOp)
DIST_COLLECTIVE_EFFECTS(ReduceOp)
DIST_COLLECTIVE_EFFECTS(BroadcastOp)
DIST_COLLECTIVE_EFFECTS(AllGatherOp)
DIST_COLLECTIVE_EFFECTS(ReduceScatterOp)
DIST_COLLECTIVE_EFFECTS(AllToAllOp)
DIST_COLLECTIVE_EFFECTS(PermuteOp)
DIST_COLLECTIVE_EFFECTS(BufferAllReduceOp)
DIST_COLLECTIVE_EFFECTS(BufferReduceOp)
DIST_COLLECTIVE_EFFECTS(BufferBroadcastOp)
DIST_COLLECTIVE_EFFECTS(BufferAllGatherOp)
DIST_COLLECTIVE_EFFECTS(BufferReduceScatterOp)
DIST_COLLECTIVE_EFFECTS(BufferAllToAllOp)
DIST_COLLECTIVE_EFFECTS(BufferPermuteOp)
#undef DIST_COLLECTIVE_EFFECTS

// The data of each form: a bucket of tensors (results one per input), one
// tensor in and one out, buffers updated in place, or an input and an output
// buffer.
#define DIST_BUCKET_DATA(OpTy)                                                 \
  ValueRange OpTy::getCollectiveInputs() { return getInputs(); }               \
  ValueRange OpTy::getCollectiveOutputs() { return getResults(); }             \
  bool OpTy::isInPlace() { return true; }
DIST_BUCKET_DATA(AllReduceOp)
DIST_BUCKET_DATA(ReduceOp)
DIST_BUCKET_DATA(BroadcastOp)
#undef DIST_BUCKET_DATA

#define DIST_RESHAPING_DATA(OpTy)                                              \
  ValueRange OpTy::getCollectiveInputs() {                                     \
    return getOperation()->getOperands().take_front(1);                        \
  }                                                                            \
  ValueRange OpTy::getCollectiveOutputs() {                                    \
    return getOperation()->getResults().take_front(1);                         \
  }
DIST_RESHAPING_DATA(AllGatherOp)
DIST_RESHAPING_DATA(ReduceScatterOp)
DIST_RESHAPING_DATA(AllToAllOp)
DIST_RESHAPING_DATA(PermuteOp)
#undef DIST_RESHAPING_DATA

#define DIST_BUFFER_BUCKET_DATA(OpTy)                                          \
  ValueRange OpTy::getCollectiveInputs() { return getBuffers(); }              \
  ValueRange OpTy::getCollectiveOutputs() { return getBuffers(); }             \
  bool OpTy::isInPlace() { return true; }
DIST_BUFFER_BUCKET_DATA(BufferAllReduceOp)
DIST_BUFFER_BUCKET_DATA(BufferReduceOp)
DIST_BUFFER_BUCKET_DATA(BufferBroadcastOp)
#undef DIST_BUFFER_BUCKET_DATA

#define DIST_BUFFER_PAIR_DATA(OpTy)                                            \
  ValueRange OpTy::getCollectiveInputs() {                                     \
    return getOperation()->getOperands().take_front(1);                        \
  }                                                                            \
  ValueRange OpTy::getCollectiveOutputs() {                                    \
    return getOperation()->getOperands().slice(1, 1);                          \
  }
DIST_BUFFER_PAIR_DATA(BufferAllGatherOp)
DIST_BUFFER_PAIR_DATA(BufferReduceScatterOp)
DIST_BUFFER_PAIR_DATA(BufferAllToAllOp)
DIST_BUFFER_PAIR_DATA(BufferPermuteOp)
#undef DIST_BUFFER_PAIR_DATA

// Reductions, roots and block dims, shared by the tensor and buffer forms.
#define DIST_REDUCTION_KIND(OpTy)                                              \
  std::optional<ReductionKind> OpTy::getReductionKind() { return getKind(); }
DIST_REDUCTION_KIND(AllReduceOp)
DIST_REDUCTION_KIND(ReduceOp)
DIST_REDUCTION_KIND(ReduceScatterOp)
DIST_REDUCTION_KIND(BufferAllReduceOp)
DIST_REDUCTION_KIND(BufferReduceOp)
DIST_REDUCTION_KIND(BufferReduceScatterOp)
#undef DIST_REDUCTION_KIND

#define DIST_ROOT_INDEX(OpTy)                                                  \
  std::optional<int64_t> OpTy::getRootIndex() { return getRoot(); }
DIST_ROOT_INDEX(ReduceOp)
DIST_ROOT_INDEX(BroadcastOp)
DIST_ROOT_INDEX(BufferReduceOp)
DIST_ROOT_INDEX(BufferBroadcastOp)
#undef DIST_ROOT_INDEX

std::optional<int64_t> AllGatherOp::getOutputBlockDim() { return getDim(); }
std::optional<int64_t> BufferAllGatherOp::getOutputBlockDim() {
  return getDim();
}
std::optional<int64_t> ReduceScatterOp::getInputBlockDim() { return getDim(); }
std::optional<int64_t> BufferReduceScatterOp::getInputBlockDim() {
  return getDim();
}
std::optional<int64_t> AllToAllOp::getInputBlockDim() { return getSplitDim(); }
std::optional<int64_t> AllToAllOp::getOutputBlockDim() {
  return getConcatDim();
}
std::optional<int64_t> BufferAllToAllOp::getInputBlockDim() {
  return getSplitDim();
}
std::optional<int64_t> BufferAllToAllOp::getOutputBlockDim() {
  return getConcatDim();
}

// all_gather's payload is what it gathers: its output.
SmallVector<ShapedType> AllGatherOp::getPayloadTypes() {
  return {getResult().getType()};
}
SmallVector<ShapedType> BufferAllGatherOp::getPayloadTypes() {
  return {getOutput().getType()};
}

// An all_reduce sends twice (g - 1) / g of its payload (reduce-scatter then
// all-gather, as ring and tree algorithms do); a permute sends it once.
std::optional<int64_t> AllReduceOp::getBytesSentPerRank(int64_t bytes,
                                                        int64_t groupSize) {
  return detail::scaleBytes(bytes, 2 * (groupSize - 1), groupSize);
}
std::optional<int64_t> BufferAllReduceOp::getBytesSentPerRank(
    int64_t bytes, int64_t groupSize) {
  return detail::scaleBytes(bytes, 2 * (groupSize - 1), groupSize);
}
std::optional<int64_t> PermuteOp::getBytesSentPerRank(int64_t bytes,
                                                      int64_t groupSize) {
  return groupSize > 1 ? bytes : 0;
}
std::optional<int64_t> BufferPermuteOp::getBytesSentPerRank(
    int64_t bytes, int64_t groupSize) {
  return groupSize > 1 ? bytes : 0;
}

//===----------------------------------------------------------------------===//
// Collectives: verifiers
//===----------------------------------------------------------------------===//

static LogicalResult verifyReducibleBucket(Operation *op, ValueRange inputs,
                                           StringRef what) {
  if (failed(verifyBucket(op, inputs, what)))
    return failure();
  return verifyReducible(
      op, cast<ShapedType>(inputs.front().getType()).getElementType());
}

LogicalResult AllReduceOp::verify() {
  if (failed(verifyReducibleBucket(*this, getInputs(), "input")))
    return failure();
  return verifyBucketResults(*this, getInputs(), getResults());
}

LogicalResult
AllReduceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyGroup(*this, getMeshAttr(), getAxes(), symbolTables);
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyReducibleBucket(*this, getInputs(), "input")))
    return failure();
  return verifyBucketResults(*this, getInputs(), getResults());
}

LogicalResult ReduceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyRootGroup(*this, symbolTables);
}

LogicalResult BroadcastOp::verify() {
  if (failed(verifyBucket(*this, getInputs(), "input")))
    return failure();
  return verifyBucketResults(*this, getInputs(), getResults());
}

LogicalResult
BroadcastOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyRootGroup(*this, symbolTables);
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
  return verifyReducibleBucket(*this, getBuffers(), "buffer");
}

LogicalResult
BufferAllReduceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyGroup(*this, getMeshAttr(), getAxes(), symbolTables);
}

LogicalResult BufferReduceOp::verify() {
  return verifyReducibleBucket(*this, getBuffers(), "buffer");
}

LogicalResult
BufferReduceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyRootGroup(*this, symbolTables);
}

LogicalResult BufferBroadcastOp::verify() {
  return verifyBucket(*this, getBuffers(), "buffer");
}

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
// WaitOp
//===----------------------------------------------------------------------===//

void WaitOp::build(OpBuilder &builder, OperationState &state, Value token,
                   ValueRange values) {
  SmallVector<Type> resultTypes;
  for (Value value : values)
    if (isa<RankedTensorType>(value.getType()))
      resultTypes.push_back(value.getType());
  build(builder, state, resultTypes, token, values);
}

CollectiveOpInterface WaitOp::getCollective() {
  return getToken().getDefiningOp<CollectiveOpInterface>();
}

LogicalResult WaitOp::verify() {
  CollectiveOpInterface collective = getCollective();
  if (!collective)
    return emitOpError() << "takes a token that does not come straight from "
                            "an async collective";
  // Tensors: the collective's results, given back usable. Buffers: every
  // buffer the collective touches, which must stay allocated until here.
  bool tensors = !collective.isBufferForm();
  ValueRange expected = tensors ? ValueRange(collective.getCollectiveOutputs())
                                : ValueRange(collective->getOperands());
  auto describe = [&](InFlightDiagnostic &&diag) -> LogicalResult {
    diag.attachNote(collective.getLoc()) << "the collective";
    return diag;
  };
  if (getValues().size() != expected.size() ||
      !llvm::equal(getValues(), expected))
    return describe(emitOpError()
                    << "must take the " << expected.size() << " "
                    << (tensors ? "tensor results" : "buffers")
                    << " of its collective, in order, after the token");
  if (tensors && getResultTypes() != getValues().getTypes())
    return emitOpError() << "results must have the types of its tensors";
  if (!tensors && getNumResults() != 0)
    return emitOpError() << "on buffers has no results";
  return success();
}

/// Reads and writes the state of the collectives in flight: ordered with
/// their starts, waits and progress calls, never erased.
static void addInFlightStateEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(),
                       AsyncCollectiveResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       AsyncCollectiveResource::get());
}

void WaitOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addInFlightStateEffects(effects);
  for (OpOperand &operand : getValuesMutable())
    if (isa<BaseMemRefType>(operand.get().getType())) {
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    }
}

//===----------------------------------------------------------------------===//
// ProgressOp
//===----------------------------------------------------------------------===//

void ProgressOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addInFlightStateEffects(effects);
}

//===----------------------------------------------------------------------===//
// ProcessIndexOp
//===----------------------------------------------------------------------===//

LogicalResult
ProcessIndexOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyGroup(*this, getMeshAttr(), getAxes(), symbolTables);
}
