//===- StepBuilder.h - Tensor code for generated training steps -*- C++ -*-===//
//
// The building blocks dist-gen's models are written in: einsum-like
// linalg.generic ops (elementwise maps with broadcasting, reductions,
// contractions) whose scalar body is a lambda, linalg.matmul for the
// products BLAS takes, reshapes; and TrainingStep, which owns the step
// function's signature (parameters, optimizer state, inputs), gathers the
// gradients, and writes the clipping, the optimizer update and the return.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_LIB_TOOLS_DISTGEN_STEPBUILDER_H
#define DIST_LIB_TOOLS_DISTGEN_STEPBUILDER_H

#include "dist/Dialect/Dist/IR/DistAttrs.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"
#include "dist/Tools/DistGen/DistGen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::dist::gen {

/// Builds scalar code inside a linalg.generic body. Float math happens in
/// `type` (f32 when the step computes in bf16, as PyTorch's CPU kernels do).
class Scalar {
public:
  Scalar(OpBuilder &builder, Location loc, Type type, StringRef letters)
      : b(builder), loc(loc), type(type), letters(letters) {}

  Type getType() const { return type; }
  Value constant(double value);
  Value constant(double value, Type type);
  Value add(Value lhs, Value rhs);
  Value sub(Value lhs, Value rhs);
  Value mul(Value lhs, Value rhs);
  Value div(Value lhs, Value rhs);
  Value max(Value lhs, Value rhs);
  Value min(Value lhs, Value rhs);
  Value exp(Value value);
  Value log(Value value);
  Value sqrt(Value value);
  Value pow(Value base, Value exponent);
  /// tanh through exp (no libm call): 1 - 2 / (exp(2x) + 1).
  Value tanh(Value value);
  Value select(Value condition, Value ifTrue, Value ifFalse);
  Value greater(Value lhs, Value rhs);
  /// Equality of two integers or two floats.
  Value equal(Value lhs, Value rhs);
  /// Whether a float is infinite or NaN.
  Value notFinite(Value value);
  /// Comparisons of indices.
  Value equalIndex(Value lhs, Value rhs);
  Value lessEqualIndex(Value lhs, Value rhs);
  /// The iteration index of loop `letter` of the enclosing einsum.
  Value index(char letter);
  /// An integer value (any width, or index) as an index.
  Value toIndex(Value value);
  /// Float to float or integer to float, to `type` (default: the math type).
  Value convert(Value value, Type to = {});

private:
  OpBuilder &b;
  Location loc;
  Type type;
  StringRef letters;
};

using BodyFn = llvm::function_ref<Value(Scalar &, ValueRange)>;

enum class Combine { None, Sum, Max };

/// Creates the ops of a step at the builder's insertion point; every op
/// created at function level gets the current `dist.role`.
class StepBuilder : public OpBuilder::Listener {
public:
  StepBuilder(OpBuilder &builder, Location loc, Type computeType);

  OpBuilder &getBuilder() { return b; }
  Location getLoc() const { return loc; }
  Type getComputeType() const { return computeType; }
  /// The type elementwise math is done in (f32 for bf16 steps).
  Type getMathType() const { return mathType; }
  void setRole(Role role) { currentRole = role; }

  /// A linalg.generic written as an einsum: `spec` is "in0,in1,...->out",
  /// one letter per dimension. Output letters are parallel loops, the others
  /// reductions. `body` maps the input elements (floats converted to the math
  /// type) to a value; `combine` folds it into the output (Sum from 0, Max
  /// from -inf, None: the value itself). Letters that only the output has get
  /// their size from `sizes`. The output element type defaults to the
  /// compute type; bf16 sums accumulate in f32.
  Value einsum(StringRef spec, ValueRange inputs, BodyFn body,
               Combine combine = Combine::None, Type outElement = {},
               ArrayRef<std::pair<char, int64_t>> sizes = {});

  /// [M, K] x [K, N] as linalg.matmul (accumulating in f32 for bf16).
  Value matmul(Value lhs, Value rhs);
  /// lhs^T x rhs and lhs x rhs^T.
  Value matmulTransposedLhs(Value lhs, Value rhs);
  Value matmulTransposedRhs(Value lhs, Value rhs);
  Value transpose(Value value);
  Value expand(Value value, ArrayRef<int64_t> shape,
               ArrayRef<SmallVector<int64_t, 2>> groups);
  Value collapse(Value value, ArrayRef<SmallVector<int64_t, 2>> groups);
  /// Rows `rowIds` ([N], integers) of `table` ([R, C]) as [N, C]: a
  /// tensor.gather (an embedding lookup).
  Value gatherRows(Value table, Value rowIds);
  /// Elementwise conversion to another element type.
  Value convertElements(Value value, Type element);
  /// lhs + rhs, same shapes.
  Value add(Value lhs, Value rhs);

  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override;

private:
  Value filled(ArrayRef<int64_t> shape, Type element, Attribute value);

