//===- DistLowerToRuntime.cpp - Buffer collectives to runtime calls -------===//
//
// Each `dist.buffer.*` collective becomes a call into the C ABI of
// include/dist/Runtime/DistRuntime.h. The runtime caches one communicator per
// (mesh, axes) group, so asking for the group at every call is a lookup.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Runtime/DistRuntime.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <vector>

namespace mlir::dist {
#define GEN_PASS_DEF_DISTLOWERTORUNTIME
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The runtime's element type code for `type`, or failure.
static FailureOr<dist_dtype_t> getRuntimeDtype(Type type) {
  if (type.isF32())
    return DIST_F32;
  if (type.isF64())
    return DIST_F64;
  if (type.isF16())
    return DIST_F16;
  if (type.isBF16())
    return DIST_BF16;
  if (type.isInteger(1))
    return DIST_I1;
  if (type.isInteger(8))
    return DIST_I8;
  if (type.isInteger(16))
    return DIST_I16;
  if (type.isInteger(32))
    return DIST_I32;
  if (type.isInteger(64) || type.isIndex())
    return DIST_I64;
  return failure();
}

/// Builds calls into the runtime, declaring its functions and the constant
/// arrays they read (mesh shapes, axis lists, tensor shapes) once per module.
class RuntimeCallBuilder {
public:
  explicit RuntimeCallBuilder(ModuleOp module)
      : module(module), symbolTable(module) {}

  Type ptrType() { return LLVM::LLVMPointerType::get(module.getContext()); }

  void call(RewriterBase &rewriter, Location loc, StringRef name,
            ValueRange args, StreamOrdering ordering) {
    declare(rewriter, name, args.getTypes(), {}, ordering);
    func::CallOp::create(rewriter, loc, name, TypeRange{}, args);
  }

  Value callWithResult(RewriterBase &rewriter, Location loc, StringRef name,
                       ValueRange args, Type result,
                       StreamOrdering ordering) {
    declare(rewriter, name, args.getTypes(), result, ordering);
    return func::CallOp::create(rewriter, loc, name, TypeRange{result}, args)
        .getResult(0);
  }

  Value i32(RewriterBase &rewriter, Location loc, int64_t value) {
    return arith::ConstantIntOp::create(rewriter, loc, value, 32);
  }
  Value i64(RewriterBase &rewriter, Location loc, int64_t value) {
    return arith::ConstantIntOp::create(rewriter, loc, value, 64);
  }

  /// A pointer to a constant i64 array holding `values`.
  Value constantArray(RewriterBase &rewriter, Location loc,
                      ArrayRef<int64_t> values) {
    return buildBufferAddress(rewriter, loc,
                              constantGlobal(rewriter, loc, values),
                              /*elementBytes=*/8);
  }

  /// `values[index]` as an i64; `index` is an i64.
  Value constantTableEntry(RewriterBase &rewriter, Location loc,
                           ArrayRef<int64_t> values, Value index) {
    Value table = constantGlobal(rewriter, loc, values);
    Value position = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(), index);
    return memref::LoadOp::create(rewriter, loc, table, position);
  }

  /// The group size of a collective, from its mesh.
  int64_t groupSize(CollectiveOpInterface op) {
    return op.getGroupSize(symbolTables);
  }

  /// The stream argument: null (the host waits) until dist-gpu-streams.
  Value nullStream(RewriterBase &rewriter, Location loc) {
    return LLVM::ZeroOp::create(rewriter, loc, ptrType());
  }

  /// The runtime group of `axes` on `meshName`.
  FailureOr<Value> group(RewriterBase &rewriter, Operation *op,
                         FlatSymbolRefAttr meshName, ArrayAttr axes,
                         uint64_t comm = 0) {
    auto mesh = symbolTable.lookup<MeshOp>(meshName.getValue());
    if (!mesh)
      return op->emitOpError() << "refers to an unknown mesh " << meshName;
    SmallVector<StringAttr> axisNames =
        llvm::to_vector(axes.getAsRange<StringAttr>());
    FailureOr<SmallVector<int64_t>> axisIndices =
        mesh.getAxisIndices(axisNames, [&] { return op->emitOpError(); });
    if (failed(axisIndices))
      return failure();
    Location loc = op->getLoc();
    Value shape = constantArray(rewriter, loc, mesh.getShape());
    Value axisArray = constantArray(rewriter, loc, *axisIndices);
    return callWithResult(
        rewriter, loc, "dist_get_group",
        {shape, i32(rewriter, loc, mesh.getRank()), axisArray,
         i32(rewriter, loc, axisIndices->size()), i32(rewriter, loc, comm)},
        ptrType(), StreamOrdering::NoSync);
  }

