//===- TensorShardingRules.cpp - Rules for tensor dialect ops -------------===//
//
// Shape-manipulating ops: a dim that the op keeps whole (a full slice, a dim
// that is not padded or concatenated) is a parallel factor shared by the
// input and the output; a dim the op cuts, pads or joins must stay whole.
//
//===----------------------------------------------------------------------===//

#include "dist/Extensions/ShardingRules.h"
#include "dist/Interfaces/ShardingRuleInterface.h"

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::dist;

/// True if the slice of `sliceShape` at (`offsets`, `strides`) covers dim `d`
/// of `fullShape` entirely.
static bool coversDim(ArrayRef<int64_t> fullShape, ArrayRef<int64_t> sliceShape,
                      ArrayRef<int64_t> offsets, ArrayRef<int64_t> strides,
                      int64_t d) {
  return offsets[d] == 0 && strides[d] == 1 &&
         !ShapedType::isDynamic(fullShape[d]) && sliceShape[d] == fullShape[d];
}

/// For a slice op (extract or insert), the factor of each dim of the full
/// tensor: a new parallel factor for a dim the slice covers entirely (and does
/// not drop), none for the others. Also returns the same list without the
/// dropped unit dims (the dims of the slice itself).
/// The other dims, cut at static offsets with unit strides, are ranged
/// dims of operand `fullOperand` (the full tensor).
template <typename SliceOp>
static std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
getSliceDimFactors(SliceOp slice, RankedTensorType full, ShardingRule &rule,
                   unsigned fullOperand) {
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  SmallVector<int64_t> fullDims, sliceDims;
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  ArrayRef<int64_t> strides = slice.getStaticStrides();
  for (int64_t d = 0; d < full.getRank(); ++d) {
    int64_t factor = ShardingRule::kNoFactor;
    if (!dropped.test(d) &&
        coversDim(full.getShape(), sizes, offsets, strides, d))
      factor = rule.addFactor(full.getDimSize(d), FactorKind::Parallel);
    else if (!ShapedType::isDynamic(offsets[d]) &&
             !ShapedType::isDynamic(sizes[d]) && strides[d] == 1)
      rule.rangedDims.push_back({fullOperand, d, offsets[d], sizes[d]});
    fullDims.push_back(factor);
    if (!dropped.test(d))
      sliceDims.push_back(factor);
  }
  return {fullDims, sliceDims};
}

/// The offsets, sizes and strides of a slice op's local form: values remapped
/// through `mapping`, and the sizes of the kept (non-`dropped`) dims set from
/// `localSliceType`, the type of the local slice. A dim of the full tensor
/// that is split (`localFull` smaller than `globalFull` there) and cut at a
/// static offset is a ranged dim inside one block: the offset moves into
/// the block.
template <typename SliceOp>
static void getLocalSliceParams(SliceOp slice, const llvm::SmallBitVector &dropped,
                                RankedTensorType localSliceType,
                                RankedTensorType globalFull,
                                RankedTensorType localFull,
                                OpBuilder &builder, IRMapping &mapping,
                                SmallVectorImpl<OpFoldResult> &offsets,
                                SmallVectorImpl<OpFoldResult> &sizes,
                                SmallVectorImpl<OpFoldResult> &strides) {
  auto remap = [&](SmallVector<OpFoldResult> values,
                   SmallVectorImpl<OpFoldResult> &into) {
    for (OpFoldResult &value : values)
      if (auto v = dyn_cast<Value>(value))
        value = mapping.lookupOrDefault(v);
    into.assign(values.begin(), values.end());
  };
  remap(slice.getMixedOffsets(), offsets);
  remap(slice.getMixedSizes(), sizes);
  remap(slice.getMixedStrides(), strides);
  for (int64_t d = 0, e = offsets.size(); d < e; ++d) {
    std::optional<int64_t> offset = getConstantIntValue(offsets[d]);
    int64_t block = localFull.getDimSize(d);
    if (offset && !ShapedType::isDynamic(block) &&
        block < globalFull.getDimSize(d))
      offsets[d] = builder.getIndexAttr(*offset % block);
  }
  for (int64_t d = 0, r = 0, e = sizes.size(); d < e; ++d) {
    if (dropped.test(d))
      continue;
    int64_t local = localSliceType.getDimSize(r++);
    if (!ShapedType::isDynamic(local))
      sizes[d] = builder.getIndexAttr(local);
  }
}

