//===- StepBuilder.cpp - Tensor code for generated training steps ---------===//

#include "StepBuilder.h"

#include "dist/Dialect/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::gen;

/// 16-bit floats: math, sums and matmuls happen in f32 and round once, as
/// PyTorch's CPU kernels (and GPU tensor cores) do.
static bool isSixteenBitFloat(Type type) { return type.isBF16() || type.isF16(); }

//===----------------------------------------------------------------------===//
// Scalar
//===----------------------------------------------------------------------===//

Value Scalar::constant(double value) { return constant(value, type); }

Value Scalar::constant(double value, Type to) {
  if (isa<FloatType>(to))
    return arith::ConstantOp::create(b, loc, to, b.getFloatAttr(to, value));
  return arith::ConstantOp::create(b, loc, to,
                                   b.getIntegerAttr(to, (int64_t)value));
}

Value Scalar::add(Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::AddIOp::create(b, loc, lhs, rhs);
}
Value Scalar::sub(Value lhs, Value rhs) {
  return arith::SubFOp::create(b, loc, lhs, rhs);
}
Value Scalar::mul(Value lhs, Value rhs) {
  return arith::MulFOp::create(b, loc, lhs, rhs);
}
Value Scalar::div(Value lhs, Value rhs) {
  return arith::DivFOp::create(b, loc, lhs, rhs);
}
Value Scalar::max(Value lhs, Value rhs) {
  return arith::MaximumFOp::create(b, loc, lhs, rhs);
}
Value Scalar::min(Value lhs, Value rhs) {
  return arith::MinimumFOp::create(b, loc, lhs, rhs);
}
Value Scalar::exp(Value value) { return math::ExpOp::create(b, loc, value); }
Value Scalar::log(Value value) { return math::LogOp::create(b, loc, value); }
Value Scalar::sqrt(Value value) { return math::SqrtOp::create(b, loc, value); }
Value Scalar::pow(Value base, Value exponent) {
  return math::PowFOp::create(b, loc, base, exponent);
}
Value Scalar::tanh(Value value) {
  Type t = value.getType();
  Value twice = mul(constant(2.0, t), value);
  Value denominator = add(exp(twice), constant(1.0, t));
  return sub(constant(1.0, t), div(constant(2.0, t), denominator));
}
Value Scalar::select(Value condition, Value ifTrue, Value ifFalse) {
  return arith::SelectOp::create(b, loc, condition, ifTrue, ifFalse);
}
Value Scalar::greater(Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, lhs, rhs);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, lhs, rhs);
}
Value Scalar::equal(Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lhs, rhs);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, rhs);
}
Value Scalar::notFinite(Value value) {
  // Unordered: NaN compares true, as does an infinity above the largest.
  auto floatType = cast<FloatType>(value.getType());
  Value largest = arith::ConstantOp::create(
      b, loc, floatType,
      b.getFloatAttr(floatType,
                     APFloat::getLargest(floatType.getFloatSemantics())));
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT,
                               math::AbsFOp::create(b, loc, value), largest);
}
Value Scalar::equalIndex(Value lhs, Value rhs) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, rhs);
}
Value Scalar::lessEqualIndex(Value lhs, Value rhs) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, lhs, rhs);
}
Value Scalar::index(char letter) {
  size_t position = letters.find(letter);
  assert(position != StringRef::npos && "letter not in the einsum");
  return linalg::IndexOp::create(b, loc, position);
}
Value Scalar::toIndex(Value value) {
  if (value.getType().isIndex())
    return value;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}
Value Scalar::convert(Value value, Type to) {
  if (!to)
    to = type;
  Type from = value.getType();
  if (from == to)
    return value;
  if (isa<FloatType>(from)) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, to, value);
    return arith::TruncFOp::create(b, loc, to, value);
  }
  return arith::SIToFPOp::create(b, loc, to, value);
}

//===----------------------------------------------------------------------===//
// StepBuilder
//===----------------------------------------------------------------------===//

StepBuilder::StepBuilder(OpBuilder &builder, Location loc, Type computeType)
    : b(builder), loc(loc), computeType(computeType),
      mathType(isSixteenBitFloat(computeType) ? Float32Type::get(builder.getContext())
                                    : computeType) {
  b.setListener(this);
}

void StepBuilder::notifyOperationInserted(Operation *op,
                                          OpBuilder::InsertPoint) {
  if (!currentRole || !isa_and_nonnull<func::FuncOp>(op->getParentOp()) ||
      op->hasTrait<OpTrait::ConstantLike>() ||
      op->hasTrait<OpTrait::IsTerminator>() || isa<tensor::EmptyOp>(op))
    return;
  op->setAttr(DistDialect::getRoleAttrName(),
              RoleAttr::get(op->getContext(), *currentRole));
}

std::string gen::lettersOf(Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  std::string letters;
  for (int64_t d = 0; d < rank; ++d)
    letters.push_back('a' + d);
  return letters;
}

