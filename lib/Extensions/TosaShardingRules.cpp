//===- TosaShardingRules.cpp - Rules for TOSA ops -------------------------===//
//
// TOSA ops on tensors: elementwise ops with TOSA's broadcasting (a dim of size
// 1 against a larger one is broadcast, so it has no factor), tosa.matmul
// (batched, with a sum factor over the shared dim), the reductions (which
// keep the reduced dim with size 1), tosa.transpose and tosa.reshape (when it
// only merges or splits dims); and for convolutional models, the
// convolutions and the poolings (batch and channels parallel, windows whole),
// and the layout
// ops tosa.concat, tosa.pad, tosa.slice, tosa.tile, tosa.argmax and
// tosa.table (dims they cut, pad, join, repeat or reduce stay whole); and
// tosa.gather, vocabulary-parallel like tensor.gather. Every
// other TOSA op has no rule: it computes replicated values.
//
//===----------------------------------------------------------------------===//

#include "dist/Extensions/ShardingRules.h"
#include "dist/Interfaces/ShardingRuleInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::dist;

/// True if every tensor operand and result of `op` is ranked with a static
/// shape: the rules below describe only those (TOSA also allows unranked
/// and dynamic tensors; such ops have no rule and compute replicated values).
static bool hasStaticRankedTensors(Operation *op) {
  return llvm::all_of(
      llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()),
      [](Type type) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        return tensor ? tensor.hasStaticShape() : !isa<TensorType>(type);
      });
}

/// An empty rule (see ShardingRule::getEmpty) in which every dim of every
/// tensor operand has no factor: the rules below fill in the dims that have
/// one. (Zero points, shifts, tables and other side operands stay whole.)
static ShardingRule getRuleWithWholeOperands(Operation *op) {
  ShardingRule rule = ShardingRule::getEmpty(op);
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (auto type = dyn_cast<RankedTensorType>(operand.getType()))
      rule.operandDims[i].assign(type.getRank(), ShardingRule::kNoFactor);
  return rule;
}

/// The rule of an op whose one result is computed elementwise from operands
/// of the result's rank (a dim of size 1 where the result's is larger is
/// broadcast: no factor) or of one element (zero points, shifts).
static FailureOr<ShardingRule> getBroadcastingElementwiseRule(Operation *op) {
  if (op->getNumResults() != 1)
    return failure();
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  ShardingRule rule = ShardingRule::getEmpty(op);
  for (int64_t size : result.getShape())
    rule.addFactor(size, FactorKind::Parallel);
  rule.resultDims[0] = llvm::to_vector(llvm::seq<int64_t>(0, result.getRank()));
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type)
      continue;
    if (type.getRank() != result.getRank()) {
      if (type.getNumElements() != 1)
        return failure();
      rule.operandDims[i].assign(type.getRank(), ShardingRule::kNoFactor);
      continue;
    }
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      if (size == result.getDimSize(d))
        rule.operandDims[i].push_back(d);
      else if (size == 1)
        rule.operandDims[i].push_back(ShardingRule::kNoFactor);
      else
        return failure();
    }
  }
  return rule;
}

/// True if `value` is a constant whose elements are all zero (a zero point).
static bool isZeroConstant(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  if (isa<FloatType>(attr.getElementType()))
    return llvm::all_of(attr.getValues<APFloat>(),
                        [](const APFloat &v) { return v.isZero(); });
  if (isa<IntegerType>(attr.getElementType()))
    return llvm::all_of(attr.getValues<APInt>(),
                        [](const APInt &v) { return v.isZero(); });
  return false;
}

/// Marks the operands at `linear` as those the result is linear in.
static void setLinearIn(ShardingRule &rule, Operation *op,
                        ArrayRef<unsigned> linear) {
  rule.partialPolicy = PartialPolicy::Multilinear;
  rule.operandIsLinear.assign(op->getNumOperands(), false);
  for (unsigned i : linear)
    rule.operandIsLinear[i] = true;
}

/// The values of a `tosa.const_shape` operand, or nothing if it is not one.
static std::optional<SmallVector<int64_t>> getConstShape(Value shape) {
  auto constant = shape.getDefiningOp<tosa::ConstShapeOp>();
  if (!constant)
    return std::nullopt;
  return llvm::to_vector(constant.getValues().getValues<int64_t>());
}

