//===- DistMatmulToBlas.cpp - linalg.matmul on buffers to CBLAS -----------===//

#include "LoweringUtils.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTMATMULTOBLAS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

// CBLAS enum values (cblas.h).
constexpr int64_t kCblasRowMajor = 101;
constexpr int64_t kCblasNoTrans = 111;
constexpr int64_t kCblasTrans = 112;

/// A rank-2 memref whose innermost stride is statically 1 and whose static
/// sizes and row stride fit CBLAS's 32-bit ints.
static bool fitsCblas(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getRank() != 2)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) || strides[1] != 1)
    return false;
  auto fits = [](int64_t size) {
    return ShapedType::isDynamic(size) || size <= INT32_MAX;
  };
  return fits(memref.getDimSize(0)) && fits(memref.getDimSize(1)) &&
         fits(strides[0]);
}

/// Whether `fill` sets all of `c` to zero.
static bool isZeroFillOf(linalg::FillOp fill, Value c) {
  return fill.hasPureBufferSemantics() &&
         fill.getDpsInitOperand(0)->get() == c &&
         matchPattern(fill.value(), m_AnyZeroFloat());
}

/// Whether `user` is a fill that comes before `op` in its block (a fill
/// nested elsewhere is not: the two cannot be ordered).
static bool isFillBefore(Operation *user, Operation *op) {
  return isa<linalg::FillOp>(user) && user->getBlock() == op->getBlock() &&
         user->isBeforeInBlock(op);
}

/// Whether `c` is a buffer the rounding rules may replace by a 16-bit one:
/// an f32 allocation of this step with an identity layout.
static bool isFreshF32Buffer(Value c) {
  auto type = cast<MemRefType>(c.getType());
  return type.getElementType().isF32() && type.getLayout().isIdentity() &&
         c.getDefiningOp<memref::AllocOp>();
}

/// The zero `linalg.fill` of exactly `c` that a contraction writing all of
/// `c` would accumulate into, or null: found walking back through the
/// block over ops that touch no memory (pure ops, allocations), or, when
/// `c` is an allocation whose every use before the product is a zero fill
/// of it, the last of those however far (the bufferized step fills a
/// shared zero tensor's copies early: nothing can touch a fresh buffer but
/// through its uses, and there is no view or pointer of it yet). A gemm
/// with beta = 0 makes the fill redundant.
static linalg::FillOp findZeroFillOf(Operation *op, Value c) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev))
      return isZeroFillOf(fill, c) ? fill : nullptr;
    auto effects = dyn_cast<MemoryEffectOpInterface>(prev);
    if (isPure(prev) ||
        (effects && effects.onlyHasEffect<MemoryEffects::Allocate>()))
      continue;
    break;
  }
  if (!c.getDefiningOp<memref::AllocOp>())
    return nullptr;
  // Every use of c before op must be a zero fill of it in op's block (an
  // earlier view or pointer of c could write it after the fill), and the
  // last of them is the one the product makes redundant.
  Block *block = op->getBlock();
  linalg::FillOp last;
  for (Operation *user : c.getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor)
      return nullptr;
    if (ancestor == op || !ancestor->isBeforeInBlock(op))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(user);
    if (ancestor != user || !fill || !isZeroFillOf(fill, c))
      return nullptr;
    if (!last || last->isBeforeInBlock(fill))
      last = fill;
  }
  return last;
}

