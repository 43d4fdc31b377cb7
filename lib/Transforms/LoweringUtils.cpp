//===- LoweringUtils.cpp - Helpers for lowering to external calls ---------===//

#include "LoweringUtils.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "dist/Dialect/Dist/IR/DistOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

Value dist::buildBufferAddress(OpBuilder &builder, Location loc, Value memref,
                               int64_t elementBytes, Value extraElements) {
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
  auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, memref);
  Value offset = metadata.getOffset();
  if (extraElements)
    offset = arith::AddIOp::create(builder, loc, offset, extraElements);
  Value offsetBytes = arith::MulIOp::create(
      builder, loc, offset,
      arith::ConstantIndexOp::create(builder, loc, elementBytes));
  Value address = arith::AddIOp::create(builder, loc, base, offsetBytes);
  Value address64 = arith::IndexCastOp::create(builder, loc,
                                               builder.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext()),
      address64);
}

LogicalResult dist::declareExternalFunction(OpBuilder &builder,
                                            ModuleOp module,
                                            SymbolTable &symbolTable,
                                            StringRef name, TypeRange args,
                                            TypeRange results,
                                            StreamOrdering ordering) {
  FunctionType type = builder.getFunctionType(args, results);
  auto fn = dyn_cast_or_null<func::FuncOp>(symbolTable.lookup(name));
  if (Operation *existing = symbolTable.lookup(name)) {
    if (!fn || fn.getFunctionType() != type || !fn.isExternal())
      return existing->emitOpError()
             << "uses the name @" << name << ", which the lowering calls as "
             << type << "; rename it";
  } else {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    fn = func::FuncOp::create(builder, module.getLoc(), name, type);
    fn.setPrivate();
    symbolTable.insert(fn);
  }
  if (ordering == StreamOrdering::NoSync)
    fn->setAttr(DistDialect::getNoStreamSyncAttrName(), builder.getUnitAttr());
  if (ordering == StreamOrdering::LastArgument && !args.empty())
    fn->setAttr(DistDialect::getStreamArgumentAttrName(),
                builder.getI64IntegerAttr(args.size() - 1));
  return success();
}

int64_t dist::getElementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

std::optional<int64_t> dist::getStaticBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape() ||
      !shaped.getElementType().isIntOrIndexOrFloat())
    return std::nullopt;
  return shaped.getNumElements() * getElementBytes(shaped.getElementType());
}

Value dist::getRootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
    if (view.getViewSource() == value)
      break;
    value = view.getViewSource();
  }
  return value;
}

SmallVector<int64_t> dist::getBucketSlotOffsets(ValueRange members) {
  SmallVector<int64_t> offsets = {0};
  for (Type type : members.getTypes()) {
    auto memref = cast<MemRefType>(type);
    offsets.push_back(offsets.back() +
                      memref.getNumElements() *
                          getElementBytes(memref.getElementType()));
  }
  return offsets;
}

std::optional<dist::BucketPlacement>
dist::getBucketPlacement(CollectiveOpInterface op) {
  if (!op.isBufferForm() || !op.isInPlace())
    return std::nullopt;
  ValueRange members = op.getCollectiveInputs();
  if (members.size() < 2)
    return std::nullopt;
  for (Type type : members.getTypes()) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.hasStaticShape())
      return std::nullopt;
  }
  BucketPlacement placement;
  placement.slotOffsets = getBucketSlotOffsets(members);
  for (auto [member, offset] : llvm::zip(members, placement.slotOffsets)) {
    bool placed = false;
    if (auto view = member.getDefiningOp<memref::ViewOp>()) {
      auto alloc = view.getSource().getDefiningOp<memref::AllocOp>();
      std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
      if (alloc && alloc->hasAttr(DistDialect::getBucketBufferAttrName()) &&
          shift == offset) {
        if (!placement.buffer)
          placement.buffer = alloc.getResult();
        placed = placement.buffer == alloc.getResult();
      }
    }
    placement.placed.push_back(placed);
  }
  if (!placement.buffer ||
      cast<MemRefType>(placement.buffer.getType()).getNumElements() !=
          placement.slotOffsets.back())
    return std::nullopt;
  return placement;
}

Operation *dist::findFirstUserInBlock(Operation *op) {
  Block *block = op->getBlock();
  Operation *first = nullptr;
  for (Operation *user : op->getUsers())
    if (Operation *top = block->findAncestorOpInBlock(*user);
        top && (!first || top->isBeforeInBlock(first)))
      first = top;
  return first;
}

bool dist::isGemmContraction(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(op))
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  // Every loop must be one of them: a loop over one operand only (a sum or
  // a broadcast) is no GEMM.
  return succeeded(dims) && dims->m.size() == 1 && dims->n.size() == 1 &&
         dims->k.size() == 1 && dims->batch.size() + 3 == op.getNumLoops();
}

bool dist::isRowMajorFromStart(MemRefType type) {
  return type.getLayout().isIdentity() && type.hasStaticShape();
}