/// A rule for an op whose tensor operands `dataOperands` and result 0 have
/// one rank and share a factor per dim, except the dims in `whole` (a window,
/// a padded, cut, joined or repeated dim): those stay whole. Other operands
/// get no dims.
static FailureOr<ShardingRule>
getDimwiseRule(Operation *op, ArrayRef<unsigned> dataOperands,
               const llvm::SmallBitVector &whole) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  ShardingRule rule = getRuleWithWholeOperands(op);
  SmallVector<int64_t> dims;
  // A whole dim has no factor: its sizes may differ between the operands
  // and the result (a window, a pad).
  for (auto [d, size] : llvm::enumerate(result.getShape()))
    dims.push_back(whole.test(d) ? ShardingRule::kNoFactor
                                 : rule.addFactor(size, FactorKind::Parallel));
  for (unsigned i : dataOperands) {
    auto type = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
    if (!type || type.getRank() != result.getRank())
      return failure();
    for (int64_t d = 0; d < result.getRank(); ++d)
      if (!whole.test(d) && type.getDimSize(d) != result.getDimSize(d))
        return failure();
    rule.operandDims[i] = dims;
  }
  rule.resultDims[0] = dims;
  return rule;
}

/// NHWC windows (convolutions, poolings): H and W are whole.
static llvm::SmallBitVector windowDims() {
  llvm::SmallBitVector whole(4);
  whole.set(1);
  whole.set(2);
  return whole;
}

/// The windows of a convolution or pooling along its spatial dims (1 ..
/// `kernel.size()` of its input and result).
struct WindowGeometry {
  SmallVector<int64_t> kernel, padLo, padHi, stride, dilation;

  /// From the op's attributes; `kernel` is given (the weight's dims for a
  /// convolution, the `kernel` attribute for a pooling).
  static WindowGeometry get(ArrayRef<int64_t> kernel, ArrayRef<int64_t> pad,
                            ArrayRef<int64_t> stride,
                            ArrayRef<int64_t> dilation) {
    WindowGeometry g;
    g.kernel.assign(kernel.begin(), kernel.end());
    for (size_t s = 0; s < kernel.size(); ++s) {
      g.padLo.push_back(pad[2 * s]);
      g.padHi.push_back(pad[2 * s + 1]);
      g.stride.push_back(stride[s]);
      g.dilation.push_back(dilation.empty() ? 1 : dilation[s]);
    }
    return g;
  }
};

/// Gives each spatial dim of a window op with stride and dilation 1 a
/// factor when its result rows are windows that a halo or an overlap can
/// bring to every block (docs/Design.md, "Halos"): padded to keep its size
/// ("same", `zeroPadding` only: the op pads with zeros, which the ghost rows
/// of a halo [lo, hi] are), or unpadded (the input holds an overlap of the
/// window - 1). Other spatial dims stay whole.
static void addWindowFactors(ShardingRule &rule, RankedTensorType input,
                             RankedTensorType output,
                             const WindowGeometry &g, bool zeroPadding) {
  for (size_t s = 0; s < g.kernel.size(); ++s) {
    int64_t d = s + 1, in = input.getDimSize(d), out = output.getDimSize(d);
    int64_t lo = g.padLo[s], hi = g.padHi[s], window = g.kernel[s];
    if (g.stride[s] != 1 || g.dilation[s] != 1)
      continue;
    meshmath::Halo halo;
    if (lo == 0 && hi == 0 && in == out + window - 1)
      halo.overlap = window - 1;
    else if (zeroPadding && lo + hi == window - 1 && in == out)
      halo = {lo, hi, 0};
    else
      continue;
    int64_t factor = rule.addFactor(out, FactorKind::Parallel);
    rule.operandDims[0][d] = rule.resultDims[0][d] = factor;
    if (!halo.empty())
      rule.setOperandHalo(0, d, halo);
  }
}

/// The local form of a window op whose split spatial dims got their halo
/// rows from the exchange: those dims are not padded again (a dim whose
/// local input is the local output plus the window - 1 while it pads is
/// such a dim; whole, it would be as long as its output).
template <typename OpTy>
static Operation *buildLocalWindowOp(OpTy op, ValueRange operands,
                                     TypeRange resultTypes,
                                     const WindowGeometry &g) {
  auto input = cast<RankedTensorType>(operands[0].getType());
  auto output = cast<RankedTensorType>(resultTypes[0]);
  SmallVector<int64_t> pad(op.getPad());
  for (size_t s = 0; s < g.kernel.size(); ++s)
    if (g.stride[s] == 1 && g.dilation[s] == 1 &&
        (g.padLo[s] || g.padHi[s]) &&
        input.getDimSize(s + 1) == output.getDimSize(s + 1) + g.kernel[s] - 1)
      pad[2 * s] = pad[2 * s + 1] = 0;
  Operation *local = rewriteInPlace(op, operands, resultTypes);
  cast<OpTy>(local).setPad(pad);
  return local;
}