Value StepBuilder::filled(ArrayRef<int64_t> shape, Type element,
                          Attribute value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, element);
  Value scalar =
      arith::ConstantOp::create(b, loc, element, cast<TypedAttr>(value));
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

Value StepBuilder::einsum(StringRef spec, ValueRange inputs, BodyFn body,
                          Combine combine, Type outElement,
                          ArrayRef<std::pair<char, int64_t>> sizes) {
  auto [inputSpec, outputLetters] = spec.split("->");
  SmallVector<StringRef> inputLetters;
  inputSpec.split(inputLetters, ',');
  if (inputs.empty())
    inputLetters.clear();
  assert(inputLetters.size() == inputs.size() && "einsum arity");

  // Loops: the output's letters (parallel), then the others (reductions).
  std::string loops = outputLetters.str();
  for (StringRef letters : inputLetters)
    for (char letter : letters)
      if (loops.find(letter) == std::string::npos)
        loops.push_back(letter);
  SmallVector<int64_t> loopSizes(loops.size(), ShapedType::kDynamic);
  for (auto [letters, input] : llvm::zip(inputLetters, inputs)) {
    auto type = cast<RankedTensorType>(input.getType());
    assert((int64_t)letters.size() == type.getRank() && "einsum rank");
    for (auto [d, letter] : llvm::enumerate(letters))
      loopSizes[loops.find(letter)] = type.getDimSize(d);
  }
  for (auto [letter, size] : sizes)
    loopSizes[loops.find(letter)] = size;

  MLIRContext *context = b.getContext();
  auto mapOf = [&](StringRef letters) {
    SmallVector<AffineExpr> results;
    for (char letter : letters)
      results.push_back(getAffineDimExpr(loops.find(letter), context));
    return AffineMap::get(loops.size(), 0, results, context);
  };
  SmallVector<AffineMap> maps;
  for (StringRef letters : inputLetters)
    maps.push_back(mapOf(letters));
  maps.push_back(mapOf(outputLetters));
  SmallVector<utils::IteratorType> iterators;
  for (size_t d = 0; d < loops.size(); ++d)
    iterators.push_back(d < outputLetters.size()
                            ? utils::IteratorType::parallel
                            : utils::IteratorType::reduction);

  if (!outElement)
    outElement = computeType;
  // bf16/fp16 sums and maxima are kept in f32 and rounded once at the end.
  Type accumulator = outElement;
  if (combine != Combine::None && isSixteenBitFloat(outElement))
    accumulator = mathType;
  SmallVector<int64_t> outShape;
  for (char letter : outputLetters)
    outShape.push_back(loopSizes[loops.find(letter)]);
  Value init;
  switch (combine) {
  case Combine::None:
    init = tensor::EmptyOp::create(b, loc, outShape, accumulator);
    break;
  case Combine::Sum:
    init = filled(outShape, accumulator, b.getZeroAttr(accumulator));
    break;
  case Combine::Max: {
    auto floatType = cast<FloatType>(accumulator);
    init = filled(outShape, accumulator,
                  b.getFloatAttr(floatType,
                                 APFloat::getInf(floatType.getFloatSemantics(),
                                                 /*Negative=*/true)));
    break;
  }
  }
  Type resultType = RankedTensorType::get(outShape, accumulator);
  Type math = mathType;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Scalar scalar(nested, nestedLoc, math, loops);
        SmallVector<Value> elements;
        for (Value arg : args.drop_back()) {
          // Narrow floats are computed on in the math type.
          if (isa<FloatType>(arg.getType()) &&
              arg.getType().getIntOrFloatBitWidth() <
                  math.getIntOrFloatBitWidth())
            arg = scalar.convert(arg, math);
          elements.push_back(arg);
        }
        Value value = body(scalar, elements);
        Value accumulated = args.back();
        if (value.getType() != accumulator)
          value = scalar.convert(value, accumulator);
        if (combine == Combine::Sum)
          value = scalar.add(accumulated, value);
        else if (combine == Combine::Max)
          value = scalar.max(accumulated, value);
        linalg::YieldOp::create(nested, nestedLoc, value);
      });
  Value result = generic.getResult(0);
  if (accumulator != outElement)
    result = convertElements(result, outElement);
  return result;
}

Value StepBuilder::convertElements(Value value, Type element) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == element)
    return value;
  std::string letters = lettersOf(value);
  // Converted directly, not through the math type.
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), element);
  SmallVector<AffineMap> maps(
      2, b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{value},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               Scalar scalar(nested, nestedLoc, element, letters);
               linalg::YieldOp::create(nested, nestedLoc,
                                       scalar.convert(args[0], element));
             })
      .getResult(0);
}

Value StepBuilder::add(Value lhs, Value rhs) {
  std::string l = lettersOf(lhs);
  return einsum(l + "," + l + "->" + l, {lhs, rhs},
                [](Scalar &s, ValueRange x) { return s.add(x[0], x[1]); });
}

