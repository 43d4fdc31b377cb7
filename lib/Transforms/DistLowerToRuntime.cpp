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
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
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
            ValueRange args, TypeRange results = {}) {
    declare(rewriter, name, args.getTypes(), results);
    func::CallOp::create(rewriter, loc, name, results, args);
  }

  Value callWithResult(RewriterBase &rewriter, Location loc, StringRef name,
                       ValueRange args, Type result) {
    declare(rewriter, name, args.getTypes(), result);
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
  template <typename OpTy>
  int64_t groupSize(OpTy op) {
    return op.getGroupSize(symbolTables);
  }

  /// The runtime group of `axes` on `meshName`.
  FailureOr<Value> group(RewriterBase &rewriter, Operation *op,
                         FlatSymbolRefAttr meshName, ArrayAttr axes) {
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
         i32(rewriter, loc, axisIndices->size())},
        ptrType());
  }

  /// Set when a pattern reported why it could not lower an op.
  bool reportedError = false;

private:
  void declare(RewriterBase &rewriter, StringRef name, TypeRange args,
               TypeRange results) {
    // A clashing name is reported once, not at every call.
    if (clashingNames.contains(name))
      return;
    if (failed(declareExternalFunction(rewriter, module, symbolTable, name,
                                       args, results))) {
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

/// A buffer's data as the runtime needs it: contiguous, with its element
/// type code and size. Strided views go through a temporary copy.
struct RuntimeBuffer {
  Value pointer;
  dist_dtype_t dtype;
  int64_t numElements;
  Value temporary; // Set when `pointer` points into a temporary copy.
  Value original;
};

/// Checks, before anything is rewritten, that the runtime can take `buffer`.
static LogicalResult checkBuffer(Operation *op, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (failed(getRuntimeDtype(type.getElementType())))
    return op->emitOpError()
           << "has no runtime element type for " << type.getElementType()
           << "; supported: f32, f64, f16, bf16, i32, i64, index";
  if (!type.hasStaticShape())
    return op->emitOpError() << "needs a static shape to call the runtime, got "
                             << type;
  return success();
}

static int64_t getDtypeBytes(dist_dtype_t dtype) {
  switch (dtype) {
  case DIST_F16:
  case DIST_BF16:
    return 2;
  case DIST_F32:
  case DIST_I32:
    return 4;
  case DIST_F64:
  case DIST_I64:
    return 8;
  }
  llvm_unreachable("unknown runtime element type");
}

/// The buffer must have passed checkBuffer.
static RuntimeBuffer prepareBuffer(RewriterBase &rewriter, Operation *op,
                                   Value buffer, bool copyIn) {
  auto type = cast<MemRefType>(buffer.getType());
  dist_dtype_t dtype = *getRuntimeDtype(type.getElementType());
  Location loc = op->getLoc();
  RuntimeBuffer result{Value(), dtype, type.getNumElements(), Value(),
                       buffer};
  Value contiguous = buffer;
  if (!memref::isStaticShapeAndContiguousRowMajor(type)) {
    auto tempType = MemRefType::get(type.getShape(), type.getElementType(),
                                    MemRefLayoutAttrInterface(),
                                    type.getMemorySpace());
    contiguous = memref::AllocOp::create(rewriter, loc, tempType);
    if (copyIn)
      memref::CopyOp::create(rewriter, loc, buffer, contiguous);
    result.temporary = contiguous;
  }
  result.pointer =
      buildBufferAddress(rewriter, loc, contiguous, getDtypeBytes(dtype));
  return result;
}

/// After the call: copies a temporary back into the view it stands for (when
/// the collective wrote it) and frees it.
static void finishBuffer(RewriterBase &rewriter, Location loc,
                         const RuntimeBuffer &buffer, bool copyOut) {
  if (!buffer.temporary)
    return;
  if (copyOut)
    memref::CopyOp::create(rewriter, loc, buffer.temporary, buffer.original);
  memref::DeallocOp::create(rewriter, loc, buffer.temporary);
}

/// A permute's output is zeros on a rank that no pair targets; send_recv
/// leaves it as it is.
static void fillWithZerosIfNoSource(RewriterBase &rewriter, Location loc,
                                    Value source, const RuntimeBuffer &output) {
  Value buffer = output.temporary ? output.temporary : output.original;
  Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
  Value noSource = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::slt, source,
      arith::ConstantIntOp::create(rewriter, loc, 0, 64));
  auto ifOp = scf::IfOp::create(rewriter, loc, noSource);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(ifOp.thenBlock());
  Value zero = arith::ConstantOp::create(
      rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(elementType)));
  linalg::FillOp::create(rewriter, loc, ValueRange{zero}, ValueRange{buffer});
}