namespace {
/// The base of the TOSA models: ops whose tensors are all ranked and static
/// get `Model::getStaticRule`, the others no rule.
template <typename Model, typename OpTy>
struct TosaRule : public ShardingRuleOpInterface::ExternalModel<Model, OpTy> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (!hasStaticRankedTensors(op))
      return failure();
    return static_cast<const Model *>(this)->getStaticRule(op);
  }
};

/// Elementwise TOSA ops (TosaElementwiseOperator, tosa.mul, tosa.cast).
template <typename OpTy>
struct TosaElementwiseShardingRule
    : public TosaRule<TosaElementwiseShardingRule<OpTy>, OpTy> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    FailureOr<ShardingRule> rule = getBroadcastingElementwiseRule(op);
    if (failed(rule))
      return failure();
    // Sums pass partial sums through; a product and a negation are linear in
    // each input (a float negation's zero points are zero; an integer
    // product's shift would round each summand on its own).
    if (isa<tosa::AddOp, tosa::SubOp>(op)) {
      rule->partialPolicy = PartialPolicy::Additive;
    } else if (auto mul = dyn_cast<tosa::MulOp>(op)) {
      if (mul.getInput1() != mul.getInput2() && isZeroConstant(mul.getShift()))
        setLinearIn(*rule, op, {0, 1});
    } else if (auto negate = dyn_cast<tosa::NegateOp>(op)) {
      if (isZeroConstant(negate.getInput1Zp()) &&
          isZeroConstant(negate.getOutputZp()))
        setLinearIn(*rule, op, {0});
    }
    // An integer division traps on the zero a padded divisor may hold.
    if (isa<tosa::IntDivOp>(op))
      rule->padsSafely = false;
    return rule;
  }
};

/// tosa.matmul: [n, h, c] x [n, c, w] -> [n, h, w], c a sum factor.
struct TosaMatMulShardingRule
    : public TosaRule<TosaMatMulShardingRule, tosa::MatMulOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto matmul = cast<tosa::MatMulOp>(op);
    auto a = cast<RankedTensorType>(matmul.getA().getType());
    auto b = cast<RankedTensorType>(matmul.getB().getType());
    ShardingRule rule = getRuleWithWholeOperands(op);
    int64_t n = rule.addFactor(a.getDimSize(0), FactorKind::Parallel);
    int64_t h = rule.addFactor(a.getDimSize(1), FactorKind::Parallel);
    int64_t c = rule.addFactor(a.getDimSize(2), FactorKind::Reduction);
    int64_t w = rule.addFactor(b.getDimSize(2), FactorKind::Parallel);
    rule.operandDims[0] = {n, h, c};
    rule.operandDims[1] = {n, c, w};
    rule.resultDims[0] = {n, h, w};
    // (a - a_zp)(b - b_zp) is linear in a and b only without zero points;
    // then zeros in the padding of a split c add nothing.
    if (isZeroConstant(matmul.getAZp()) && isZeroConstant(matmul.getBZp())) {
      setLinearIn(rule, op, {0, 1});
      rule.paddedReduction = PaddedReduction::MaskOperands;
    }
    return rule;
  }
};

