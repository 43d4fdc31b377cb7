//===- ShardingRuleInterface.cpp - Per-op sharding rules ------------------===//

#include "dist/Interfaces/ShardingRuleInterface.h"

#include "dist/Dialect/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::dist;

#include "dist/Interfaces/ShardingRuleInterface.cpp.inc"

static SmallVector<int64_t> identityDims(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  return llvm::to_vector(llvm::seq<int64_t>(0, tensor.getRank()));
}

ShardingRule ShardingRule::getElementwise(Operation *op) {
  ShardingRule rule;
  RankedTensorType shaped;
  for (Type type : llvm::concat<Type>(op->getResultTypes(), op->getOperandTypes()))
    if ((shaped = dyn_cast<RankedTensorType>(type)))
      break;
  if (shaped)
    for (int64_t size : shaped.getShape())
      rule.addFactor(size, FactorKind::Parallel);
  for (Value operand : op->getOperands()) {
    rule.operandDims.push_back(identityDims(operand.getType()));
    rule.operandIsInitOnly.push_back(false);
    rule.operandIsAccumulator.push_back(false);
  }
  for (Type type : op->getResultTypes())
    rule.resultDims.push_back(identityDims(type));
  return rule;
}

ShardingRule ShardingRule::getEmpty(Operation *op) {
  ShardingRule rule;
  rule.operandDims.resize(op->getNumOperands());
  rule.operandIsInitOnly.assign(op->getNumOperands(), false);
  rule.operandIsAccumulator.assign(op->getNumOperands(), false);
  rule.resultDims.resize(op->getNumResults());
  return rule;
}

ShardingRule
ShardingRule::getReshape(Operation *op, RankedTensorType split,
                         ArrayRef<SmallVector<int64_t, 2>> groups,
                         bool sourceIsMerged) {
  ShardingRule rule = getEmpty(op);
  rule.partialPolicy = PartialPolicy::Multilinear;
  SmallVector<int64_t> mergedDims, splitDims(split.getRank(), kNoFactor);
  for (ArrayRef<int64_t> group : groups) {
    // Leading unit dims do not change which elements are contiguous: the
    // first dim of another size indexes the merged dim's major part.
    const int64_t *firstNonUnit = llvm::find_if(
        group, [&](int64_t d) { return split.getDimSize(d) != 1; });
    int64_t major =
        firstNonUnit == group.end() ? group.front() : *firstNonUnit;
    int64_t factor =
        rule.addFactor(split.getDimSize(major), FactorKind::Parallel);
    int64_t merged = 1;
    for (int64_t d : group)
      merged = ShapedType::isDynamic(split.getDimSize(d)) || ShapedType::isDynamic(merged)
                   ? ShapedType::kDynamic
                   : merged * split.getDimSize(d);
    rule.factors[factor].indexesPartOfDim = merged != split.getDimSize(major);
    splitDims[major] = factor;
    mergedDims.push_back(factor);
  }
  rule.operandDims[0] = sourceIsMerged ? mergedDims : splitDims;
  rule.resultDims[0] = sourceIsMerged ? splitDims : mergedDims;
  return rule;
}

LogicalResult ShardingRule::verify(Operation *op) const {
  auto checkDims = [&](StringRef what, unsigned index, Type type,
                       ArrayRef<int64_t> dims,
                       ArrayRef<SmallVector<meshmath::Halo>> halos)
      -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    int64_t rank = tensor ? tensor.getRank() : 0;
    if ((int64_t)dims.size() != rank)
      return op->emitOpError() << "sharding rule gives " << dims.size()
                               << " dims for " << what << " " << index
                               << " of rank " << rank;
    for (auto [d, factor] : llvm::enumerate(dims)) {
      if (factor == kNoFactor)
        continue;
      if (factor < 0 || factor >= getNumFactors())
        return op->emitOpError() << "sharding rule: " << what << " " << index
                                 << " dim " << d << " names factor " << factor
                                 << " of " << getNumFactors();
      // A factor indexes a whole dim, or its major part (a reshape's merged
      // dim): the dim is a multiple of the factor (a factor of size 0 goes
      // with an empty dim).
      int64_t size = tensor.getDimSize(d), expected = factors[factor].size;
      // An overlap dim holds the factor's rows and the overlap past them.
      meshmath::Halo halo = haloIn(halos, index, d);
      if (!halo.empty() && (ShapedType::isDynamic(size) ||
                            ShapedType::isDynamic(expected) ||
                            size != expected + halo.overlap))
        return op->emitOpError()
               << "sharding rule: " << what << " " << index << " dim " << d
               << " of size " << size << " has a halo or overlap but is not "
               << "its factor " << factor << "'s size plus the overlap";
      if (!halo.empty())
        continue;
      if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(expected) &&
          (expected == 0 ? size != 0 : size % expected != 0))
        return op->emitOpError() << "sharding rule: " << what << " " << index
                                 << " dim " << d << " has size " << size
                                 << ", which is no multiple of its factor's size "
                                 << expected;
      // Padded splits rely on it: a factor indexes whole dims unless marked.
      if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(expected) &&
          size != expected && !factors[factor].indexesPartOfDim)
        return op->emitOpError() << "sharding rule: " << what << " " << index
                                 << " dim " << d << " of size " << size
                                 << " is indexed by factor " << factor
                                 << " of size " << expected
                                 << ", which is not marked as indexing part "
                                    "of a dim";
    }
    return success();
  };
  if (operandDims.size() != op->getNumOperands() ||
      operandIsInitOnly.size() != op->getNumOperands() ||
      operandIsAccumulator.size() != op->getNumOperands() ||
      resultDims.size() != op->getNumResults())
    return op->emitOpError() << "sharding rule does not match the op's "
                             << op->getNumOperands() << " operands and "
                             << op->getNumResults() << " results";
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (failed(checkDims("operand", i, operand.getType(), operandDims[i],
                         operandHalos)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(checkDims("result", i, type, resultDims[i], resultHalos)))
      return failure();
  return success();
}