  /// Set when a declaration clashed with a module symbol (reported).
  bool reportedError = false;

private:
  void declare(RewriterBase &rewriter, StringRef name, TypeRange args,
               TypeRange results, StreamOrdering ordering) {
    // A clashing name is reported once, not at every call.
    if (clashingNames.contains(name))
      return;
    if (failed(declareExternalFunction(rewriter, module, symbolTable, name,
                                       args, results, ordering))) {
      clashingNames.insert(name);
      reportedError = true;
    }
  }

  /// A constant i64 global holding `values`, one per distinct array. Short
  /// arrays are named after their values (readable IR); the symbol table
  /// renames a name the module already uses.
  Value constantGlobal(RewriterBase &rewriter, Location loc,
                       ArrayRef<int64_t> values) {
    auto type = MemRefType::get({(int64_t)values.size()},
                                rewriter.getI64Type());
    auto [it, inserted] = globalNames.try_emplace(
        std::vector<int64_t>(values.begin(), values.end()));
    if (inserted) {
      std::string name = "__dist_i64";
      if (values.size() <= 8)
        for (int64_t value : values) // -1 is "_m1": a bare identifier.
          name += value < 0 ? "_m" + std::to_string(-(uint64_t)value)
                            : "_" + std::to_string(value);
      else
        name += "_table";
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      auto tensorType = RankedTensorType::get({(int64_t)values.size()},
                                              rewriter.getI64Type());
      auto global = memref::GlobalOp::create(
          rewriter, loc, name, rewriter.getStringAttr("private"), type,
          DenseIntElementsAttr::get(tensorType, values), /*constant=*/true,
          /*alignment=*/nullptr);
      it->second = symbolTable.insert(global);
    }
    return memref::GetGlobalOp::create(rewriter, loc, type,
                                       it->second.getValue());
  }

  ModuleOp module;
  SymbolTable symbolTable;
  SymbolTableCollection symbolTables;
  std::map<std::vector<int64_t>, StringAttr> globalNames;
  llvm::StringSet<> clashingNames;
};

/// Checks, before anything is rewritten, that the runtime can take `buffer`.
static LogicalResult checkBuffer(Operation *op, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (failed(getRuntimeDtype(type.getElementType())))
    return op->emitOpError()
           << "has no runtime element type for " << type.getElementType()
           << "; supported: f32, f64, f16, bf16, i1, i8, i16, i32, i64, index";
  if (!type.hasStaticShape())
    return op->emitOpError() << "needs a static shape to call the runtime, got "
                             << type;
  return success();
}

static MemRefType getContiguousType(MemRefType type, ArrayRef<int64_t> shape) {
  return MemRefType::get(shape, type.getElementType(),
                         MemRefLayoutAttrInterface(), type.getMemorySpace());
}

/// Lowers one buffer collective: code before the call prepares contiguous
/// data (copies of strided views, a bucket packed into one buffer, blocks
/// along an inner dim transposed to the front); code after it (right after a
/// blocking call, at the dist.wait of an async one) puts the results in
/// place and frees the temporaries.
class CollectiveLowering {
public:
  CollectiveLowering(RuntimeCallBuilder &runtime, IRRewriter &rewriter,
                     CollectiveOpInterface op)
      : rt(runtime), rewriter(rewriter), op(op), loc(op.getLoc()) {}