/// A 16-bit copy the f32 result `c` of a mixed-precision product exists
/// for: the first op after `op` that touches memory is a linalg.generic
/// rounding all of `c` (an allocation nobody else reads) into a buffer of
/// the inputs' type and `c`'s shape (`arith.truncf`, identity layouts). The
/// product can write that buffer directly (cublasGemmEx rounds its f32
/// accumulators once, to nearest even, as truncf does): the f32 buffer and
/// the pass over it go. Null when there is no such copy.
static linalg::GenericOp findRoundingCopyOf(Operation *op, Value a, Value b,
                                            Value c, Type inputType) {
  if (!isFreshF32Buffer(c))
    return nullptr;
  auto cType = cast<MemRefType>(c.getType());
  // Between them: pure ops, allocations and deallocations (of other
  // buffers: the copy writes its own and reads c afterwards).
  Operation *next = op->getNextNode();
  for (; next; next = next->getNextNode()) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(next);
    if (!isPure(next) &&
        !(effects && effects.onlyHasEffect<MemoryEffects::Allocate>()) &&
        !isa<memref::DeallocOp>(next))
      break;
  }
  auto copy = dyn_cast_if_present<linalg::GenericOp>(next);
  if (!copy || !copy.hasPureBufferSemantics() || copy.getNumDpsInputs() != 1 ||
      copy.getNumDpsInits() != 1 || copy.getDpsInputOperand(0)->get() != c ||
      copy.getNumParallelLoops() != copy.getNumLoops() ||
      !llvm::all_of(copy.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return nullptr;
  Value rounded = copy.getDpsInitOperand(0)->get();
  auto roundedType = cast<MemRefType>(rounded.getType());
  if (roundedType.getShape() != cType.getShape() ||
      roundedType.getElementType() != inputType ||
      !roundedType.getLayout().isIdentity())
    return nullptr;
  // The body: yield (truncf in), in the default rounding.
  Block &body = copy.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto truncf = yield.getValues()[0].getDefiningOp<arith::TruncFOp>();
  if (body.getOperations().size() != 2 || !truncf ||
      truncf.getIn() != body.getArgument(0) || truncf.getRoundingmodeAttr())
    return nullptr;
  // Nobody else reads c; the product does not read the copy's buffer.
  for (Operation *user : c.getUsers())
    if (user != op && user != copy && !isa<memref::DeallocOp>(user) &&
        !isFillBefore(user, op))
      return nullptr;
  Value root = getRootBuffer(rounded);
  if (root == getRootBuffer(a) || root == getRootBuffer(b))
    return nullptr;
  // The product writes it, so it must exist there: defined before `op`, or
  // an allocation without operands after it, which can move up.
  if (Operation *def = rounded.getDefiningOp();
      def && def->getBlock() == op->getBlock() && op->isBeforeInBlock(def) &&
      !(isa<memref::AllocOp>(def) && def->getNumOperands() == 0))
    return nullptr;
  return copy;
}

/// Whether `user` (a user of `c` after `op`) reads `c` only to round it:
/// a linalg.generic on buffers taking `c` as inputs alone, each of whose
/// block arguments is used only by `arith.truncf` to `inputType` in the
/// default rounding.
static bool onlyRoundsWhatItReads(Operation *user, Value c, Type inputType) {
  auto reader = dyn_cast<linalg::GenericOp>(user);
  if (!reader || !reader.hasPureBufferSemantics())
    return false;
  for (OpOperand &operand : reader->getOpOperands()) {
    if (operand.get() != c)
      continue;
    if (!reader.isDpsInput(&operand))
      return false;
    for (Operation *use :
         reader.getMatchingBlockArgument(&operand).getUsers()) {
      auto truncf = dyn_cast<arith::TruncFOp>(use);
      if (!truncf || truncf.getType() != inputType ||
          truncf.getRoundingmodeAttr())
        return false;
    }
  }
  return true;
}

/// How the f32 result `c` of a mixed-precision product into a zero-filled
/// buffer can be made in the inputs' 16-bit type instead (cublasGemmEx
/// rounds its f32 accumulators once, to nearest even, as truncf does):
/// - `copy`: the first op after the product that touches memory rounds all
///   of `c` into a 16-bit buffer (see findRoundingCopyOf); the product
///   writes that buffer, the f32 buffer and the pass over it go;
/// - `readers`: every op reading `c` reads it only to round it (a fused
///   elementwise op whose first step is truncf); the product writes a new
///   16-bit buffer they read instead: half the bytes written and read.
struct RoundedOutput {
  linalg::GenericOp copy;
  SmallVector<linalg::GenericOp> readers;

  explicit operator bool() const { return copy || !readers.empty(); }

  static RoundedOutput find(Operation *op, Value a, Value b, Value c,
                            Type inputType) {
    RoundedOutput rounded;
    if ((rounded.copy = findRoundingCopyOf(op, a, b, c, inputType)))
      return rounded;
    if (!isFreshF32Buffer(c))
      return rounded;
    SmallVector<linalg::GenericOp> readers;
    for (Operation *user : c.getUsers()) {
      if (user == op || isa<memref::DeallocOp>(user) || isFillBefore(user, op))
        continue;
      if (user->getBlock() != op->getBlock() || !op->isBeforeInBlock(user) ||
          !onlyRoundsWhatItReads(user, c, inputType))
        return rounded;
      readers.push_back(cast<linalg::GenericOp>(user));
    }
    rounded.readers = std::move(readers);
    return rounded;
  }

  /// The buffer the product writes: the copy's (its allocation moves before
  /// `op` when it came after), or a new one of the inputs' type beside `c`'s
  /// allocation.
  Value prepare(RewriterBase &rewriter, Operation *op, Value c,
                Type inputType) const {
    if (copy) {
      Value target = linalg::GenericOp(copy).getDpsInitOperand(0)->get();
      if (Operation *def = target.getDefiningOp();
          def && def->getBlock() == op->getBlock() && op->isBeforeInBlock(def))
        rewriter.moveOpBefore(def, op);
      return target;
    }
    auto alloc = c.getDefiningOp<memref::AllocOp>();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfter(alloc);
    auto type = cast<MemRefType>(c.getType()).clone(inputType);
    return memref::AllocOp::create(rewriter, alloc.getLoc(), type,
                                   alloc.getDynamicSizes(),
                                   alloc.getSymbolOperands(),
                                   alloc.getAlignmentAttr());
  }

  /// After the product wrote `target`: the copy goes, or the readers read
  /// `target` and their truncf ops go; then the f32 buffer, whose users
  /// left are deallocations (moved to `target` where it is new).
  void finish(RewriterBase &rewriter, Value c, Value target) const {
    if (copy)
      rewriter.eraseOp(copy);
    for (linalg::GenericOp reader : readers) {
      for (OpOperand &operand : reader->getOpOperands()) {
        if (operand.get() != c)
          continue;
        BlockArgument argument = reader.getMatchingBlockArgument(&operand);
        rewriter.modifyOpInPlace(reader, [&] {
          operand.set(target);
          argument.setType(getElementTypeOrSelf(target.getType()));
        });
        for (Operation *truncf : llvm::make_early_inc_range(argument.getUsers()))
          rewriter.replaceOp(truncf, argument);
      }
    }
    for (Operation *user : llvm::make_early_inc_range(c.getUsers())) {
      if (!readers.empty() && isa<memref::DeallocOp>(user))
        rewriter.modifyOpInPlace(user, [&] { user->setOperand(0, target); });
      else
        rewriter.eraseOp(user);
    }
    rewriter.eraseOp(c.getDefiningOp());
  }
};

// dist_dtype_t values (DistRuntime.h) of the mixed-precision call.
constexpr int64_t kDistF32 = 0, kDistF16 = 2, kDistBF16 = 3;

/// The element types of a product the library computes: all f32 or all f64
/// (?gemm), or, with cuBLAS only, 16-bit float inputs with an f32 or
/// equal output, accumulated in f32 (dist_cublas_gemm_ex).
struct GemmTypes {
  Type input, output;
  bool isMixed() const { return input != output || input.getIntOrFloatBitWidth() == 16; }
};

/// The batch of a strided batched product: each operand's distance
/// between consecutive products (i64 elements) and their number (i32).
struct StridedBatch {
  Value strideA, strideB, strideC, count;
};

/// The module the patterns declare cblas_?gemm in, and the one call they
/// all make: C = alpha A B + beta C, row-major, with alpha = 1 and beta = 1
/// (accumulate) or 0 (C's zero fill is erased).
struct GemmCallee {
  ModuleOp module;
  SymbolTable &symbols;
  /// Prefix of the callees: "cblas" (the CBLAS on the host) or
  /// "dist_cublas" (dist's CUDA runtime: the same signature over cuBLAS, on
  /// device buffers).
  StringRef library;
  /// Set when a symbol of the module holds a BLAS name with another type
  /// (the pass then fails; reported once).
  bool reportedError = false;

  /// The types of a product of `a` and `b` into `c` (memrefs) this library
  /// computes, or std::nullopt.
  std::optional<GemmTypes> getTypes(Value a, Value b, Value c) const {
    Type input = cast<MemRefType>(a.getType()).getElementType();
    Type output = cast<MemRefType>(c.getType()).getElementType();
    if (cast<MemRefType>(b.getType()).getElementType() != input)
      return std::nullopt;
    if (input == output && (input.isF32() || input.isF64()))
      return GemmTypes{input, output};
    if (library == "dist_cublas" && (input.isBF16() || input.isF16()) &&
        (output.isF32() || output == input))
      return GemmTypes{input, output};
    return std::nullopt;
  }

  /// How a mixed-precision product into the zero-filled f32 buffer `c`
  /// writes its inputs' type instead (RoundedOutput; cuBLAS only: the CBLAS
  /// has no 16-bit products).
  RoundedOutput roundedOutputFor(Operation *op, Value a, Value b, Value c,
                                 GemmTypes types,
                                 linalg::FillOp zeroFill) const {
    if (library != "dist_cublas" || !zeroFill || !types.isMixed() ||
        !types.output.isF32())
      return {};
    return RoundedOutput::find(op, a, b, c, types.input);
  }

  /// Calls cblas_sgemm/cblas_dgemm (by `elementType`) with transposes,
  /// sizes, operand addresses and leading dimensions (all i32 but the
  /// addresses); fails after a name clash.
  /// A mixed product (16-bit inputs) calls dist_cublas_gemm_ex, whose
  /// scalars are f32 and whose last two arguments are the input and output
  /// types as dist_dtype_t.
  /// With `batch` (cuBLAS only) the call is the strided batched form
  /// (dist_cublas_?gemm[_ex]_strided_batched): each matrix's i64 stride
  /// follows its leading dimension, the i32 count follows C's.
  LogicalResult call(OpBuilder &builder, Location loc, GemmTypes types,
                     Value transA, Value transB, Value m, Value n, Value k,
                     Value a, Value lda, Value b, Value ldb, Value c,
                     Value ldc, bool accumulate,
                     std::optional<StridedBatch> batch = std::nullopt) {
    Type scalarType = types.isMixed() ? builder.getF32Type() : types.output;
    Value one = arith::ConstantOp::create(
        builder, loc, builder.getFloatAttr(scalarType, 1));
    Value beta = accumulate ? one
                            : arith::ConstantOp::create(
                                  builder, loc,
                                  builder.getFloatAttr(scalarType, 0));
    Value rowMajor = arith::ConstantIntOp::create(builder, loc, kCblasRowMajor, 32);
    SmallVector<Value> args = {rowMajor, transA, transB, m, n, k, one, a, lda};
    if (batch)
      args.push_back(batch->strideA);
    args.append({b, ldb});
    if (batch)
      args.push_back(batch->strideB);
    args.append({beta, c, ldc});
    if (batch)
      args.append({batch->strideC, batch->count});
    StringRef suffix = batch ? "_strided_batched" : "";
    std::string callee =
        (library + (types.output.isF64() ? "_dgemm" : "_sgemm") + suffix)
            .str();
    if (types.isMixed()) {
      auto code = [](Type type) {
        return type.isF32() ? kDistF32 : type.isBF16() ? kDistBF16 : kDistF16;
      };
      args.push_back(
          arith::ConstantIntOp::create(builder, loc, code(types.input), 32));
      args.push_back(
          arith::ConstantIntOp::create(builder, loc, code(types.output), 32));
      callee = (library + "_gemm_ex" + suffix).str();
    }
    // dist's cuBLAS calls take a stream last (null: the host waits).
    StreamOrdering ordering = StreamOrdering::HostSync;
    if (library == "dist_cublas") {
      args.push_back(LLVM::ZeroOp::create(
          builder, loc, LLVM::LLVMPointerType::get(builder.getContext())));
      ordering = StreamOrdering::LastArgument;
    }
    if (failed(declareExternalFunction(builder, module, symbols, callee,
                                       ValueRange(args).getTypes(), {},
                                       ordering))) {
      reportedError = true;
      return failure();
    }
    func::CallOp::create(builder, loc, callee, TypeRange{}, args);
    return success();
  }
};

struct MatmulToBlas : public OpRewritePattern<linalg::MatmulOp> {
  MatmulToBlas(MLIRContext *context, GemmCallee &gemm)
      : OpRewritePattern<linalg::MatmulOp>(context, /*benefit=*/2), gemm(gemm) {}

  LogicalResult matchAndRewrite(linalg::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (gemm.reportedError)
      return failure();
    if (!op.hasPureBufferSemantics() || op.hasUserDefinedMaps() ||
        op.getCast() != linalg::TypeFn::cast_signed)
      return failure();
    Value a = op.getDpsInputOperand(0)->get();
    Value b = op.getDpsInputOperand(1)->get();
    Value c = op.getDpsInitOperand(0)->get();
    std::optional<GemmTypes> types = gemm.getTypes(a, b, c);
    if (!types)
      return failure();
    for (Value operand : {a, b, c})
      if (!fitsCblas(operand.getType()))
        return failure();

    linalg::FillOp zeroFill = findZeroFillOf(op, c);
    RoundedOutput rounded =
        gemm.roundedOutputFor(op, a, b, c, *types, zeroFill);
    Value out = c;
    if (rounded) {
      out = rounded.prepare(rewriter, op, c, types->input);
      types->output = types->input;
    }
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    auto toI32 = [&](Value index) -> Value {
      return arith::IndexCastOp::create(rewriter, loc, i32, index);
    };
    auto dim = [&](Value memref, int64_t d) {
      return toI32(memref::DimOp::create(rewriter, loc, memref, d));
    };
    auto leadingDim = [&](Value memref) {
      auto metadata =
          memref::ExtractStridedMetadataOp::create(rewriter, loc, memref);
      return toI32(metadata.getStrides()[0]);
    };
    auto constI32 = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, value, 32);
    };
    int64_t inBytes = types->input.getIntOrFloatBitWidth() / 8;
    int64_t outBytes = types->output.getIntOrFloatBitWidth() / 8;
    Value noTrans = constI32(kCblasNoTrans);
    if (failed(gemm.call(rewriter, loc, *types, noTrans, noTrans,
                         dim(out, 0), dim(out, 1), dim(a, 1),
                         buildBufferAddress(rewriter, loc, a, inBytes),
                         leadingDim(a),
                         buildBufferAddress(rewriter, loc, b, inBytes),
                         leadingDim(b),
                         buildBufferAddress(rewriter, loc, out, outBytes),
                         leadingDim(out), /*accumulate=*/!zeroFill)))
      return failure();
    if (zeroFill)
      rewriter.eraseOp(zeroFill);
    rewriter.eraseOp(op);
    if (rounded)
      rounded.finish(rewriter, c, out);
    return success();
  }

  GemmCallee &gemm;
};