/// The reductions keep the reduced dim (size 1, no factor); the input's dim
/// there is a reduction factor with the op's combiner, or whole when the
/// combiner has no collective (reduce_all / reduce_any on i1).
template <typename OpTy>
struct TosaReduceShardingRule
    : public TosaRule<TosaReduceShardingRule<OpTy>, OpTy> {
  static std::optional<ReductionKind> getCombiner() {
    if constexpr (std::is_same_v<OpTy, tosa::ReduceSumOp>)
      return ReductionKind::sum;
    if constexpr (std::is_same_v<OpTy, tosa::ReduceMaxOp>)
      return ReductionKind::max;
    if constexpr (std::is_same_v<OpTy, tosa::ReduceMinOp>)
      return ReductionKind::min;
    if constexpr (std::is_same_v<OpTy, tosa::ReduceProductOp>)
      return ReductionKind::prod;
    return std::nullopt;
  }

  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto reduce = cast<OpTy>(op);
    auto input = cast<RankedTensorType>(reduce.getInput().getType());
    int64_t axis = reduce.getAxis();
    ShardingRule rule = ShardingRule::getEmpty(op);
    for (auto [d, size] : llvm::enumerate(input.getShape())) {
      if ((int64_t)d != axis) {
        int64_t factor = rule.addFactor(size, FactorKind::Parallel);
        rule.operandDims[0].push_back(factor);
        rule.resultDims[0].push_back(factor);
        continue;
      }
      std::optional<ReductionKind> combiner = getCombiner();
      int64_t factor =
          combiner ? rule.addFactor(size, FactorKind::Reduction, *combiner)
                   : rule.addFactor(size, FactorKind::Unsplittable);
      rule.operandDims[0].push_back(factor);
      rule.resultDims[0].push_back(ShardingRule::kNoFactor);
    }
    if (getCombiner() == ReductionKind::sum)
      setLinearIn(rule, op, {0});
    // The combiner's identity in the padding changes nothing.
    rule.paddedReduction = PaddedReduction::MaskOperands;
    return rule;
  }
};

/// tosa.transpose: result dim j is input dim perms[j].
struct TosaTransposeShardingRule
    : public TosaRule<TosaTransposeShardingRule, tosa::TransposeOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto transpose = cast<tosa::TransposeOp>(op);
    auto input = cast<RankedTensorType>(transpose.getInput1().getType());
    ArrayRef<int32_t> perms = transpose.getPerms();
    if ((int64_t)perms.size() != input.getRank())
      return failure();
    ShardingRule rule = ShardingRule::getEmpty(op);
    for (int64_t size : input.getShape())
      rule.operandDims[0].push_back(rule.addFactor(size, FactorKind::Parallel));
    for (int32_t p : perms)
      rule.resultDims[0].push_back(p);
    setLinearIn(rule, op, {0});
    return rule;
  }
};

/// tosa.reshape that merges or splits dims (as tensor.collapse_shape /
/// tensor.expand_shape); other reshapes have no rule.
struct TosaReshapeShardingRule
    : public TosaRule<TosaReshapeShardingRule, tosa::ReshapeOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto reshape = cast<tosa::ReshapeOp>(op);
    auto source = cast<RankedTensorType>(reshape.getInput1().getType());
    auto result = cast<RankedTensorType>(reshape.getType());
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForReshape(source, result);
    if (!groups)
      return failure();
    bool sourceIsMerged = source.getRank() < result.getRank();
    ShardingRule rule = ShardingRule::getReshape(
        op, sourceIsMerged ? result : source, *groups, sourceIsMerged);
    // The shape operand is a !tosa.shape, not a tensor: no dims.
    return rule;
  }

  /// The target shape is an operand: give the local op the local shape.
  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &builder,
                                      IRMapping &, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &) const {
    auto type = cast<RankedTensorType>(resultTypes[0]);
    ImplicitLocOpBuilder b(op->getLoc(), builder);
    Value shape = tosa::ConstShapeOp::create(
        b, tosa::shapeType::get(b.getContext(), type.getRank()),
        b.getIndexTensorAttr(type.getShape()));
    return tosa::ReshapeOp::create(b, type, operands[0], shape).getOperation();
  }
};