  LogicalResult lower();

private:
  /// Where `data` (the op's buffer) can be read or written contiguously; a
  /// temporary copy when it is a strided view.
  Value contiguous(Value data, bool copyIn, bool copyOut);
  /// `data` (contiguous, shape S) cut into group-size blocks along `dim`, as
  /// a contiguous buffer [g, S with dim / g] holding block j at index j.
  /// `toBlocks` copies data into that form (before the call), otherwise the
  /// form is copied back into `data` (after it).
  Value blocksAlong(Value data, int64_t dim, bool toBlocks);
  /// One contiguous buffer holding every buffer of a bucket.
  Value packBucket(ValueRange buffers, bool copyIn, bool copyOut);
  /// Copies `buffer` into `slot` before the call (copyIn) and back after it
  /// (copyOut).
  void copyThrough(Value buffer, Value slot, bool copyIn, bool copyOut);
  Value address(Value contiguousBuffer) {
    auto type = cast<MemRefType>(contiguousBuffer.getType());
    return buildBufferAddress(rewriter, loc, contiguousBuffer,
                              getElementBytes(type.getElementType()));
  }
  void afterCall(std::function<void()> step) { finish.push_back(step); }
  Value freedAfterCall(Value temporary) {
    afterCall([this, temporary] {
      memref::DeallocOp::create(rewriter, loc, temporary);
    });
    return temporary;
  }

  RuntimeCallBuilder &rt;
  IRRewriter &rewriter;
  CollectiveOpInterface op;
  Location loc;
  int64_t groupSize = 1;
  /// Emitted, in reverse order, once the collective is complete.
  SmallVector<std::function<void()>> finish;
};

Value CollectiveLowering::contiguous(Value data, bool copyIn, bool copyOut) {
  auto type = cast<MemRefType>(data.getType());
  if (memref::isStaticShapeAndContiguousRowMajor(type))
    return data;
  Value temporary = memref::AllocOp::create(
      rewriter, loc, getContiguousType(type, type.getShape()));
  if (copyIn)
    memref::CopyOp::create(rewriter, loc, data, temporary);
  freedAfterCall(temporary);
  if (copyOut)
    afterCall([this, temporary, data] {
      memref::CopyOp::create(rewriter, loc, temporary, data);
    });
  return temporary;
}

/// The number of elements before `dim` (the blocks of a dim are contiguous
/// runs when it is 1).
static int64_t elementsBefore(ArrayRef<int64_t> shape, int64_t dim) {
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  return outer;
}

Value CollectiveLowering::blocksAlong(Value data, int64_t dim, bool toBlocks) {
  auto type = cast<MemRefType>(data.getType());
  if (elementsBefore(type.getShape(), dim) == 1)
    return data; // The blocks are already contiguous, in order.
  // data viewed as [..., g, n / g, ...] and the blocks as [g, ..., n / g, ...].
  SmallVector<int64_t> split(type.getShape());
  int64_t blockSize = split[dim] / groupSize;
  split[dim] = blockSize;
  split.insert(split.begin() + dim, groupSize);
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
    if (d < dim)
      reassociation.push_back({d});
    else if (d == dim)
      reassociation.push_back({d, d + 1});
    else
      reassociation.push_back({d + 1});
  }
  Value view = memref::ExpandShapeOp::create(rewriter, loc, split, data,
                                             reassociation);
  SmallVector<int64_t> blockShape(split);
  blockShape.erase(blockShape.begin() + dim);
  blockShape.insert(blockShape.begin(), groupSize);
  Value blocks = freedAfterCall(memref::AllocOp::create(
      rewriter, loc, getContiguousType(type, blockShape)));
  // toBlocks: blocks[j, ...] = view[..., j, ...]; back: the inverse.
  int64_t rank = split.size();
  SmallVector<int64_t> toFront, fromFront;
  toFront.push_back(dim);
  for (int64_t d = 0; d < rank; ++d) {
    if (d != dim)
      toFront.push_back(d);
    fromFront.push_back(d < dim ? d + 1 : d == dim ? 0 : d);
  }
  if (toBlocks) {
    linalg::TransposeOp::create(rewriter, loc, view, blocks, toFront);
  } else {
    afterCall([this, view, blocks, fromFront] {
      linalg::TransposeOp::create(rewriter, loc, blocks, view, fromFront);
    });
  }
  return blocks;
}