/// Factor names: i, j, k, l, ... then z1, z2, ... past z.
static std::string factorName(int64_t factor) {
  if (factor < 18)
    return std::string(1, char('i' + factor));
  return "z" + std::to_string(factor - 17);
}

bool ShardingRule::operator==(const ShardingRule &other) const {
  return partialPolicy == other.partialPolicy && padsSafely == other.padsSafely &&
         operandHalos == other.operandHalos &&
         resultHalos == other.resultHalos &&
         paddedReduction == other.paddedReduction && factors == other.factors &&
         operandDims == other.operandDims && resultDims == other.resultDims &&
         operandIsInitOnly == other.operandIsInitOnly &&
         operandIsAccumulator == other.operandIsAccumulator &&
         operandIsLinear == other.operandIsLinear &&
         rangedDims == other.rangedDims &&
         writesRangedDims == other.writesRangedDims;
}

llvm::hash_code mlir::dist::hash_value(const ShardingRule &rule) {
  llvm::hash_code hash = llvm::hash_combine(
      (int)rule.partialPolicy, (int)rule.paddedReduction, rule.padsSafely);
  for (const ShardingRule::Factor &factor : rule.factors)
    hash = llvm::hash_combine(hash, factor.size, (int)factor.kind,
                              (int)factor.reduction, factor.indexesPartOfDim,
                              factor.hasHalo, factor.minBlockSize);
  // The sizes separate the lists (([0], [1]) vs ([0, 1], [])).
  for (ArrayRef<int64_t> dims : rule.operandDims)
    hash = llvm::hash_combine(hash, dims.size(), llvm::hash_combine_range(dims));
  for (ArrayRef<int64_t> dims : rule.resultDims)
    hash = llvm::hash_combine(hash, dims.size(), llvm::hash_combine_range(dims));
  for (const ShardingRule::RangedDim &ranged : rule.rangedDims)
    hash = llvm::hash_combine(hash, ranged.operand, ranged.dim, ranged.offset,
                              ranged.size);
  hash = llvm::hash_combine(hash, rule.writesRangedDims);
  return llvm::hash_combine(hash, llvm::hash_combine_range(rule.operandIsInitOnly),
                            llvm::hash_combine_range(rule.operandIsAccumulator),
                            llvm::hash_combine_range(rule.operandIsLinear));
}