/// Convolutions with a bias per output channel: tosa.conv2d, tosa.conv3d and
/// tosa.transpose_conv2d, [n, spatial..., ic] * [oc, kernel..., ic] + [oc] ->
/// [n, spatial'..., oc]. Batch and output channels are parallel; the windows
/// are whole, and so is the input channel (its sum is inside the op, after
/// which the bias is added: a split would add the bias once per rank).
template <typename ConvOp>
struct TosaConvShardingRule
    : public TosaRule<TosaConvShardingRule<ConvOp>, ConvOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto conv = cast<ConvOp>(op);
    auto input = cast<RankedTensorType>(conv.getInput().getType());
    auto output = cast<RankedTensorType>(conv.getType());
    auto bias = cast<RankedTensorType>(conv.getBias().getType());
    int64_t last = input.getRank() - 1;
    ShardingRule rule = getRuleWithWholeOperands(op);
    int64_t n = rule.addFactor(input.getDimSize(0), FactorKind::Parallel);
    int64_t oc = rule.addFactor(output.getDimSize(last), FactorKind::Parallel);
    int64_t ic =
        rule.addFactor(input.getDimSize(last), FactorKind::Unsplittable);
    // The weight's kernel dims have no factor; the spatial dims have one
    // where a halo brings each block its window.
    rule.resultDims[0].assign(output.getRank(), ShardingRule::kNoFactor);
    rule.operandDims[0].front() = rule.resultDims[0].front() = n;
    rule.operandDims[1].front() = rule.resultDims[0].back() = oc;
    rule.operandDims[0].back() = rule.operandDims[1].back() = ic;
    if (std::optional<WindowGeometry> g = getGeometry(conv))
      addWindowFactors(rule, input, output, *g, /*zeroPadding=*/true);
    // A bias of one element is broadcast over the channels.
    if (bias.getDimSize(0) == output.getDimSize(last))
      rule.operandDims[2] = {oc};
    return rule;
  }
  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &, IRMapping &,
                                      ValueRange operands, TypeRange types,
                                      const FactorSplits &) const {
    if constexpr (!std::is_same_v<ConvOp, tosa::TransposeConv2DOp>) {
      auto conv = cast<ConvOp>(op);
      if (std::optional<WindowGeometry> g = getGeometry(conv))
        return buildLocalWindowOp(conv, operands, types, *g);
    }
    return rewriteInPlace(op, operands, types);
  }
  /// The windows of a float conv2d or conv3d (whose padding is zeros; a
  /// quantized one pads with its zero point); none for transpose_conv2d.
  static std::optional<WindowGeometry> getGeometry(ConvOp conv) {
    if constexpr (std::is_same_v<ConvOp, tosa::TransposeConv2DOp>) {
      return std::nullopt;
    } else {
      auto input = cast<RankedTensorType>(conv.getInput().getType());
      auto weight = cast<RankedTensorType>(conv.getWeight().getType());
      if (!isa<FloatType>(input.getElementType()))
        return std::nullopt;
      ArrayRef<int64_t> kernel =
          weight.getShape().drop_front().drop_back();
      return WindowGeometry::get(kernel, conv.getPad(), conv.getStride(),
                                 conv.getDilation());
    }
  }
};

/// tosa.depthwise_conv2d: [n, h, w, c] * [kh, kw, c, m] + [c * m] ->
/// [n, oh, ow, c * m]. Batch and input channels are parallel; a split of c
/// splits the output channels (c major, m minor) and the bias the same way;
/// the multiplier m and the windows are whole.
struct TosaDepthwiseConvShardingRule
    : public TosaRule<TosaDepthwiseConvShardingRule, tosa::DepthwiseConv2DOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto conv = cast<tosa::DepthwiseConv2DOp>(op);
    auto input = cast<RankedTensorType>(conv.getInput().getType());
    auto output = cast<RankedTensorType>(conv.getType());
    auto bias = cast<RankedTensorType>(conv.getBias().getType());
    ShardingRule rule = getRuleWithWholeOperands(op);
    const int64_t none = ShardingRule::kNoFactor;
    int64_t n = rule.addFactor(input.getDimSize(0), FactorKind::Parallel);
    int64_t c = rule.addFactor(input.getDimSize(3), FactorKind::Parallel);
    rule.factors[c].indexesPartOfDim = output.getDimSize(3) != input.getDimSize(3);
    rule.operandDims[0] = {n, none, none, c};
    rule.operandDims[1] = {none, none, c, none};
    if (bias.getDimSize(0) == output.getDimSize(3))
      rule.operandDims[2] = {c};
    rule.resultDims[0] = {n, none, none, c};
    if (std::optional<WindowGeometry> g = getGeometry(conv))
      addWindowFactors(rule, input, output, *g, /*zeroPadding=*/true);
    return rule;
  }
  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &, IRMapping &,
                                      ValueRange operands, TypeRange types,
                                      const FactorSplits &) const {
    auto conv = cast<tosa::DepthwiseConv2DOp>(op);
    if (std::optional<WindowGeometry> g = getGeometry(conv))
      return buildLocalWindowOp(conv, operands, types, *g);
    return rewriteInPlace(op, operands, types);
  }
  static std::optional<WindowGeometry>
  getGeometry(tosa::DepthwiseConv2DOp conv) {
    auto input = cast<RankedTensorType>(conv.getInput().getType());
    auto weight = cast<RankedTensorType>(conv.getWeight().getType());
    if (!isa<FloatType>(input.getElementType()))
      return std::nullopt;
    return WindowGeometry::get(weight.getShape().take_front(2), conv.getPad(),
                               conv.getStride(), conv.getDilation());
  }
};