void CollectiveLowering::copyThrough(Value buffer, Value slot, bool copyIn,
                                     bool copyOut) {
  if (copyIn)
    memref::CopyOp::create(rewriter, loc, buffer, slot);
  if (copyOut)
    afterCall([this, slot, buffer] {
      memref::CopyOp::create(rewriter, loc, slot, buffer);
    });
}

Value CollectiveLowering::packBucket(ValueRange buffers, bool copyIn,
                                     bool copyOut) {
  if (buffers.size() == 1)
    return contiguous(buffers.front(), copyIn, copyOut);
  auto firstType = cast<MemRefType>(buffers.front().getType());
  int64_t total = 0;
  for (Value buffer : buffers)
    total += cast<MemRefType>(buffer.getType()).getNumElements();
  // dist-place-buckets gave the bucket its memory: only the members that
  // could not be placed in their slots are copied.
  if (std::optional<BucketPlacement> placement =
          getBucketPlacement(op)) {
    auto viewAt = [&](int64_t byteShift, MemRefType type) -> Value {
      Value shift = arith::ConstantIndexOp::create(rewriter, loc, byteShift);
      return memref::ViewOp::create(rewriter, loc, getContiguousType(type, type.getShape()),
                                    placement->buffer, shift, ValueRange{});
    };
    for (auto [member, offset, placed] : llvm::zip(
             buffers, placement->slotOffsets, placement->placed)) {
      if (placed)
        continue;
      copyThrough(member, viewAt(offset, cast<MemRefType>(member.getType())),
                  copyIn, copyOut);
    }
    return viewAt(0, getContiguousType(firstType, {total}));
  }
  Value packed = freedAfterCall(memref::AllocOp::create(
      rewriter, loc, getContiguousType(firstType, {total})));
  int64_t offset = 0;
  for (Value buffer : buffers) {
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (int64_t d = type.getRank() - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * type.getDimSize(d + 1);
    auto layout = StridedLayoutAttr::get(rewriter.getContext(), offset, strides);
    auto viewType = MemRefType::get(type.getShape(), type.getElementType(),
                                    layout, type.getMemorySpace());
    Value view = memref::ReinterpretCastOp::create(
        rewriter, loc, viewType, packed, offset, type.getShape(), strides);
    copyThrough(buffer, view, copyIn, copyOut);
    offset += type.getNumElements();
  }
  return packed;
}

/// Fills the buffer `output` with zeros.
static void fillWithZeros(RewriterBase &rewriter, Location loc, Value output) {
  Type elementType = cast<MemRefType>(output.getType()).getElementType();
  Value zero = arith::ConstantOp::create(
      rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(elementType)));
  linalg::FillOp::create(rewriter, loc, ValueRange{zero}, ValueRange{output});
}

/// A permute's output is zeros on a rank that no pair targets; send_recv
/// leaves it as it is.
static void fillWithZerosIfNoSource(RewriterBase &rewriter, Location loc,
                                    Value source, Value output) {
  Value noSource = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::slt, source,
      arith::ConstantIntOp::create(rewriter, loc, 0, 64));
  auto ifOp = scf::IfOp::create(rewriter, loc, noSource);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(ifOp.thenBlock());
  fillWithZeros(rewriter, loc, output);
}