/// One operand of a contraction as a strided matrix: its two dims' static
/// sizes and strides (elements), and its strides along the batch loops.
struct StridedMatrix {
  int64_t rows, cols, rowStride, colStride;
  SmallVector<int64_t> batchStrides;

  StridedMatrix transposed() const {
    return {cols, rows, colStride, rowStride, batchStrides};
  }
  /// How CBLAS reads it in row-major order: transposed or not, and its
  /// leading dimension; std::nullopt if neither of its dims is contiguous.
  std::optional<std::pair<bool, int64_t>> asRowMajor() const {
    if (cols == 1 || colStride == 1) {
      int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : rowStride;
      if (ld >= std::max<int64_t>(cols, 1) && ld <= INT32_MAX)
        return std::make_pair(false, ld);
    }
    if (rows == 1 || rowStride == 1) {
      int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : colStride;
      if (ld >= std::max<int64_t>(rows, 1) && ld <= INT32_MAX)
        return std::make_pair(true, ld);
    }
    return std::nullopt;
  }
};

/// A linalg contraction on buffers (C += A * B over one m, one n and one k
/// loop, any number of batch loops; a linalg.generic with permuted operands
/// such as attention's "bqhd,bkhd->bhqk", or a batch_matmul) whose every
/// operand has a contiguous dim among its two matrix dims: one
/// cblas_?gemm per batch element, with transposes and leading dimensions
/// taken from the static strides.
struct ContractionToBlas : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  ContractionToBlas(MLIRContext *context, GemmCallee &gemm)
      : OpInterfaceRewritePattern<linalg::LinalgOp>(context, /*benefit=*/1),
        gemm(gemm) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (gemm.reportedError || !op.hasPureBufferSemantics() ||
        !isGemmContraction(op))
      return failure();
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return failure();
    Value operands[3] = {op.getDpsInputOperand(0)->get(),
                         op.getDpsInputOperand(1)->get(),
                         op.getDpsInitOperand(0)->get()};
    std::optional<GemmTypes> types =
        gemm.getTypes(operands[0], operands[1], operands[2]);
    if (!types)
      return failure();
    // Each operand's stride along each loop (0 where it does not index).
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<SmallVector<int64_t>> loopStrides;
    for (auto [operand, map] : llvm::zip(operands, maps)) {
      auto type = cast<MemRefType>(operand.getType());
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(type.getStridesAndOffset(strides, offset)) ||
          llvm::any_of(strides, ShapedType::isDynamic) ||
          !map.isProjectedPermutation())
        return failure();
      SmallVector<int64_t> perLoop(ranges.size(), 0);
      for (auto [d, expr] : llvm::enumerate(map.getResults()))
        perLoop[cast<AffineDimExpr>(expr).getPosition()] = strides[d];
      loopStrides.push_back(perLoop);
    }
    unsigned m = dims->m.front(), n = dims->n.front(), k = dims->k.front();
    auto matrix = [&](int operand, unsigned rowLoop, unsigned colLoop) {
      StridedMatrix x{ranges[rowLoop], ranges[colLoop],
                      loopStrides[operand][rowLoop],
                      loopStrides[operand][colLoop], {}};
      for (unsigned b : dims->batch)
        x.batchStrides.push_back(loopStrides[operand][b]);
      return x;
    };
    StridedMatrix a = matrix(0, m, k), b = matrix(1, k, n), c = matrix(2, m, n);
    int64_t rowsC = ranges[m], colsC = ranges[n];
    Value aValue = operands[0], bValue = operands[1];
    // C in column-major order is C^T = B^T A^T in row-major order.
    if (!c.asRowMajor() || c.asRowMajor()->first) {
      std::swap(a, b);
      a = a.transposed();
      b = b.transposed();
      c = c.transposed();
      std::swap(aValue, bValue);
      std::swap(rowsC, colsC);
    }
    auto layoutA = a.asRowMajor(), layoutB = b.asRowMajor(),
         layoutC = c.asRowMajor();
    if (!layoutA || !layoutB || !layoutC || layoutC->first ||
        rowsC > INT32_MAX || colsC > INT32_MAX || ranges[k] > INT32_MAX)
      return failure();

    // Every batch element's call writes its block of C: all of it.
    linalg::FillOp zeroFill = findZeroFillOf(op, operands[2]);
    RoundedOutput rounded = gemm.roundedOutputFor(
        op, operands[0], operands[1], operands[2], *types, zeroFill);
    Value out = operands[2];
    if (rounded) {
      out = rounded.prepare(rewriter, op, operands[2], types->input);
      types->output = types->input;
    }
    Location loc = op.getLoc();
    auto constI32 = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, value, 32);
    };
    // cuBLAS computes the products along one batch dim in one call (the
    // longest: fewest calls); the other batch dims stay loops of calls.
    std::optional<unsigned> batched;
    if (gemm.library == "dist_cublas")
      for (auto [position, dim] : llvm::enumerate(dims->batch))
        if (ranges[dim] <= INT32_MAX && c.batchStrides[position] != 0 &&
            (!batched || ranges[dim] >= ranges[dims->batch[*batched]]))
          batched = position;
    // One call per batch element (of the others), in nested loops.
    SmallVector<Value> ivs;
    SmallVector<int64_t> loopPositions;
    for (auto [position, batch] : llvm::enumerate(dims->batch)) {
      if (batched && position == *batched)
        continue;
      loopPositions.push_back(position);
      Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value ub = arith::ConstantIndexOp::create(rewriter, loc, ranges[batch]);
      Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto loop = scf::ForOp::create(rewriter, loc, lb, ub, step);
      ivs.push_back(loop.getInductionVar());
      rewriter.setInsertionPointToStart(loop.getBody());
    }
    // The operand's first element for this batch element.
    auto address = [&](Value memref, const StridedMatrix &x) {
      int64_t bytes =
          cast<MemRefType>(memref.getType()).getElementTypeBitWidth() / 8;
      Value elements = arith::ConstantIndexOp::create(rewriter, loc, 0);
      for (auto [iv, position] : llvm::zip(ivs, loopPositions))
        if (int64_t stride = x.batchStrides[position]; stride != 0)
          elements = arith::AddIOp::create(
              rewriter, loc, elements,
              arith::MulIOp::create(
                  rewriter, loc, iv,
                  arith::ConstantIndexOp::create(rewriter, loc, stride)));
      return buildBufferAddress(rewriter, loc, memref, bytes, elements);
    };
    auto trans = [&](bool transposed) {
      return constI32(transposed ? kCblasTrans : kCblasNoTrans);
    };
    std::optional<StridedBatch> batch;
    if (batched) {
      auto constI64 = [&](int64_t value) -> Value {
        return arith::ConstantIntOp::create(rewriter, loc, value, 64);
      };
      batch = StridedBatch{constI64(a.batchStrides[*batched]),
                           constI64(b.batchStrides[*batched]),
                           constI64(c.batchStrides[*batched]),
                           constI32(ranges[dims->batch[*batched]])};
    }
    if (failed(gemm.call(rewriter, loc, *types, trans(layoutA->first),
                         trans(layoutB->first), constI32(rowsC),
                         constI32(colsC), constI32(ranges[k]),
                         address(aValue, a), constI32(layoutA->second),
                         address(bValue, b), constI32(layoutB->second),
                         address(out, c), constI32(layoutC->second),
                         /*accumulate=*/!zeroFill, batch)))
      return failure();
    if (zeroFill)
      rewriter.eraseOp(zeroFill);
    rewriter.eraseOp(op);
    if (rounded)
      rounded.finish(rewriter, operands[2], out);
    return success();
  }

  GemmCallee &gemm;
};

struct DistMatmulToBlasPass
    : public dist::impl::DistMatmulToBlasBase<DistMatmulToBlasPass> {
  using DistMatmulToBlasBase::DistMatmulToBlasBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    if (library != "cblas" && library != "cublas") {
      module.emitError() << "dist-matmul-to-blas: library '" << library
                         << "' is not cblas or cublas";
      return signalPassFailure();
    }
    GemmCallee gemm{module, symbols,
                    library == "cblas" ? "cblas" : "dist_cublas"};
    RewritePatternSet patterns(&getContext());
    patterns.add<MatmulToBlas, ContractionToBlas>(&getContext(), gemm);
    walkAndApplyPatterns(module, std::move(patterns));
    if (gemm.reportedError)
      signalPassFailure();
  }
};

} // namespace