/// Poolings: batch and channels parallel; an unpadded window of stride 1
/// along a spatial dim splits it with an overlap (a padded one stays whole:
/// max pads with -inf, and avg leaves padding out of its count, which zero
/// ghost rows are not).
template <typename OpTy>
struct TosaPoolShardingRule
    : public TosaRule<TosaPoolShardingRule<OpTy>, OpTy> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    FailureOr<ShardingRule> rule = getDimwiseRule(op, {0}, windowDims());
    if (succeeded(rule))
      addWindowFactors(*rule, cast<RankedTensorType>(op->getOperand(0).getType()),
                       cast<RankedTensorType>(op->getResult(0).getType()),
                       getGeometry(cast<OpTy>(op)), /*zeroPadding=*/false);
    return rule;
  }
  static WindowGeometry getGeometry(OpTy pool) {
    return WindowGeometry::get(pool.getKernel(), pool.getPad(),
                               pool.getStride(), {});
  }
};

/// tosa.concat: the joined dim is whole; the others are shared by every
/// input.
struct TosaConcatShardingRule
    : public TosaRule<TosaConcatShardingRule, tosa::ConcatOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto concat = cast<tosa::ConcatOp>(op);
    auto result = cast<RankedTensorType>(concat.getType());
    llvm::SmallBitVector whole(result.getRank());
    whole.set(concat.getAxis());
    SmallVector<unsigned> inputs =
        llvm::to_vector(llvm::seq<unsigned>(0, op->getNumOperands()));
    FailureOr<ShardingRule> rule = getDimwiseRule(op, inputs, whole);
    if (succeeded(rule))
      rule->partialPolicy = PartialPolicy::Additive; // sums of pieces join
    return rule;
  }
};

/// tosa.pad and tosa.tile: the dims they pad or repeat are whole (their
/// `!tosa.shape` operand must be a tosa.const_shape).
template <typename OpTy>
struct TosaPadTileShardingRule
    : public TosaRule<TosaPadTileShardingRule<OpTy>, OpTy> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    llvm::SmallBitVector whole(result.getRank());
    if constexpr (std::is_same_v<OpTy, tosa::PadOp>) {
      std::optional<SmallVector<int64_t>> padding =
          getConstShape(cast<tosa::PadOp>(op).getPadding());
      if (!padding || (int64_t)padding->size() != 2 * result.getRank())
        return failure();
      for (int64_t d = 0; d < result.getRank(); ++d)
        if ((*padding)[2 * d] != 0 || (*padding)[2 * d + 1] != 0)
          whole.set(d);
    } else {
      std::optional<SmallVector<int64_t>> multiples =
          getConstShape(cast<tosa::TileOp>(op).getMultiples());
      if (!multiples || (int64_t)multiples->size() != result.getRank())
        return failure();
      for (int64_t d = 0; d < result.getRank(); ++d)
        if ((*multiples)[d] != 1)
          whole.set(d);
    }
    return getDimwiseRule(op, {0}, whole);
  }
};

/// tosa.slice: the dims it cuts are whole; the local op gets the local size.
struct TosaSliceShardingRule
    : public TosaRule<TosaSliceShardingRule, tosa::SliceOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto slice = cast<tosa::SliceOp>(op);
    auto input = cast<RankedTensorType>(slice.getInput1().getType());
    auto result = cast<RankedTensorType>(slice.getType());
    std::optional<SmallVector<int64_t>> start = getConstShape(slice.getStart());
    if (!start || (int64_t)start->size() != input.getRank())
      return failure();
    llvm::SmallBitVector whole(result.getRank());
    for (int64_t d = 0; d < result.getRank(); ++d)
      if ((*start)[d] != 0 || result.getDimSize(d) != input.getDimSize(d))
        whole.set(d);
    return getDimwiseRule(op, {0}, whole);
  }

  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &builder,
                                      IRMapping &, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &) const {
    auto type = cast<RankedTensorType>(resultTypes[0]);
    ImplicitLocOpBuilder b(op->getLoc(), builder);
    Value size = tosa::ConstShapeOp::create(
        b, tosa::shapeType::get(b.getContext(), type.getRank()),
        b.getIndexTensorAttr(type.getShape()));
    return tosa::SliceOp::create(b, type, operands[0], operands[1], size)
        .getOperation();
  }
};