LogicalResult CollectiveLowering::lower() {
  // Everything that can fail is checked before anything is rewritten.
  for (Value buffer : op->getOperands())
    if (failed(checkBuffer(op, buffer)))
      return failure();
  groupSize = rt.groupSize(op);
  auto permute = dyn_cast<BufferPermuteOp>(op.getOperation());
  constexpr int64_t kMaxTableEntries = int64_t(1) << 24;
  if (permute && groupSize > kMaxTableEntries)
    return op.emitOpError() << "has a group of " << groupSize
                            << " ranks; its partner tables are limited to "
                            << kMaxTableEntries << " entries";
  WaitOp wait;
  if (Value token = op.getAsyncToken())
    wait = cast<WaitOp>(*token.user_begin());

  // A group of one device moves nothing: the result is the input (in
  // place) or a copy of it (a permute without the pair 0 -> 0 zeros), and
  // no runtime call is made (a GPU step's copy stays on its stream; CPU
  // backends take no stream).
  if (groupSize == 1 &&
      (op.isInPlace() ||
       cast<MemRefType>(op.getCollectiveInputs().front().getType())
               .getShape() ==
           cast<MemRefType>(op.getCollectiveOutputs().front().getType())
               .getShape())) {
    rewriter.setInsertionPoint(op);
    if (!op.isInPlace()) {
      Value input = op.getCollectiveInputs().front();
      Value output = op.getCollectiveOutputs().front();
      if (!permute || !permute.getSourceTargetPairs().empty())
        memref::CopyOp::create(rewriter, loc, input, output);
      else
        fillWithZeros(rewriter, loc, output);
    }
    if (wait)
      rewriter.eraseOp(wait);
    rewriter.eraseOp(op);
    return success();
  }

  rewriter.setInsertionPoint(op);
  FailureOr<Value> group =
      rt.group(rewriter, op, op.getMeshAttr(), op.getAxes(), op.getComm());
  if (failed(group))
    return failure();
  Type elementType = op.getElementType();
  Value dtype = rt.i32(rewriter, loc, *getRuntimeDtype(elementType));

  // The data, contiguous, and the element count per block.
  SmallVector<Value> args = {*group};
  int64_t count;
  Value output;
  if (op.isInPlace()) {
    ValueRange buffers = op.getCollectiveInputs();
    args.push_back(address(packBucket(buffers, /*copyIn=*/true,
                                      /*copyOut=*/true)));
    count = 0;
    for (Value buffer : buffers)
      count += cast<MemRefType>(buffer.getType()).getNumElements();
  } else {
    Value input = contiguous(op.getCollectiveInputs().front(), /*copyIn=*/true,
                             /*copyOut=*/false);
    count = cast<MemRefType>(input.getType()).getNumElements();
    if (std::optional<int64_t> dim = op.getInputBlockDim()) {
      input = blocksAlong(input, *dim, /*toBlocks=*/true);
      count /= groupSize;
    }
    output = contiguous(op.getCollectiveOutputs().front(), /*copyIn=*/false,
                        /*copyOut=*/true);
    if (std::optional<int64_t> dim = op.getOutputBlockDim())
      output = blocksAlong(output, *dim, /*toBlocks=*/false);
    args.push_back(address(input));
    if (!permute)
      args.push_back(address(output));
  }

  std::string callee;
  if (permute) {
    // The partners of every group index are tables built here, so a rank
    // reads its two partners instead of scanning the pairs at every call.
    SmallVector<int64_t> targetOf(groupSize, -1), sourceOf(groupSize, -1);
    for (auto [source, target] : permute.getSourceTargetPairs()) {
      targetOf[source] = target;
      sourceOf[target] = source;
    }
    Value index = rt.callWithResult(rewriter, loc, "dist_group_index",
                                    {*group}, rewriter.getI64Type(),
                                    StreamOrdering::NoSync);
    Value target = rt.constantTableEntry(rewriter, loc, targetOf, index);
    Value source = rt.constantTableEntry(rewriter, loc, sourceOf, index);
    if (llvm::is_contained(sourceOf, -1))
      fillWithZerosIfNoSource(rewriter, loc, source, output);
    args.append({target, address(output), source});
    callee = "dist_send_recv";
  } else {
    // The runtime's functions are named after the collectives.
    callee = ("dist_" + op->getName().stripDialect().drop_front(
                            StringRef("buffer.").size()))
                 .str();
  }
  args.append({rt.i64(rewriter, loc, count), dtype});
  if (std::optional<ReductionKind> kind = op.getReductionKind())
    args.push_back(rt.i32(rewriter, loc, (int64_t)*kind));
  if (std::optional<int64_t> root = op.getRootIndex())
    args.push_back(rt.i64(rewriter, loc, *root));
  args.push_back(rt.nullStream(rewriter, loc));

  if (wait) {
    Value request = rt.callWithResult(rewriter, loc, callee + "_start", args,
                                      rt.ptrType(),
                                      StreamOrdering::LastArgument);
    rewriter.setInsertionPoint(wait);
    rt.call(rewriter, wait.getLoc(), "dist_wait", {request},
            StreamOrdering::NoSync);
  } else {
    rt.call(rewriter, loc, callee, args, StreamOrdering::LastArgument);
  }
  for (auto &step : llvm::reverse(finish))
    step();
  if (wait)
    rewriter.eraseOp(wait);
  rewriter.eraseOp(op);
  return success();
}