void ShardingRule::print(raw_ostream &os) const {
  auto printDims = [&](ArrayRef<SmallVector<int64_t>> lists,
                       ArrayRef<SmallVector<meshmath::Halo>> halos) {
    os << '(';
    llvm::interleaveComma(llvm::enumerate(lists), os, [&](auto item) {
      os << '[';
      llvm::interleaveComma(llvm::enumerate(item.value()), os, [&](auto dim) {
        int64_t factor = dim.value();
        os << (factor == kNoFactor ? "_" : factorName(factor));
        meshmath::Halo halo = haloIn(halos, item.index(), dim.index());
        if (halo.lo || halo.hi)
          os << " halo [" << halo.lo << ", " << halo.hi << ']';
        if (halo.overlap)
          os << " overlap " << halo.overlap;
      });
      os << ']';
    });
    os << ')';
  };
  printDims(operandDims, operandHalos);
  os << " -> ";
  printDims(resultDims, resultHalos);
  os << " {";
  llvm::interleaveComma(llvm::seq<int64_t>(0, getNumFactors()), os,
                        [&](int64_t f) {
                          os << factorName(f) << '=';
                          if (ShapedType::isDynamic(factors[f].size))
                            os << '?';
                          else
                            os << factors[f].size;
                          if (factors[f].kind == FactorKind::Reduction)
                            os << ' '
                               << stringifyReductionKind(factors[f].reduction);
                          else if (factors[f].kind == FactorKind::Unsplittable)
                            os << " whole";
                          if (factors[f].indexesPartOfDim)
                            os << " part";
                        });
  os << '}';
  bool anyInitOnly = llvm::is_contained(operandIsInitOnly, true);
  if (anyInitOnly) {
    os << " init-only operands [";
    bool first = true;
    for (auto [i, initOnly] : llvm::enumerate(operandIsInitOnly))
      if (initOnly) {
        os << (first ? "" : ", ") << i;
        first = false;
      }
    os << ']';
  }
  if (partialPolicy == PartialPolicy::Additive)
    os << " partial: additive";
  else if (partialPolicy == PartialPolicy::Multilinear) {
    os << " partial: multilinear";
    // Name the operands only when some tensor operand is not among them.
    bool allLinear = true;
    for (auto [i, dims] : llvm::enumerate(operandDims))
      allLinear &= isLinearIn(i) || dims.empty();
    if (!allLinear) {
      os << " in";
      bool first = true;
      for (unsigned i = 0; i < operandDims.size(); ++i)
        if (isLinearIn(i)) {
          os << (first ? " " : ", ") << i;
          first = false;
        }
    }
  }
  bool hasReduction = llvm::any_of(factors, [](const Factor &factor) {
    return factor.kind == FactorKind::Reduction;
  });
  if (hasReduction && paddedReduction == PaddedReduction::MaskOperands)
    os << " padding: masked operands";
  else if (hasReduction && paddedReduction == PaddedReduction::ByLocalForm)
    os << " padding: local form";
  if (!rangedDims.empty()) {
    os << (writesRangedDims ? " writes" : " reads");
    llvm::interleave(
        rangedDims, os,
        [&](const RangedDim &range) {
          os << " operand " << range.operand << " dim " << range.dim << " ["
             << range.offset << ", " << range.offset + range.size << ")";
        },
        ",");
  }
}

Operation *dist::rewriteInPlace(Operation *op, ValueRange localOperands,
                                TypeRange localResultTypes) {
  op->setOperands(localOperands);
  for (auto [result, type] : llvm::zip(op->getResults(), localResultTypes))
    result.setType(type);
  return op;
}

Value dist::buildBlockOffset(OpBuilder &builder, Location loc,
                             FlatSymbolRefAttr mesh, ArrayRef<StringAttr> axes,
                             int64_t blockSize) {
  Value block = ProcessIndexOp::create(
      builder, loc, mesh.getValue(),
      builder.getArrayAttr(SmallVector<Attribute>(axes.begin(), axes.end())));
  Value size = arith::ConstantIndexOp::create(builder, loc, blockSize);
  return arith::MulIOp::create(builder, loc, block, size);
}

LocalLookup dist::buildLocalLookup(OpBuilder &builder, Location loc,
                                   Value indices, FlatSymbolRefAttr mesh,
                                   ArrayRef<StringAttr> axes,
                                   int64_t localRows) {
  auto indicesType = cast<RankedTensorType>(indices.getType());
  Type element = indicesType.getElementType();
  // A splat of an index, in the ids' element type.
  auto splat = [&](Value index) -> Value {
    Value scalar =
        element.isIndex()
            ? index
            : arith::IndexCastOp::create(builder, loc, element, index);
    return tensor::SplatOp::create(builder, loc, indicesType, scalar);
  };
  Value offset = buildBlockOffset(builder, loc, mesh, axes, localRows);
  Value local = arith::SubIOp::create(builder, loc, indices, splat(offset));
  // Unsigned compare: ids below the offset wrap around and fail too.
  Value inBlock = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::ult, local,
      splat(arith::ConstantIndexOp::create(builder, loc, localRows)));
  Value safe = arith::SelectOp::create(
      builder, loc, inBlock, local,
      splat(arith::ConstantIndexOp::create(builder, loc, 0)));
  return {safe, inBlock};
}