/// tosa.argmax: the reduced dim (dropped from the result) is whole.
struct TosaArgMaxShardingRule
    : public TosaRule<TosaArgMaxShardingRule, tosa::ArgMaxOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto argmax = cast<tosa::ArgMaxOp>(op);
    auto input = cast<RankedTensorType>(argmax.getInput().getType());
    ShardingRule rule = ShardingRule::getEmpty(op);
    for (auto [d, size] : llvm::enumerate(input.getShape())) {
      if ((int64_t)d == (int64_t)argmax.getAxis()) {
        rule.operandDims[0].push_back(
            rule.addFactor(size, FactorKind::Unsplittable));
        continue;
      }
      int64_t factor = rule.addFactor(size, FactorKind::Parallel);
      rule.operandDims[0].push_back(factor);
      rule.resultDims[0].push_back(factor);
    }
    return rule;
  }
};

/// tosa.gather: values [n, k, c] at indices [n, w] -> [n, w, c], linear in
/// the values. The looked-up dim k is a sum "reduction" factor, as for
/// tensor.gather: with the table split by rows, each rank looks up the ids in
/// its block (shifted to local rows) and yields zeros for the others, so the
/// result is a partial sum (a vocabulary-parallel embedding).
struct TosaGatherShardingRule
    : public TosaRule<TosaGatherShardingRule, tosa::GatherOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto gather = cast<tosa::GatherOp>(op);
    auto values = cast<RankedTensorType>(gather.getValues().getType());
    auto indices = cast<RankedTensorType>(gather.getIndices().getType());
    ShardingRule rule = ShardingRule::getEmpty(op);
    int64_t n = rule.addFactor(values.getDimSize(0), FactorKind::Parallel);
    int64_t w = rule.addFactor(indices.getDimSize(1), FactorKind::Parallel);
    int64_t k = rule.addFactor(values.getDimSize(1), FactorKind::Reduction,
                               ReductionKind::sum);
    int64_t c = rule.addFactor(values.getDimSize(2), FactorKind::Parallel);
    rule.operandDims[0] = {n, k, c};
    rule.operandDims[1] = {n, w};
    rule.resultDims[0] = {n, w, c};
    setLinearIn(rule, op, {0});
    // Ids never name a padded row.
    rule.paddedReduction = PaddedReduction::ByLocalForm;
    return rule;
  }

  FailureOr<Operation *> buildLocalOp(Operation *op, OpBuilder &builder,
                                      IRMapping &, ValueRange operands,
                                      TypeRange resultTypes,
                                      const FactorSplits &splits) const {
    auto resultType = cast<RankedTensorType>(resultTypes[0]);
    Location loc = op->getLoc();
    const int64_t k = 2; // the factor of the looked-up dim
    // Padded rows of the ids (factors n and w) hold anything: they look up
    // row 0.
    SmallVector<Value> localOperands(operands);
    for (auto [dim, factor] : llvm::enumerate(ArrayRef<int64_t>{0, 1}))
      if (splits.isPadded(factor))
        localOperands[1] = maskPadding(
            builder, loc, localOperands[1], dim, splits.mesh,
            splits.axes[factor], splits.factors[factor].size,
            builder.getZeroAttr(
                cast<RankedTensorType>(operands[1].getType()).getElementType()));
    operands = localOperands;
    if (!splits.isSplit(k))
      return tosa::GatherOp::create(builder, loc, resultType, operands[0],
                                    operands[1])
          .getOperation();
    auto values = cast<RankedTensorType>(operands[0].getType());
    auto indicesType = cast<RankedTensorType>(operands[1].getType());
    LocalLookup lookup =
        buildLocalLookup(builder, loc, operands[1], splits.mesh,
                         splits.axes[k], values.getDimSize(1));
    Value inRange = lookup.inBlock, safe = lookup.safeIndices;
    Value rows =
        tosa::GatherOp::create(builder, loc, resultType, operands[0], safe);
    // Zero the rows of ids outside this rank's block: the mask [n, w, 1] is
    // broadcast over the channels.
    auto maskType = RankedTensorType::get(
        {indicesType.getDimSize(0), indicesType.getDimSize(1), 1},
        builder.getI1Type());
    Value mask = tensor::ExpandShapeOp::create(
        builder, loc, maskType, inRange,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}});
    auto zeroType = RankedTensorType::get({1, 1, 1}, resultType.getElementType());
    Value zero = tosa::ConstOp::create(
        builder, loc, zeroType,
        DenseElementsAttr::get(zeroType,
                               builder.getZeroAttr(resultType.getElementType())));
    return tosa::SelectOp::create(builder, loc, resultType, mask, rows, zero)
        .getOperation();
  }
};