// cuMemAlloc starts allocations at 256 bytes, the host's allocator at 16.
int64_t dist::knownStartAlignment(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t elementBytes =
      std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  // The largest power of two (up to kGpuAccessBytes) dividing `bytes`.
  auto alignmentOf = [](int64_t bytes) {
    int64_t alignment = 1;
    while (alignment < kGpuAccessBytes && bytes % (2 * alignment) == 0)
      alignment *= 2;
    return alignment;
  };
  if (auto argument = dyn_cast<BlockArgument>(buffer)) {
    Block *block = argument.getOwner();
    return block->isEntryBlock() &&
                   isa<FunctionOpInterface>(block->getParentOp())
               ? kGpuAccessBytes
               : elementBytes;
  }
  Operation *def = buffer.getDefiningOp();
  if (isa<memref::AllocOp>(def))
    return kGpuAccessBytes;
  if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(def))
    return knownStartAlignment(def->getOperand(0));
  if (auto view = dyn_cast<memref::ViewOp>(def)) {
    APInt shift;
    if (!matchPattern(view.getByteShift(), m_ConstantInt(&shift)))
      return elementBytes;
    return std::min(knownStartAlignment(view.getSource()),
                    alignmentOf(shift.getSExtValue()));
  }
  // A cast's offset counts from its source's aligned pointer, which is the
  // source's start when the source has an identity layout.
  if (auto reinterpret = dyn_cast<memref::ReinterpretCastOp>(def)) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        !cast<MemRefType>(reinterpret.getSource().getType()).getLayout().isIdentity())
      return elementBytes;
    return std::max(elementBytes,
                    std::min(knownStartAlignment(reinterpret.getSource()),
                             alignmentOf(offset * elementBytes)));
  }
  return elementBytes;
}

Operation *dist::getSplittableCombiner(linalg::LinalgOp op) {
  if (!op.hasOnlyProjectedPermutations() || op.getNumDpsInits() != 1)
    return nullptr;
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!isa<IntegerType, FloatType>(element))
    return nullptr;
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1)
    return nullptr;
  Operation *combiner = combiners.front();
  if (combiner->getNumOperands() != 2 || !arith::getNeutralElement(combiner))
    return nullptr;
  if (auto overflow =
          dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(combiner);
      overflow && overflow.getOverflowAttr() &&
      overflow.getOverflowAttr().getValue() != arith::IntegerOverflowFlags::none)
    return nullptr;
  if (auto fastMath = dyn_cast<arith::ArithFastMathInterface>(combiner);
      fastMath && fastMath.getFastMathFlagsAttr() &&
      arith::bitEnumContainsAny(fastMath.getFastMathFlagsAttr().getValue(),
                                arith::FastMathFlags::nnan |
                                    arith::FastMathFlags::ninf))
    return nullptr;
  return combiner;
}

bool dist::isBlockRowReduction(linalg::LinalgOp op, int64_t minExtent,
                               int64_t minOutputs) {
  if (op.getNumReductionLoops() != 1 || op.hasDynamicShape() ||
      isGemmContraction(op) || !getSplittableCombiner(op))
    return false;
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (element.getIntOrFloatBitWidth() != 32)
    return false;
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  unsigned reduction = dims.front();
  bool read = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<ShapedType>(input->get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(reduction))
      continue;
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || last.getPosition() != reduction)
      return false;
    read = true;
  }
  int64_t outputs = 1;
  for (auto [dim, range] : llvm::enumerate(op.getStaticLoopRanges())) {
    if (dim == reduction)
      continue;
    outputs *= range;
    if (outputs > std::numeric_limits<int32_t>::max())
      return false;
  }
  return read && op.getStaticLoopRanges()[reduction] >= minExtent &&
         outputs >= minOutputs;
}

FailureOr<SmallVector<scf::ParallelOp>>
dist::collectHostParallelLoops(Operation *root, StringRef passName) {
  SmallVector<scf::ParallelOp> loops;
  WalkResult walk = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::GPUModuleOp, gpu::LaunchOp>(op))
      return WalkResult::skip();
    auto loop = dyn_cast<scf::ParallelOp>(op);
    if (!loop)
      return WalkResult::advance();
    // The mapping's choices per dimension assume the loop's shape.
    if (loop->hasAttr(gpu::getMappingAttrName())) {
      loop.emitOpError() << "is already mapped to the GPU; run " << passName
                         << " before gpu-map-parallel-loops";
      return WalkResult::interrupt();
    }
    if (loop.getNumResults() == 0)
      loops.push_back(loop);
    return WalkResult::skip();
  });
  if (walk.wasInterrupted())
    return failure();
  return loops;
}

std::optional<unsigned> dist::findContiguousDimension(scf::ParallelOp loop) {
  SmallVector<int64_t> weights(loop.getNumLoops(), 0);
  auto lastIndexOf = [](Operation *op) -> Value {
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      indices = load.getIndices();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      indices = store.getIndices();
    else if (auto load = dyn_cast<vector::LoadOp>(op))
      indices = load.getIndices();
    else if (auto store = dyn_cast<vector::StoreOp>(op))
      indices = store.getIndices();
    return indices.empty() ? Value() : indices.back();
  };
  loop.getBody()->walk([&](Operation *op) {
    Value last = lastIndexOf(op);
    // A vectorized dimension's first element: variable * V.
    if (auto scaled = dyn_cast_if_present<arith::MulIOp>(
            last ? last.getDefiningOp() : nullptr);
        scaled && matchPattern(scaled.getRhs(), m_Constant()))
      last = scaled.getLhs();
    auto variable = dyn_cast_if_present<BlockArgument>(last);
    if (!variable || variable.getOwner() != loop.getBody())
      return;
    int64_t weight = 1;
    for (Operation *parent = op->getParentOp(); parent != loop;
         parent = parent->getParentOp())
      if (auto inner = dyn_cast<scf::ForOp>(parent))
        if (std::optional<APInt> trips = inner.getStaticTripCount())
          weight *= std::max<int64_t>(1, trips->getZExtValue());
    weights[variable.getArgNumber()] += weight;
  });
  std::optional<unsigned> best;
  for (auto [dimension, weight] : llvm::enumerate(weights))
    if (weight > 0 && (!best || weight >= weights[*best]))
      best = dimension;
  return best;
}