/// True if a slice with these local `sizes` may be read as dropping other
/// unit dims than `dropped`: a kept dim split down to one element (or of
/// unknown size) next to dropped unit dims. A rank-reducing slice's dropped
/// dims are inferred from its sizes (and, for memrefs, from strides), so the
/// local op must not leave a choice.
static bool isDropAmbiguous(ArrayRef<OpFoldResult> sizes,
                            const llvm::SmallBitVector &dropped) {
  if (dropped.none())
    return false;
  for (auto [d, size] : llvm::enumerate(sizes))
    if (!dropped.test(d) && getConstantIntValue(size).value_or(1) == 1)
      return true;
  return false;
}

/// The full-rank type of a slice of `sizes` (dropped dims kept as 1).
static RankedTensorType getFullRankSliceType(ArrayRef<OpFoldResult> sizes,
                                             Type element) {
  SmallVector<int64_t> shape = llvm::map_to_vector(sizes, [](OpFoldResult size) {
    return getConstantIntValue(size).value_or(ShapedType::kDynamic);
  });
  return RankedTensorType::get(shape, element);
}

/// Groups the dims of a full-rank slice so that each dropped unit dim joins a
/// kept one: the reassociation between it and the rank-reduced slice.
static SmallVector<ReassociationIndices>
groupDroppedDims(const llvm::SmallBitVector &dropped) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t d = 0, e = dropped.size(); d < e; ++d) {
    pending.push_back(d);
    if (!dropped.test(d)) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

namespace {
/// tensor.empty: one parallel factor per result dim.
struct EmptyShardingRule
    : public ShardingRuleOpInterface::ExternalModel<EmptyShardingRule,
                                                    tensor::EmptyOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return ShardingRule::getElementwise(op);
  }

  /// The local type on the same size operands: a dynamic dim's operand is a
  /// size (global or local, which the op does not say), so that dim must
  /// stay whole.
  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &,
                                      IRMapping &, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &splits) const {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d) && splits.isSplit(d)) {
        InFlightDiagnostic diag = op->emitOpError()
                                  << "cannot split dynamic dim " << d << " of "
                                  << type << " over mesh axes [";
        llvm::interleaveComma(splits.axes[d], diag,
                              [&](StringAttr axis) { diag << axis.getValue(); });
        return diag << "] (its size operand does not say whether it is the "
                       "global or the local size)";
      }
    return rewriteInPlace(op, operands, resultTypes);
  }
};

/// tensor.extract_slice: fully kept dims are factors; a rank-reducing slice
/// drops unit dims, which have no factor.
struct ExtractSliceShardingRule
    : public ShardingRuleOpInterface::ExternalModel<ExtractSliceShardingRule,
                                                    tensor::ExtractSliceOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto slice = cast<tensor::ExtractSliceOp>(op);
    ShardingRule rule = ShardingRule::getEmpty(op);
    rule.partialPolicy = PartialPolicy::Multilinear;
    std::tie(rule.operandDims[0], rule.resultDims[0]) =
        getSliceDimFactors(slice, slice.getSourceType(), rule, 0);
    return rule;
  }

  /// The kept dims take their local size; the cut ones are whole anyway.
  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &builder,
                                      IRMapping &mapping, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &splits) const {
    auto localType = cast<RankedTensorType>(resultTypes[0]);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    auto slice = cast<tensor::ExtractSliceOp>(op);
    // From the result type, which is still the global one.
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    getLocalSliceParams(slice, dropped, localType,
                        cast<RankedTensorType>(splits.globalOperandType(0)),
                        cast<RankedTensorType>(operands[0].getType()), builder,
                        mapping, offsets, sizes, strides);
    if (!isDropAmbiguous(sizes, dropped))
      return tensor::ExtractSliceOp::create(builder, op->getLoc(), localType,
                                            operands[0], offsets, sizes,
                                            strides)
          .getOperation();
    // Say which dims go: a full-rank slice, then a collapse.
    Value full = tensor::ExtractSliceOp::create(
        builder, op->getLoc(),
        getFullRankSliceType(sizes, localType.getElementType()), operands[0],
        offsets, sizes, strides);
    return tensor::CollapseShapeOp::create(builder, op->getLoc(), localType,
                                           full, groupDroppedDims(dropped))
        .getOperation();
  }
};