/// tosa.rescale: elementwise; per channel, its multiplier and shift (one per
/// element of the last dim) are split with that dim.
struct TosaRescaleShardingRule
    : public TosaRule<TosaRescaleShardingRule, tosa::RescaleOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto rescale = cast<tosa::RescaleOp>(op);
    auto input = cast<RankedTensorType>(rescale.getInput().getType());
    if (input.getRank() == 0)
      return failure();
    ShardingRule rule = getRuleWithWholeOperands(op);
    rule.operandDims[0].clear();
    for (int64_t size : input.getShape())
      rule.operandDims[0].push_back(rule.addFactor(size, FactorKind::Parallel));
    rule.resultDims[0] = rule.operandDims[0];
    int64_t channel = rule.operandDims[0].back();
    if (rescale.getPerChannel()) {
      rule.operandDims[1] = {channel}; // multiplier
      rule.operandDims[2] = {channel}; // shift
    }
    return rule;
  }
};

/// tosa.table: elementwise lookups in a table every rank holds whole.
struct TosaTableShardingRule
    : public TosaRule<TosaTableShardingRule, tosa::TableOp> {
  FailureOr<ShardingRule> getStaticRule(Operation *op) const {
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    return getDimwiseRule(op, {0}, llvm::SmallBitVector(result.getRank()));
  }
};

/// Attaches `Model<Op>` to each op of `OpTys`.
template <template <typename> class Model, typename... OpTys>
void attachToEach(MLIRContext *context) {
  (OpTys::template attachInterface<Model<OpTys>>(*context), ...);
}

/// Attaches the elementwise rule to every op of the list that TOSA marks
/// elementwise.
template <typename... OpTys>
void attachToElementwiseOps(MLIRContext *context) {
  (
      [&] {
        if constexpr (OpTys::template hasTrait<
                          OpTrait::tosa::TosaElementwiseOperator>())
          OpTys::template attachInterface<TosaElementwiseShardingRule<OpTys>>(
              *context);
      }(),
      ...);
}
} // namespace

void dist::registerTosaShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tosa::TosaDialect *) {
    attachToElementwiseOps<
#define GET_OP_LIST
#include "mlir/Dialect/Tosa/IR/TosaOps.cpp.inc"
        >(context);
    // Elementwise without the trait: a product (with a shift operand) and a
    // conversion.
    attachToEach<TosaElementwiseShardingRule, tosa::MulOp, tosa::CastOp>(
        context);
    attachToEach<TosaReduceShardingRule, tosa::ReduceSumOp, tosa::ReduceMaxOp,
                 tosa::ReduceMinOp, tosa::ReduceProductOp, tosa::ReduceAllOp,
                 tosa::ReduceAnyOp>(context);
    tosa::MatMulOp::attachInterface<TosaMatMulShardingRule>(*context);
    tosa::TransposeOp::attachInterface<TosaTransposeShardingRule>(*context);
    tosa::ReshapeOp::attachInterface<TosaReshapeShardingRule>(*context);
    attachToEach<TosaConvShardingRule, tosa::Conv2DOp, tosa::Conv3DOp,
                 tosa::TransposeConv2DOp>(context);
    tosa::DepthwiseConv2DOp::attachInterface<TosaDepthwiseConvShardingRule>(
        *context);
    attachToEach<TosaPoolShardingRule, tosa::AvgPool2dOp, tosa::MaxPool2dOp>(
        context);
    tosa::ConcatOp::attachInterface<TosaConcatShardingRule>(*context);
    attachToEach<TosaPadTileShardingRule, tosa::PadOp, tosa::TileOp>(context);
    tosa::SliceOp::attachInterface<TosaSliceShardingRule>(*context);
    tosa::ArgMaxOp::attachInterface<TosaArgMaxShardingRule>(*context);
    tosa::TableOp::attachInterface<TosaTableShardingRule>(*context);
    tosa::RescaleOp::attachInterface<TosaRescaleShardingRule>(*context);
    tosa::GatherOp::attachInterface<TosaGatherShardingRule>(*context);
  });
}