  OpBuilder &b;
  Location loc;
  Type computeType, mathType;
  std::optional<Role> currentRole;
};

/// A tensor's letters for einsum: "abc..." of its rank.
std::string lettersOf(Value value);

/// The signature and the training part of a step: parameters with their
/// optimizer state, inputs, gradients, clipping, the update and the return.
class TrainingStep {
public:
  TrainingStep(ModuleOp module, const StepOptions &options);

  Type getComputeType() const { return computeType; }
  Type getMasterType() const { return masterType; }
  /// The parameters' element type: the compute type with master weights,
  /// else the master type.
  Type parameterType() const {
    return options.masterWeights ? computeType : masterType;
  }

  /// How a parameter's initial value is drawn (dist.input_normal or
  /// dist.input_fill on its argument).
  struct Init {
    bool normal;
    double value; // the standard deviation, or the fill value
    static Init normalWithStd(double std) { return {true, std}; }
    static Init fill(double value) { return {false, value}; }
  };

  /// Declares a parameter; `modelSplitDim` is the dim Megatron splits over
  /// the model axis (-1: none). Returns its handle. Before begin().
  unsigned addParam(StringRef name, ArrayRef<int64_t> shape,
                    int64_t modelSplitDim, Init init);
  /// Declares an input (a batch tensor); `element` null: the compute type.
  /// Integers are drawn from [0, rangeEnd). Dim 0 is the batch.
  unsigned addInput(StringRef name, ArrayRef<int64_t> shape, Type element = {},
                    int64_t rangeEnd = 0);

  /// Creates the function; the builder is then inside it.
  void begin();
  StepBuilder &ops() { return *stepBuilder; }
  /// fp16: the loss scale (rank-0 tensor in the master type) that the loss
  /// gradient is multiplied by; null in other precisions.
  Value lossScale();

  /// A parameter in the compute type (converted once, in forward).
  Value param(unsigned handle);
  Value input(unsigned handle);
  /// Adds `gradient` (compute type) to the parameter's gradient.
  void addGradient(unsigned handle, Value gradient);
  /// Writes clipping, the optimizer update and the return of `loss` (a
  /// rank-0 tensor).
  void finish(Value loss);

private:
  struct Param {
    std::string name;
    SmallVector<int64_t> shape;
    int64_t modelSplitDim;
    Init init;
    unsigned argument = 0;
    SmallVector<unsigned> stateArguments;
    Value computeValue, gradient;
  };
  struct Input {
    std::string name;
    SmallVector<int64_t> shape;
    Type element;
    int64_t rangeEnd;
    unsigned argument = 0;
  };

  Attribute shardingOf(ArrayRef<int64_t> shape, int64_t modelSplitDim,
                       bool batch);
  SmallVector<std::string> stateNames() const;
  /// Rank-0 sums of `terms` (one per parameter of `order`): one over the
  /// parameters split over the model axis, one over the others (either may
  /// be missing). Under Megatron the first is a partial sum that is reduced
  /// once, where one sum of all terms would reduce each split term alone.
  SmallVector<Value> groupSums(ArrayRef<unsigned> order, ArrayRef<Value> terms);
  /// The clipping coefficient of the gradients (indexed by handle).
  Value clipGradients(ArrayRef<unsigned> order, ArrayRef<Value> gradients);
  /// 1 when any gradient has an infinity or a NaN, else 0 (rank 0).
  Value foundNonFinite(ArrayRef<unsigned> order, ArrayRef<Value> gradients);
  /// `updated` where `skip` (rank 0) is 0, else `current`.
  Value unlessSkipped(Value skip, Value current, Value updated);

  ModuleOp module;
  const StepOptions &options;
  Type computeType, masterType;
  SmallVector<Param> params;
  SmallVector<Input> inputs;
  std::optional<unsigned> stepArgument;
  /// fp16: the loss scale and the count of steps since it last changed.
  std::optional<unsigned> lossScaleArgument, growthTrackerArgument;
  func::FuncOp function;
  OpBuilder builder;
  std::unique_ptr<StepBuilder> stepBuilder;
};

/// Softmax cross-entropy averaged over rows: logits [N, V], labels [N]
/// (integers in [0, V)). Returns the loss (rank 0, f32 or f64) and the
/// gradient of the logits (compute type), multiplied by `lossScale` (a rank-0
/// tensor) when there is one. Computed in the math type.
std::pair<Value, Value> softmaxCrossEntropy(StepBuilder &ops, Value logits,
                                            Value labels,
                                            Value lossScale = {});

} // namespace mlir::dist::gen

#endif // DIST_LIB_TOOLS_DISTGEN_STEPBUILDER_H