static LogicalResult lowerProcessIndex(RuntimeCallBuilder &runtime,
                                       IRRewriter &rewriter,
                                       ProcessIndexOp op) {
  rewriter.setInsertionPoint(op);
  FailureOr<Value> group =
      runtime.group(rewriter, op, op.getMeshAttr(), op.getAxes());
  if (failed(group))
    return failure();
  Value index = runtime.callWithResult(rewriter, op.getLoc(),
                                       "dist_group_index", {*group},
                                       rewriter.getI64Type(),
                                       StreamOrdering::NoSync);
  rewriter.replaceOpWithNewOp<arith::IndexCastOp>(op, rewriter.getIndexType(),
                                                  index);
  return success();
}

struct DistLowerToRuntimePass
    : public dist::impl::DistLowerToRuntimeBase<DistLowerToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Tensor collectives left here mean bufferization did not run first.
    WalkResult unbufferized = module.walk([](Operation *op) {
      auto collective = dyn_cast<CollectiveOpInterface>(op);
      auto wait = dyn_cast<WaitOp>(op);
      if (isa<AnnotateOp>(op) || (collective && !collective.isBufferForm()) ||
          (wait && wait.getNumResults() != 0)) {
        op->emitOpError() << "works on tensors; bufferize the module before "
                             "dist-lower-to-runtime";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unbufferized.wasInterrupted())
      return signalPassFailure();

    RuntimeCallBuilder runtime(module);
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<CollectiveOpInterface, ProcessIndexOp, ProgressOp>(op))
        ops.push_back(op);
    });
    bool failedOp = false;
    for (Operation *op : ops) {
      if (auto progress = dyn_cast<ProgressOp>(op)) {
        rewriter.setInsertionPoint(progress);
        runtime.call(rewriter, progress.getLoc(), "dist_progress", {},
                     StreamOrdering::NoSync);
        rewriter.eraseOp(progress);
        continue;
      }
      LogicalResult lowered =
          isa<ProcessIndexOp>(op)
              ? lowerProcessIndex(runtime, rewriter, cast<ProcessIndexOp>(op))
              : CollectiveLowering(runtime, rewriter,
                                   cast<CollectiveOpInterface>(op))
                    .lower();
      failedOp |= failed(lowered);
    }
    if (failedOp || runtime.reportedError)
      return signalPassFailure();

    // A failed lowering already reported why; any dist op left is an error.
    WalkResult left = module.walk([](Operation *op) {
      if (isa<DistDialect>(op->getDialect()) && !isa<MeshOp>(op)) {
        op->emitOpError() << "could not be lowered to the runtime";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return signalPassFailure();

    // Meshes and sharding attributes mean nothing to LLVM (the runtime
    // declarations' stream markings are for dist-gpu-streams).
    for (auto mesh : llvm::make_early_inc_range(module.getOps<MeshOp>()))
      mesh.erase();
    module.walk([](Operation *op) { stripDistAttributes(op); });
  }

  static void stripDistAttributes(Operation *op) {
    auto isDist = [](NamedAttribute attr) {
      return attr.getName().getValue().starts_with("dist.") &&
             attr.getName() != DistDialect::getStreamArgumentAttrName() &&
             attr.getName() != DistDialect::getNoStreamSyncAttrName();
    };
    for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
      if (isDist(attr))
        op->removeDiscardableAttr(attr.getName());
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (!fn)
      return;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      for (NamedAttribute attr : llvm::to_vector(fn.getArgAttrs(i)))
        if (isDist(attr))
          fn.removeArgAttr(i, attr.getName());
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      for (NamedAttribute attr : llvm::to_vector(fn.getResultAttrs(i)))
        if (isDist(attr))
          fn.removeResultAttr(i, attr.getName());
  }
};

} // namespace