template <typename OpTy>
struct RuntimePattern : public OpRewritePattern<OpTy> {
  RuntimePattern(MLIRContext *context, RuntimeCallBuilder &runtime)
      : OpRewritePattern<OpTy>(context), runtime(runtime) {}

  /// Checks `buffers` before anything is rewritten, then looks up the op's
  /// group. A failure has been reported (and is remembered).
  FailureOr<Value> checkAndGetGroup(OpTy op, PatternRewriter &rewriter,
                                    ValueRange buffers) const {
    for (Value buffer : buffers)
      if (failed(checkBuffer(op, buffer))) {
        runtime.reportedError = true;
        return failure();
      }
    FailureOr<Value> group =
        runtime.group(rewriter, op, op.getMeshAttr(), op.getAxes());
    if (failed(group))
      runtime.reportedError = true;
    return group;
  }

  RuntimeCallBuilder &runtime;
};

/// all_reduce, reduce, broadcast: one buffer, in place.
template <typename OpTy>
struct LowerInPlaceCollective : public RuntimePattern<OpTy> {
  using RuntimePattern<OpTy>::RuntimePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RuntimeCallBuilder &rt = this->runtime;
    FailureOr<Value> group =
        this->checkAndGetGroup(op, rewriter, op.getBuffer());
    if (failed(group))
      return failure();
    RuntimeBuffer buffer =
        prepareBuffer(rewriter, op, op.getBuffer(), /*copyIn=*/true);
    SmallVector<Value> args = {*group, buffer.pointer,
                               rt.i64(rewriter, loc, buffer.numElements),
                               rt.i32(rewriter, loc, buffer.dtype)};
    StringRef callee;
    if constexpr (std::is_same_v<OpTy, BufferAllReduceOp>) {
      callee = "dist_all_reduce";
      args.push_back(rt.i32(rewriter, loc, (int64_t)op.getKind()));
    } else if constexpr (std::is_same_v<OpTy, BufferReduceOp>) {
      callee = "dist_reduce";
      args.push_back(rt.i32(rewriter, loc, (int64_t)op.getKind()));
      args.push_back(rt.i64(rewriter, loc, op.getRoot()));
    } else {
      callee = "dist_broadcast";
      args.push_back(rt.i64(rewriter, loc, op.getRoot()));
    }
    rt.call(rewriter, loc, callee, args);
    finishBuffer(rewriter, loc, buffer, /*copyOut=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// all_gather, reduce_scatter, all_to_all, permute (as send_recv): input to
/// output.
template <typename OpTy>
struct LowerOutOfPlaceCollective : public RuntimePattern<OpTy> {
  using RuntimePattern<OpTy>::RuntimePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RuntimeCallBuilder &rt = this->runtime;
    // A permute's partners are two i64 tables over its group, constants of
    // the program: checked before anything is rewritten.
    [[maybe_unused]] int64_t groupSize = 0;
    if constexpr (std::is_same_v<OpTy, BufferPermuteOp>) {
      constexpr int64_t kMaxTableEntries = int64_t(1) << 24;
      groupSize = rt.groupSize(op);
      if (groupSize > kMaxTableEntries) {
        op.emitOpError() << "has a group of " << groupSize
                         << " ranks; its partner tables are limited to "
                         << kMaxTableEntries << " entries";
        rt.reportedError = true;
        return failure();
      }
    }
    FailureOr<Value> group = this->checkAndGetGroup(
        op, rewriter, ValueRange{op.getInput(), op.getOutput()});
    if (failed(group))
      return failure();
    RuntimeBuffer input =
        prepareBuffer(rewriter, op, op.getInput(), /*copyIn=*/true);
    RuntimeBuffer output =
        prepareBuffer(rewriter, op, op.getOutput(), /*copyIn=*/false);
    Value dtype = rt.i32(rewriter, loc, input.dtype);
    auto inputType = cast<MemRefType>(op.getInput().getType());
    if constexpr (std::is_same_v<OpTy, BufferPermuteOp>) {
      // The partners of every group index are tables built here, so a rank
      // reads its two partners instead of scanning the pairs at every call.
      SmallVector<int64_t> targetOf(groupSize, -1), sourceOf(groupSize, -1);
      for (auto [source, target] : op.getSourceTargetPairs()) {
        targetOf[source] = target;
        sourceOf[target] = source;
      }
      Value index = rt.callWithResult(rewriter, loc, "dist_group_index",
                                      {*group}, rewriter.getI64Type());
      Value target = rt.constantTableEntry(rewriter, loc, targetOf, index);
      Value source = rt.constantTableEntry(rewriter, loc, sourceOf, index);
      if (llvm::is_contained(sourceOf, -1))
        fillWithZerosIfNoSource(rewriter, loc, source, output);
      rt.call(rewriter, loc, "dist_send_recv",
              {*group, input.pointer, target, output.pointer, source,
               rt.i64(rewriter, loc, input.numElements), dtype});
    } else {
      SmallVector<Value> args = {
          *group, input.pointer, output.pointer,
          rt.constantArray(rewriter, loc, inputType.getShape()),
          rt.i32(rewriter, loc, inputType.getRank())};
      StringRef callee;
      if constexpr (std::is_same_v<OpTy, BufferAllGatherOp>) {
        callee = "dist_all_gather";
        args.append({rt.i32(rewriter, loc, op.getDim()), dtype});
      } else if constexpr (std::is_same_v<OpTy, BufferReduceScatterOp>) {
        callee = "dist_reduce_scatter";
        args.append({rt.i32(rewriter, loc, op.getDim()), dtype,
                     rt.i32(rewriter, loc, (int64_t)op.getKind())});
      } else {
        callee = "dist_all_to_all";
        args.append({rt.i32(rewriter, loc, op.getSplitDim()),
                     rt.i32(rewriter, loc, op.getConcatDim()), dtype});
      }
      rt.call(rewriter, loc, callee, args);
    }
    finishBuffer(rewriter, loc, input, /*copyOut=*/false);
    finishBuffer(rewriter, loc, output, /*copyOut=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerProcessIndex : public RuntimePattern<ProcessIndexOp> {
  using RuntimePattern<ProcessIndexOp>::RuntimePattern;

  LogicalResult matchAndRewrite(ProcessIndexOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<Value> group = checkAndGetGroup(op, rewriter, {});
    if (failed(group))
      return failure();
    Value index = runtime.callWithResult(rewriter, op.getLoc(),
                                         "dist_group_index", {*group},
                                         rewriter.getI64Type());
    rewriter.replaceOpWithNewOp<arith::IndexCastOp>(
        op, rewriter.getIndexType(), index);
    return success();
  }
};

struct DistLowerToRuntimePass
    : public dist::impl::DistLowerToRuntimeBase<DistLowerToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Tensor collectives left here mean bufferization did not run first.
    WalkResult unbufferized = module.walk([](Operation *op) {
      if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp, ReduceOp,
              BroadcastOp, PermuteOp, AnnotateOp>(op)) {
        op->emitOpError() << "works on tensors; bufferize the module before "
                             "dist-lower-to-runtime";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unbufferized.wasInterrupted())
      return signalPassFailure();

    RuntimeCallBuilder runtime(module);
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<LowerInPlaceCollective<BufferAllReduceOp>,
                 LowerInPlaceCollective<BufferReduceOp>,
                 LowerInPlaceCollective<BufferBroadcastOp>,
                 LowerOutOfPlaceCollective<BufferAllGatherOp>,
                 LowerOutOfPlaceCollective<BufferReduceScatterOp>,
                 LowerOutOfPlaceCollective<BufferAllToAllOp>,
                 LowerOutOfPlaceCollective<BufferPermuteOp>, LowerProcessIndex>(
        context, runtime);
    walkAndApplyPatterns(module, std::move(patterns));
    if (runtime.reportedError)
      return signalPassFailure();

    // A failed pattern already reported why; any dist op left is an error.
    WalkResult left = module.walk([](Operation *op) {
      if (isa<DistDialect>(op->getDialect()) && !isa<MeshOp>(op)) {
        op->emitOpError() << "could not be lowered to the runtime";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return signalPassFailure();

    // Meshes and sharding attributes mean nothing to LLVM.
    for (auto mesh : llvm::make_early_inc_range(module.getOps<MeshOp>()))
      mesh.erase();
    module.walk([](Operation *op) { stripDistAttributes(op); });
  }

  static void stripDistAttributes(Operation *op) {
    auto isDist = [](NamedAttribute attr) {
      return attr.getName().getValue().starts_with("dist.");
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