/// tensor.insert_slice: dims the source fills entirely are factors of the
/// source, the destination and the result; a rank-expanding insert has unit
/// dims that are not in the source.
struct InsertSliceShardingRule
    : public ShardingRuleOpInterface::ExternalModel<InsertSliceShardingRule,
                                                    tensor::InsertSliceOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto insert = cast<tensor::InsertSliceOp>(op);
    ShardingRule rule = ShardingRule::getEmpty(op);
    rule.partialPolicy = PartialPolicy::Additive;
    auto [destDims, sourceDims] =
        getSliceDimFactors(insert, insert.getDestType(), rule, 1);
    rule.writesRangedDims = true;
    rule.operandDims[0] = sourceDims;
    rule.operandDims[1] = destDims;
    rule.resultDims[0] = destDims;
    return rule;
  }

  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &builder,
                                      IRMapping &mapping, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &splits) const {
    auto insert = cast<tensor::InsertSliceOp>(op);
    // The dropped dims from the global source type (the op's source may be
    // local already).
    auto globalSource = cast<RankedTensorType>(splits.globalOperandType(0));
    std::optional<llvm::SmallDenseSet<unsigned>> droppedSet =
        computeRankReductionMask(insert.getStaticSizes(), globalSource.getShape());
    if (!droppedSet)
      return op->emitOpError()
             << "cannot be rebuilt on local types: its sizes do not say which "
                "dims of source type "
             << globalSource << " it drops";
    llvm::SmallBitVector dropped(insert.getStaticSizes().size());
    for (unsigned d : *droppedSet)
      dropped.set(d);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    auto localSource = cast<RankedTensorType>(operands[0].getType());
    getLocalSliceParams(insert, dropped, localSource,
                        cast<RankedTensorType>(splits.globalOperandType(1)),
                        cast<RankedTensorType>(operands[1].getType()), builder,
                        mapping, offsets, sizes, strides);
    Value source = operands[0];
    // Say which dims the source lacks: expand it to full rank first.
    if (isDropAmbiguous(sizes, dropped))
      source = tensor::ExpandShapeOp::create(
          builder, op->getLoc(),
          getFullRankSliceType(sizes, localSource.getElementType()), source,
          groupDroppedDims(dropped));
    return tensor::InsertSliceOp::create(builder, op->getLoc(), source,
                                         operands[1], offsets, sizes, strides)
        .getOperation();
  }
};

/// tensor.concat: every dim but the concatenated one is a shared factor.
struct ConcatShardingRule
    : public ShardingRuleOpInterface::ExternalModel<ConcatShardingRule,
                                                    tensor::ConcatOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto concat = cast<tensor::ConcatOp>(op);
    RankedTensorType result = concat.getResultType();
    ShardingRule rule = ShardingRule::getEmpty(op);
    rule.partialPolicy = PartialPolicy::Additive;
    for (int64_t d = 0; d < result.getRank(); ++d) {
      int64_t factor = d == (int64_t)concat.getDim()
                           ? ShardingRule::kNoFactor
                           : rule.addFactor(result.getDimSize(d),
                                            FactorKind::Parallel);
      for (SmallVector<int64_t> &dims : rule.operandDims)
        dims.push_back(factor);
      rule.resultDims[0].push_back(factor);
    }
    return rule;
  }
};

struct CollapseShapeShardingRule
    : public ShardingRuleOpInterface::ExternalModel<CollapseShapeShardingRule,
                                                    tensor::CollapseShapeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto collapse = cast<tensor::CollapseShapeOp>(op);
    return ShardingRule::getReshape(op, collapse.getSrcType(),
                          collapse.getReassociationIndices(),
                          /*sourceIsMerged=*/false);
  }
};

struct ExpandShapeShardingRule
    : public ShardingRuleOpInterface::ExternalModel<ExpandShapeShardingRule,
                                                    tensor::ExpandShapeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto expand = cast<tensor::ExpandShapeOp>(op);
    if (!expand.getResultType().hasStaticShape())
      return failure();
    return ShardingRule::getReshape(op, expand.getResultType(),
                          expand.getReassociationIndices(),
                          /*sourceIsMerged=*/true);
  }

  /// The output shape is an attribute: rebuild it from the local type.
  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &builder,
                                      IRMapping &, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &) const {
    auto expand = cast<tensor::ExpandShapeOp>(op);
    return tensor::ExpandShapeOp::create(
               builder, op->getLoc(), cast<RankedTensorType>(resultTypes[0]),
               operands[0], expand.getReassociationIndices())
        .getOperation();
  }
};