Value StepBuilder::matmul(Value lhs, Value rhs) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Type element = lhsType.getElementType();
  Type accumulator = isSixteenBitFloat(element) ? mathType : element;
  SmallVector<int64_t> shape = {lhsType.getDimSize(0), rhsType.getDimSize(1)};
  Value init = filled(shape, accumulator, b.getZeroAttr(accumulator));
  Value product =
      linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                               ValueRange{lhs, rhs}, ValueRange{init})
          .getResult(0);
  return convertElements(product, element);
}

Value StepBuilder::transpose(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{type.getDimSize(1), type.getDimSize(0)},
      type.getElementType());
  return linalg::TransposeOp::create(b, loc, value, init,
                                     ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

Value StepBuilder::matmulTransposedLhs(Value lhs, Value rhs) {
  return matmul(transpose(lhs), rhs);
}

Value StepBuilder::matmulTransposedRhs(Value lhs, Value rhs) {
  return matmul(lhs, transpose(rhs));
}

static SmallVector<ReassociationIndices>
toReassociation(ArrayRef<SmallVector<int64_t, 2>> groups) {
  SmallVector<ReassociationIndices> result;
  for (const SmallVector<int64_t, 2> &group : groups)
    result.push_back(ReassociationIndices(group.begin(), group.end()));
  return result;
}

Value StepBuilder::expand(Value value, ArrayRef<int64_t> shape,
                          ArrayRef<SmallVector<int64_t, 2>> groups) {
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(value.getType()).getElementType());
  return tensor::ExpandShapeOp::create(b, loc, type, value,
                                       toReassociation(groups));
}

Value StepBuilder::collapse(Value value,
                            ArrayRef<SmallVector<int64_t, 2>> groups) {
  return tensor::CollapseShapeOp::create(b, loc, value,
                                         toReassociation(groups));
}

Value StepBuilder::gatherRows(Value table, Value rowIds) {
  auto tableType = cast<RankedTensorType>(table.getType());
  int64_t rows = cast<RankedTensorType>(rowIds.getType()).getDimSize(0);
  Value indices = expand(rowIds, {rows, 1}, {{0, 1}});
  auto type = RankedTensorType::get({rows, tableType.getDimSize(1)},
                                    tableType.getElementType());
  return tensor::GatherOp::create(b, loc, type, table, indices,
                                  ArrayRef<int64_t>{0})
      .getResult();
}

//===----------------------------------------------------------------------===//
// Softmax cross-entropy
//===----------------------------------------------------------------------===//

std::pair<Value, Value> gen::softmaxCrossEntropy(StepBuilder &ops,
                                                 Value logits, Value labels,
                                                 Value lossScale) {
  int64_t rows = cast<RankedTensorType>(logits.getType()).getDimSize(0);
  Type math = ops.getMathType();
  double inverseRows = 1.0 / (double)rows;
  ops.setRole(Role::loss);
  Value rowMax = ops.einsum(
      "nv->n", {logits}, [](Scalar &, ValueRange x) { return x[0]; },
      Combine::Max, math);
  Value expSum = ops.einsum(
      "nv,n->n", {logits, rowMax},
      [](Scalar &s, ValueRange x) { return s.exp(s.sub(x[0], x[1])); },
      Combine::Sum, math);
  // The logit of each row's label (a sum with one nonzero term, so that a
  // vocabulary split over ranks makes it a partial sum).
  Value target = ops.einsum(
      "nv,n->n", {logits, labels},
      [](Scalar &s, ValueRange x) {
        Value hit = s.equalIndex(s.toIndex(x[1]), s.index('v'));
        return s.select(hit, x[0], s.constant(0.0));
      },
      Combine::Sum, math);
  Value loss = ops.einsum(
      "n,n,n->", {rowMax, expSum, target},
      [&](Scalar &s, ValueRange x) {
        Value perRow = s.sub(s.add(x[0], s.log(x[1])), x[2]);
        return s.mul(perRow, s.constant(inverseRows));
      },
      Combine::Sum, math);
  ops.setRole(Role::backward);
  SmallVector<Value> inputs = {logits, rowMax, expSum, labels};
  if (lossScale)
    inputs.push_back(lossScale);
  Value gradient = ops.einsum(
      lossScale ? "nv,n,n,n,->nv" : "nv,n,n,n->nv", inputs,
      [&](Scalar &s, ValueRange x) {
        Value probability = s.div(s.exp(s.sub(x[0], x[1])), x[2]);
        Value hit = s.equalIndex(s.toIndex(x[3]), s.index('v'));
        Value delta =
            s.sub(probability, s.select(hit, s.constant(1.0), s.constant(0.0)));
        // The loss gradient d(scale * loss)/d(loss) = scale, before the
        // rounding to the compute type (what loss scaling is for).
        Value seed = s.constant(inverseRows);
        if (lossScale)
          seed = s.mul(seed, x[4]);
        return s.mul(delta, seed);
      });
  return {loss, gradient};
}