TypedAttr dist::getReductionIdentity(Type type, ReductionKind kind) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    switch (kind) {
    case ReductionKind::max:
      return FloatAttr::get(type, APFloat::getInf(semantics, /*Negative=*/true));
    case ReductionKind::min:
      return FloatAttr::get(type, APFloat::getInf(semantics));
    case ReductionKind::prod:
      return FloatAttr::get(type, 1.0);
    default:
      return FloatAttr::get(type, 0.0);
    }
  }
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  bool isBool = width == 1;
  switch (kind) {
  case ReductionKind::max:
    return IntegerAttr::get(type, isBool ? APInt(1, 0) : APInt::getSignedMinValue(width));
  case ReductionKind::min:
    return IntegerAttr::get(type, isBool ? APInt(1, 1) : APInt::getSignedMaxValue(width));
  case ReductionKind::prod:
    return IntegerAttr::get(type, 1);
  default:
    return IntegerAttr::get(type, 0);
  }
}

Value dist::buildRowsInside(OpBuilder &builder, Location loc,
                            FlatSymbolRefAttr mesh, ArrayRef<StringAttr> axes,
                            int64_t blockSize, int64_t globalSize) {
  Value offset = buildBlockOffset(builder, loc, mesh, axes, blockSize);
  Value end = arith::ConstantIndexOp::create(builder, loc, globalSize);
  return arith::SubIOp::create(builder, loc, end, offset);
}

Value dist::maskPadding(OpBuilder &builder, Location loc, Value local,
                        int64_t dim, FlatSymbolRefAttr mesh,
                        ArrayRef<StringAttr> axes, int64_t globalSize,
                        TypedAttr identity) {
  auto type = cast<RankedTensorType>(local.getType());
  int64_t blockSize = type.getDimSize(dim);
  auto maskType = RankedTensorType::get(type.getShape(), builder.getI1Type());
  Value rowsInside =
      buildRowsInside(builder, loc, mesh, axes, blockSize, globalSize);
  Value mask = tensor::GenerateOp::create(
      builder, loc, maskType, ValueRange{},
      [&](OpBuilder &b, Location nested, ValueRange indices) {
        Value inside = arith::CmpIOp::create(
            b, nested, arith::CmpIPredicate::slt, indices[dim], rowsInside);
        tensor::YieldOp::create(b, nested, inside);
      });
  Value fill = arith::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(type, cast<Attribute>(identity)));
  return arith::SelectOp::create(builder, loc, mask, local, fill);
}

bool dist::computesSafelyOnAnyValues(Operation *op) {
  WalkResult walk = op->walk([&](Operation *nested) {
    if (auto speculatable = dyn_cast<ConditionallySpeculatable>(nested);
        speculatable &&
        speculatable.getSpeculatability() == Speculation::NotSpeculatable)
      return WalkResult::interrupt();
    // Integer remainders trap on a zero divisor too, but upstream marks
    // them speculatable.
    if (isa<arith::RemSIOp, arith::RemUIOp>(nested))
      return WalkResult::interrupt();
    if (nested != op)
      for (Value operand : nested->getOperands())
        if (isa<RankedTensorType>(operand.getType()) &&
            !op->isAncestor(operand.getParentRegion()->getParentOp()))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

Value dist::buildShift(OpBuilder &builder, Location loc, Value input,
                       FlatSymbolRefAttr mesh, ArrayAttr axes,
                       int64_t groupSize, int64_t by, uint64_t comm,
                       OriginAttr origin) {
  SmallVector<int64_t> pairs;
  for (int64_t i = 0; i < groupSize; ++i)
    if (i + by >= 0 && i + by < groupSize)
      llvm::append_values(pairs, i, i + by);
  auto type = cast<RankedTensorType>(input.getType());
  if (pairs.empty()) {
    Type element = type.getElementType();
    Attribute zero = isa<FloatType>(element)
                         ? Attribute(builder.getFloatAttr(element, 0.0))
                         : Attribute(builder.getIntegerAttr(element, 0));
    return arith::ConstantOp::create(builder, loc,
                                     DenseElementsAttr::get(type, zero));
  }
  return PermuteOp::create(builder, loc, type, /*token=*/Type(), input,
                           mesh.getValue(), axes, comm, origin,
                           builder.getDenseI64ArrayAttr(pairs))
      .getResult();
}

Value dist::buildDimSlice(OpBuilder &builder, Location loc, Value value,
                          int64_t dim, OpFoldResult offset, int64_t count) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = count;
  SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0)),
      strides(type.getRank(), builder.getIndexAttr(1)), sizes;
  offsets[dim] = offset;
  for (int64_t extent : shape)
    sizes.push_back(builder.getIndexAttr(extent));
  return tensor::ExtractSliceOp::create(builder, loc, type.clone(shape), value,
                                        offsets, sizes, strides);
}