/// tensor.gather with one gathered dim (an embedding lookup): the index
/// batch dims and the source's other dims are parallel factors; the gathered
/// dim is a sum "reduction" factor, since each rank can look up the rows it
/// owns and contribute zeros for the others (vocabulary parallelism: the
/// result is a partial sum).
struct GatherShardingRule
    : public ShardingRuleOpInterface::ExternalModel<GatherShardingRule,
                                                    tensor::GatherOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto gather = cast<tensor::GatherOp>(op);
    RankedTensorType source = gather.getSourceType();
    RankedTensorType indices = gather.getIndicesType();
    RankedTensorType result = gather.getResultType();
    ArrayRef<int64_t> gatherDims = gather.getGatherDims();
    int64_t batchRank = indices.getRank() - 1;
    bool rankReduced =
        result.getRank() == batchRank + source.getRank() - (int64_t)gatherDims.size();
    ShardingRule rule = ShardingRule::getEmpty(op);
    rule.partialPolicy = PartialPolicy::Multilinear;
    rule.operandIsLinear = {true, false}; // linear in the source, not the indices
    // Ids never name a padded row of a split source.
    rule.paddedReduction = PaddedReduction::ByLocalForm;
    for (int64_t d = 0; d < batchRank; ++d) {
      int64_t factor = rule.addFactor(indices.getDimSize(d), FactorKind::Parallel);
      rule.operandDims[1].push_back(factor);
      rule.resultDims[0].push_back(factor);
    }
    rule.operandDims[1].push_back(ShardingRule::kNoFactor); // the coordinates
    for (int64_t d = 0; d < source.getRank(); ++d) {
      bool gathered = llvm::is_contained(gatherDims, d);
      int64_t factor;
      if (!gathered)
        factor = rule.addFactor(source.getDimSize(d), FactorKind::Parallel);
      else if (gatherDims.size() == 1 && !ShapedType::isDynamic(source.getDimSize(d)))
        factor = rule.addFactor(source.getDimSize(d), FactorKind::Reduction,
                                ReductionKind::sum);
      else
        factor = rule.addFactor(source.getDimSize(d), FactorKind::Unsplittable);
      rule.operandDims[0].push_back(factor);
      if (!gathered)
        rule.resultDims[0].push_back(factor);
      else if (!rankReduced)
        rule.resultDims[0].push_back(ShardingRule::kNoFactor);
    }
    return rule;
  }

  /// With the gathered dim split, each rank holds rows [offset, offset +
  /// local) of the source: it looks up the indices that fall there (shifted
  /// to local rows) and yields zeros for the others.
  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &builder,
                                      IRMapping &, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &splits) const {
    auto gather = cast<tensor::GatherOp>(op);
    auto resultType = cast<RankedTensorType>(resultTypes[0]);
    int64_t batchRank = gather.getIndicesType().getRank() - 1;
    int64_t gatheredDim = gather.getGatherDims().front();
    int64_t factor = batchRank + gatheredDim;
    Location loc = op->getLoc();
    // Padded rows of the indices hold anything: they look up row 0.
    SmallVector<Value> localOperands(operands);
    for (int64_t d = 0; d < batchRank; ++d)
      if (splits.isPadded(d))
        localOperands[1] = maskPadding(
            builder, loc, localOperands[1], d, splits.mesh, splits.axes[d],
            splits.factors[d].size,
            builder.getZeroAttr(gather.getIndicesType().getElementType()));
    operands = localOperands;
    if (!splits.isSplit(factor))
      return tensor::GatherOp::create(builder, op->getLoc(), resultType,
                                      operands[0], operands[1],
                                      gather.getGatherDims(), gather.getUnique())
          .getOperation();
    ArrayRef<StringAttr> axes = splits.axes[factor];
    auto source = cast<RankedTensorType>(operands[0].getType());
    int64_t localRows = source.getDimSize(gatheredDim);
    LocalLookup lookup = buildLocalLookup(builder, loc, operands[1],
                                          splits.mesh, axes, localRows);
    Value inRange = lookup.inBlock, safe = lookup.safeIndices;
    // Clamped indices repeat: the gather is no longer `unique`.
    Value rows = tensor::GatherOp::create(builder, loc, resultType, operands[0],
                                          safe, gather.getGatherDims(),
                                          /*unique=*/false);

    // Zero the rows looked up for indices outside this rank's block: the mask
    // has the indices' batch dims; broadcast it over the rest.
    SmallVector<AffineExpr> maskDims;
    for (int64_t d = 0; d < batchRank; ++d)
      maskDims.push_back(builder.getAffineDimExpr(d));
    maskDims.push_back(builder.getAffineConstantExpr(0));
    int64_t rank = resultType.getRank();
    AffineMap identity = builder.getMultiDimIdentityMap(rank);
    AffineMap maskMap = AffineMap::get(rank, 0, maskDims, builder.getContext());
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    Type element = resultType.getElementType();
    Value init = tensor::EmptyOp::create(builder, loc, resultType.getShape(), element);
    auto masked = linalg::GenericOp::create(
        builder, loc, resultType, ValueRange{rows, inRange}, ValueRange{init},
        ArrayRef<AffineMap>{identity, maskMap, identity}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(element));
          Value v = arith::SelectOp::create(b, l, args[1], args[0], zero);
          linalg::YieldOp::create(b, l, v);
        });
    return masked.getOperation();
  }
};

/// True if `pad` pads with a constant zero, the value of a halo's ghost
/// rows (+0.0: a -0.0 padding would differ in sign at the ends).
static bool padsWithZero(tensor::PadOp pad) {
  Value value = pad.getConstantPaddingValue();
  return value && (matchPattern(value, m_PosZeroFloat()) ||
                   matchPattern(value, m_Zero()));
}

/// tensor.pad: unpadded dims are shared factors. A dim padded with zeros
/// by static amounts is one too: with the source split into blocks with a
/// halo of the padding (ghost rows of zeros at the ends), each rank's block
/// is its block of the padded tensor, whose blocks overlap by the padding.
/// Other padded dims stay whole.
struct PadShardingRule
    : public ShardingRuleOpInterface::ExternalModel<PadShardingRule,
                                                    tensor::PadOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto pad = cast<tensor::PadOp>(op);
    RankedTensorType source = pad.getSourceType();
    ShardingRule rule = ShardingRule::getEmpty(op);
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    Block &body = pad.getRegion().front();
    bool zero = padsWithZero(pad);
    for (int64_t d = 0; d < source.getRank(); ++d) {
      // A body that reads dim d's index computes with global indices.
      bool bodyReadsIndex = !body.getArgument(d).use_empty();
      bool padded = low[d] != 0 || high[d] != 0;
      bool haloed = padded && zero && !ShapedType::isDynamic(low[d]) &&
                    !ShapedType::isDynamic(high[d]) &&
                    !source.isDynamicDim(d);
      int64_t factor = ((!padded || haloed) && !bodyReadsIndex)
                           ? rule.addFactor(source.getDimSize(d),
                                            FactorKind::Parallel)
                           : ShardingRule::kNoFactor;
      rule.operandDims[0].push_back(factor);
      rule.resultDims[0].push_back(factor);
      if (haloed && factor != ShardingRule::kNoFactor) {
        rule.setOperandHalo(0, d, {low[d], high[d], 0});
        rule.setResultHalo(0, d, {0, 0, low[d] + high[d]});
      }
    }
    return rule;
  }
  /// A split padded dim's source block already holds its halo: it is not
  /// padded again.
  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &builder,
                                      IRMapping &, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &splits) const {
    auto pad = cast<tensor::PadOp>(op);
    SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
    // Which factor indexes which dim does not depend on the sizes, so the
    // rule may be asked again of the op whose operands are local already.
    FailureOr<ShardingRule> rule = getShardingRule(op);
    if (failed(rule))
      return failure();
    bool changed = false;
    for (auto [d, factor] : llvm::enumerate(rule->operandDims[0]))
      if ((low[d] != 0 || high[d] != 0) && splits.isSplit(factor)) {
        low[d] = high[d] = 0;
        changed = true;
      }
    if (!changed)
      return rewriteInPlace(op, operands, resultTypes);
    pad.setStaticLow(low);
    pad.setStaticHigh(high);
    return rewriteInPlace(op, operands, resultTypes);
  }
};} // namespace

void dist::registerTensorShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::EmptyOp::attachInterface<EmptyShardingRule>(*context);
    tensor::ExtractSliceOp::attachInterface<ExtractSliceShardingRule>(*context);
    tensor::InsertSliceOp::attachInterface<InsertSliceShardingRule>(*context);
    tensor::ConcatOp::attachInterface<ConcatShardingRule>(*context);
    tensor::PadOp::attachInterface<PadShardingRule>(*context);
    tensor::CollapseShapeOp::attachInterface<CollapseShapeShardingRule>(*context);
    tensor::GatherOp::attachInterface<GatherShardingRule>(*context);
    tensor::ExpandShapeOp::attachInterface<ExpandShapeShardingRule>(*context);
  });
}
