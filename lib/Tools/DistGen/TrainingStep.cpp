//===- TrainingStep.cpp - Signature, gradients and optimizer of a step ----===//

#include "StepBuilder.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include "dist/Dialect/Dist/IR/DistOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::gen;

static Type masterTypeOf(MLIRContext *context, Precision precision) {
  if (precision == Precision::F64)
    return Float64Type::get(context);
  return Float32Type::get(context);
}

static Type computeTypeOf(MLIRContext *context, Precision precision) {
  if (precision == Precision::BF16)
    return BFloat16Type::get(context);
  if (precision == Precision::FP16)
    return Float16Type::get(context);
  return masterTypeOf(context, precision);
}

static double learningRateOf(const StepOptions &options) {
  if (options.learningRate > 0)
    return options.learningRate;
  return options.optimizer == OptimizerKind::Adam ? 1e-3 : 1e-2;
}

TrainingStep::TrainingStep(ModuleOp module, const StepOptions &options)
    : module(module), options(options),
      computeType(computeTypeOf(module.getContext(), options.precision)),
      masterType(masterTypeOf(module.getContext(), options.precision)),
      builder(module.getContext()) {}

unsigned TrainingStep::addParam(StringRef name, ArrayRef<int64_t> shape,
                                int64_t modelSplitDim, Init init) {
  Param param;
  param.name = name.str();
  param.shape.assign(shape.begin(), shape.end());
  param.modelSplitDim = modelSplitDim;
  param.init = init;
  params.push_back(param);
  return params.size() - 1;
}

unsigned TrainingStep::addInput(StringRef name, ArrayRef<int64_t> shape,
                                Type element, int64_t rangeEnd) {
  inputs.push_back({name.str(), SmallVector<int64_t>(shape),
                    element ? element : computeType, rangeEnd});
  return inputs.size() - 1;
}

SmallVector<std::string> TrainingStep::stateNames() const {
  SmallVector<std::string> names;
  if (options.masterWeights)
    names.push_back("master");
  switch (options.optimizer) {
  case OptimizerKind::SGD:
    break;
  case OptimizerKind::Momentum:
    names.push_back("momentum_buffer");
    break;
  case OptimizerKind::Adam:
    names.append({"exp_avg", "exp_avg_sq"});
    break;
  }
  return names;
}

Attribute TrainingStep::shardingOf(ArrayRef<int64_t> shape,
                                   int64_t modelSplitDim, bool batch) {
  if (options.meshAxes.empty() ||
      (options.dataAxis.empty() && options.modelAxis.empty()))
    return {};
  SmallVector<SmallVector<StringRef>> dims(shape.size());
  for (int64_t d = 0, e = shape.size(); d < e; ++d) {
    if (batch && d == 0 && !options.dataAxis.empty())
      dims[d].push_back(options.dataAxis);
    if (d == modelSplitDim && !options.modelAxis.empty())
      dims[d].push_back(options.modelAxis);
  }
  return ShardingAttr::get(module.getContext(), options.meshName, dims);
}

void TrainingStep::begin() {
  MLIRContext *context = module.getContext();
  Location loc = module.getLoc();
  builder.setInsertionPointToEnd(module.getBody());
  if (!options.meshAxes.empty()) {
    SmallVector<StringRef> names;
    SmallVector<int64_t> sizes;
    for (const auto &[name, size] : options.meshAxes) {
      names.push_back(name);
      sizes.push_back(size);
    }
    MeshOp::create(builder, loc, builder.getStringAttr(options.meshName),
                   builder.getStrArrayAttr(names),
                   builder.getDenseI64ArrayAttr(sizes));
  }

  auto tensorOf = [](ArrayRef<int64_t> shape, Type element) -> Type {
    return RankedTensorType::get(shape, element);
  };
  SmallVector<Type> argTypes, resultTypes;
  for (Param &param : params) {
    param.argument = argTypes.size();
    argTypes.push_back(tensorOf(param.shape, parameterType()));
  }
  SmallVector<std::string> states = stateNames();
  for (Param &param : params)
    for (size_t s = 0; s < states.size(); ++s) {
      param.stateArguments.push_back(argTypes.size());
      argTypes.push_back(tensorOf(param.shape, masterType));
    }
  if (options.optimizer == OptimizerKind::Adam) {
    stepArgument = argTypes.size();
    argTypes.push_back(tensorOf({}, builder.getI64Type()));
  }
  if (options.precision == Precision::FP16) {
    lossScaleArgument = argTypes.size();
    argTypes.push_back(tensorOf({}, masterType));
    growthTrackerArgument = argTypes.size();
    argTypes.push_back(tensorOf({}, builder.getI64Type()));
  }
  for (Input &input : inputs) {
    input.argument = argTypes.size();
    argTypes.push_back(tensorOf(input.shape, input.element));
  }
  // Results: the parameters, the state, the step counter and the loss
  // scaling state in argument order, then the loss and (optionally) the
  // gradients.
  unsigned stateResults = argTypes.size() - inputs.size();
  resultTypes.append(argTypes.begin(), argTypes.begin() + stateResults);
  resultTypes.push_back(tensorOf({}, masterType));
  if (options.returnGradients)
    for (Param &param : params)
      resultTypes.push_back(tensorOf(param.shape, masterType));

  if (options.seed)
    module->setAttr(DistDialect::getInputSeedAttrName(),
                    builder.getI64IntegerAttr(*options.seed));
  function = func::FuncOp::create(builder, loc, options.functionName,
                                  builder.getFunctionType(argTypes, resultTypes));
  auto setBoth = [&](unsigned index, StringRef name, Attribute value) {
    function.setArgAttr(index, name, value);
    function.setResultAttr(index, name, value);
  };
  StringRef nameAttr = DistDialect::getNameAttrName();
  StringRef shardingAttr = DistDialect::getShardingAttrName();
  for (Param &param : params) {
    function.setArgAttr(param.argument, DistDialect::getParamAttrName(),
                        UnitAttr::get(context));
    setBoth(param.argument, nameAttr, builder.getStringAttr(param.name));
    function.setArgAttr(param.argument,
                        param.init.normal ? DistDialect::getInputNormalAttrName()
                                          : DistDialect::getInputFillAttrName(),
                        builder.getF64FloatAttr(param.init.value));
    if (Attribute sharding =
            shardingOf(param.shape, param.modelSplitDim, /*batch=*/false))
      setBoth(param.argument, shardingAttr, sharding);
    for (auto [state, argument] : llvm::zip(states, param.stateArguments)) {
      setBoth(argument, nameAttr,
              builder.getStringAttr(param.name + "." + state));
      setBoth(argument, DistDialect::getStateOfAttrName(),
              builder.getI64IntegerAttr(param.argument));
      // Optimizer state starts at zero (random test inputs would give Adam
      // a negative second moment); master weights as their parameter.
      if (state == "master")
        function.setArgAttr(argument,
                            DistDialect::getInputFromParamAttrName(),
                            UnitAttr::get(context));
      else
        function.setArgAttr(argument, DistDialect::getInputFillAttrName(),
                            builder.getF64FloatAttr(0.0));
      if (Attribute sharding =
              shardingOf(param.shape, param.modelSplitDim, /*batch=*/false))
        setBoth(argument, shardingAttr, sharding);
    }
  }
  if (stepArgument) {
    setBoth(*stepArgument, nameAttr, builder.getStringAttr("step"));
    // The count of steps taken so far: 0 in the first step.
    function.setArgAttr(*stepArgument, DistDialect::getInputRangeAttrName(),
                        builder.getDenseI64ArrayAttr({0, 1}));
    if (Attribute sharding = shardingOf({}, -1, /*batch=*/false))
      setBoth(*stepArgument, shardingAttr, sharding);
  }
  if (lossScaleArgument) {
    setBoth(*lossScaleArgument, nameAttr, builder.getStringAttr("loss_scale"));
    function.setArgAttr(*lossScaleArgument,
                        DistDialect::getInputFillAttrName(),
                        builder.getF64FloatAttr(options.initialLossScale));
    setBoth(*growthTrackerArgument, nameAttr,
            builder.getStringAttr("loss_scale.growth_tracker"));
    function.setArgAttr(*growthTrackerArgument,
                        DistDialect::getInputRangeAttrName(),
                        builder.getDenseI64ArrayAttr({0, 1}));
    if (Attribute sharding = shardingOf({}, -1, /*batch=*/false)) {
      setBoth(*lossScaleArgument, shardingAttr, sharding);
      setBoth(*growthTrackerArgument, shardingAttr, sharding);
    }
  }
  for (Input &input : inputs) {
    function.setArgAttr(input.argument, nameAttr,
                        builder.getStringAttr(input.name));
    if (input.rangeEnd > 0)
      function.setArgAttr(input.argument,
                          DistDialect::getInputRangeAttrName(),
                          builder.getDenseI64ArrayAttr({0, input.rangeEnd}));
    if (Attribute sharding = shardingOf(input.shape, -1, /*batch=*/true))
      function.setArgAttr(input.argument, shardingAttr, sharding);
  }
  function.setResultAttr(stateResults, nameAttr, builder.getStringAttr("loss"));
  if (options.returnGradients)
    for (auto [i, param] : llvm::enumerate(params))
      function.setResultAttr(stateResults + 1 + i, nameAttr,
                             builder.getStringAttr("grad." + param.name));

  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  stepBuilder = std::make_unique<StepBuilder>(builder, loc, computeType);
  stepBuilder->setRole(Role::forward);
}

Value TrainingStep::param(unsigned handle) {
  Param &param = params[handle];
  if (!param.computeValue)
    param.computeValue = ops().convertElements(function.getArgument(param.argument),
                                    computeType);
  return param.computeValue;
}

Value TrainingStep::lossScale() {
  if (!lossScaleArgument)
    return {};
  return function.getArgument(*lossScaleArgument);
}

Value TrainingStep::input(unsigned handle) {
  return function.getArgument(inputs[handle].argument);
}

void TrainingStep::addGradient(unsigned handle, Value gradient) {
  Param &param = params[handle];
  // Each rank may round its share of the gradient to the compute type, so
  // that the shares are reduced in it (as the ZeRO paper reduces fp16).
  if (auto round = gradient.getDefiningOp<linalg::GenericOp>();
      options.roundGradientPartials && round && round.getNumDpsInputs() == 1 &&
      getElementTypeOrSelf(round.getDpsInputs()[0].getType()) !=
          getElementTypeOrSelf(gradient.getType()))
    round->setAttr(DistDialect::getRoundPartialsAttrName(),
                   UnitAttr::get(module.getContext()));
  param.gradient =
      param.gradient ? ops().add(param.gradient, gradient) : gradient;
}

/// The sum of rank-0 values, through `finish`, as one einsum.
static Value combineSums(StepBuilder &b, ArrayRef<Value> sums, Type type,
                         llvm::function_ref<Value(Scalar &, Value)> finish) {
  return b.einsum(
      std::string(sums.size() - 1, ',') + "->", sums,
      [&](Scalar &s, ValueRange x) {
        Value total = x[0];
        for (Value term : x.drop_front())
          total = s.add(total, term);
        return finish(s, total);
      },
      Combine::None, type);
}

SmallVector<Value> TrainingStep::groupSums(ArrayRef<unsigned> order,
                                           ArrayRef<Value> terms) {
  SmallVector<Value> split, whole;
  for (auto [h, term] : llvm::zip(order, terms))
    (!options.modelAxis.empty() && params[h].modelSplitDim >= 0 ? split : whole)
        .push_back(term);
  SmallVector<Value> sums;
  for (ArrayRef<Value> group : {ArrayRef<Value>(split), ArrayRef<Value>(whole)}) {
    if (group.empty())
      continue;
    if (group.size() == 1) {
      sums.push_back(group.front());
      continue;
    }
    sums.push_back(combineSums(ops(), group, masterType,
                               [](Scalar &, Value total) { return total; }));
  }
  return sums;
}

Value TrainingStep::clipGradients(ArrayRef<unsigned> order,
                                  ArrayRef<Value> gradients) {
  StepBuilder &b = ops();
  // torch.nn.utils.clip_grad_norm_: scale every gradient by
  // min(1, max_norm / (total_norm + 1e-6)).
  SmallVector<Value> squares;
  for (unsigned h : order) {
    std::string l = lettersOf(gradients[h]);
    squares.push_back(b.einsum(
        l + "->", {gradients[h]},
        [](Scalar &s, ValueRange x) { return s.mul(x[0], x[0]); },
        Combine::Sum, masterType));
  }
  double maxNorm = *options.clipGradNorm;
  return combineSums(b, groupSums(order, squares), masterType,
                     [&](Scalar &s, Value total) {
                       Value norm = s.sqrt(total);
                       Value coefficient = s.div(
                           s.constant(maxNorm), s.add(norm, s.constant(1e-6)));
                       return s.min(coefficient, s.constant(1.0));
                     });
}

Value TrainingStep::foundNonFinite(ArrayRef<unsigned> order,
                                   ArrayRef<Value> gradients) {
  StepBuilder &b = ops();
  // The count of infinities and NaNs (a sum, so that the counts of split
  // gradients are reduced once, together).
  SmallVector<Value> counts;
  for (unsigned h : order)
    counts.push_back(b.einsum(
        lettersOf(gradients[h]) + "->", {gradients[h]},
        [](Scalar &s, ValueRange x) {
          return s.select(s.notFinite(x[0]), s.constant(1.0), s.constant(0.0));
        },
        Combine::Sum, masterType));
  return combineSums(b, groupSums(order, counts), masterType,
                     [](Scalar &s, Value total) {
                       return s.select(s.greater(total, s.constant(0.0)),
                                       s.constant(1.0), s.constant(0.0));
                     });
}

Value TrainingStep::unlessSkipped(Value skip, Value current, Value updated) {
  std::string l = lettersOf(current);
  Type element = cast<RankedTensorType>(current.getType()).getElementType();
  return ops().einsum(
      l + "," + l + ",->" + l, {current, updated, skip},
      [](Scalar &s, ValueRange x) {
        return s.select(s.greater(x[2], s.constant(0.0)), x[0], x[1]);
      },
      Combine::None, element);
}

void TrainingStep::finish(Value loss) {
  StepBuilder &b = ops();
  Type f64 = builder.getF64Type();
  // Gradients in the master type, marked, in the order backward made them
  // (the order of the optimizer updates below).
  b.setRole(Role::backward);
  SmallVector<unsigned> order;
  for (unsigned h = 0; h < params.size(); ++h)
    order.push_back(h);
  llvm::sort(order, [&](unsigned x, unsigned y) {
    Operation *a = params[x].gradient.getDefiningOp();
    Operation *c = params[y].gradient.getDefiningOp();
    return a->isBeforeInBlock(c);
  });
  // fp16: gradients are unscaled as they become f32, by 1 / scale computed
  // in f64 (as GradScaler's inv_scale).
  Value inverseScale;
  if (lossScaleArgument)
    inverseScale = b.einsum(
        "->", {lossScale()},
        [&](Scalar &s, ValueRange x) {
          return s.div(s.constant(1.0, f64), s.convert(x[0], f64));
        },
        Combine::None, masterType);
  SmallVector<Value> gradients(params.size());
  // Master weights: the gradients are marked (and reduced) in the compute
  // type and become f32 in the optimizer.
  if (options.masterWeights) {
    for (unsigned h : order)
      params[h].gradient.getDefiningOp()->setAttr(
          DistDialect::getGradOfAttrName(),
          builder.getI64IntegerAttr(params[h].argument));
    b.setRole(Role::optimizer);
  }
  for (unsigned h : order) {
    Param &param = params[h];
    assert(param.gradient && "every parameter gets a gradient");
    Value gradient;
    if (inverseScale) {
      std::string l = lettersOf(param.gradient);
      gradient = b.einsum(
          l + ",->" + l, {param.gradient, inverseScale},
          [](Scalar &s, ValueRange x) { return s.mul(x[0], x[1]); },
          Combine::None, masterType);
    } else {
      gradient = b.convertElements(param.gradient, masterType);
    }
    if (!options.masterWeights)
      gradient.getDefiningOp()->setAttr(
          DistDialect::getGradOfAttrName(),
          builder.getI64IntegerAttr(param.argument));
    gradients[h] = gradient;
  }

  b.setRole(Role::optimizer);
  // fp16: a step whose gradients overflowed is skipped (GradScaler.step).
  Value skip;
  if (lossScaleArgument)
    skip = foundNonFinite(order, gradients);
  if (options.clipGradNorm) {
    Value coefficient = clipGradients(order, gradients);
    for (unsigned h : order) {
      std::string l = lettersOf(gradients[h]);
      gradients[h] = b.einsum(
          l + ",->" + l, {gradients[h], coefficient},
          [](Scalar &s, ValueRange x) { return s.mul(x[0], x[1]); },
          Combine::None, masterType);
    }
  }

  double lr = learningRateOf(options);
  double beta1 = options.beta1, beta2 = options.beta2, eps = options.epsilon;
  Value stepSize, biasCorrection2Sqrt, nextStep;
  if (stepArgument) {
    // Adam's bias corrections at step t = step + 1, in f64 as torch.optim.
    Value step = function.getArgument(*stepArgument);
    auto correction = [&](Scalar &s, Value count, double beta) {
      Value t = s.add(s.convert(count, f64), s.constant(1.0, f64));
      return s.sub(s.constant(1.0, f64), s.pow(s.constant(beta, f64), t));
    };
    b.setRole(Role::lr_sched);
    stepSize = b.einsum(
        "->", {step},
        [&](Scalar &s, ValueRange x) {
          return s.div(s.constant(lr, f64), correction(s, x[0], beta1));
        },
        Combine::None, masterType);
    biasCorrection2Sqrt = b.einsum(
        "->", {step},
        [&](Scalar &s, ValueRange x) {
          return s.sqrt(correction(s, x[0], beta2));
        },
        Combine::None, masterType);
    nextStep = b.einsum(
        "->", {step},
        [](Scalar &s, ValueRange x) {
          return s.add(x[0], s.constant(1, x[0].getType()));
        },
        Combine::None, builder.getI64Type());
    b.setRole(Role::optimizer);
  }

  SmallVector<Value> newParams(params.size());
  SmallVector<SmallVector<Value>> newStates(params.size());
  // With master weights the optimizer updates the f32 copy (the first
  // state); the others follow it.
  unsigned firstState = options.masterWeights ? 1 : 0;
  auto weightOf = [&](const Param &param) {
    return function.getArgument(options.masterWeights
                                    ? param.stateArguments.front()
                                    : param.argument);
  };
  for (unsigned h : order) {
    Param &param = params[h];
    Value weight = weightOf(param);
    Value gradient = gradients[h];
    std::string l = lettersOf(weight);
    std::string two = l + "," + l + "->" + l;
    switch (options.optimizer) {
    case OptimizerKind::SGD:
      newParams[h] = b.einsum(
          two, {weight, gradient},
          [&](Scalar &s, ValueRange x) {
            return s.sub(x[0], s.mul(s.constant(lr), x[1]));
          },
          Combine::None, masterType);
      break;
    case OptimizerKind::Momentum: {
      Value buffer = function.getArgument(param.stateArguments[firstState]);
      double momentum = options.momentum;
      Value next = b.einsum(
          two, {buffer, gradient},
          [&](Scalar &s, ValueRange x) {
            return s.add(s.mul(x[0], s.constant(momentum)), x[1]);
          },
          Combine::None, masterType);
      newStates[h].push_back(next);
      newParams[h] = b.einsum(
          two, {weight, next},
          [&](Scalar &s, ValueRange x) {
            return s.sub(x[0], s.mul(s.constant(lr), x[1]));
          },
          Combine::None, masterType);
      break;
    }
    case OptimizerKind::Adam: {
      Value avg = function.getArgument(param.stateArguments[firstState]);
      Value avgSq = function.getArgument(param.stateArguments[firstState + 1]);
      Value nextAvg = b.einsum(
          two, {avg, gradient},
          [&](Scalar &s, ValueRange x) {
            return s.add(s.mul(x[0], s.constant(beta1)),
                         s.mul(x[1], s.constant(1.0 - beta1)));
          },
          Combine::None, masterType);
      Value nextAvgSq = b.einsum(
          two, {avgSq, gradient},
          [&](Scalar &s, ValueRange x) {
            Value square = s.mul(x[1], x[1]);
            return s.add(s.mul(x[0], s.constant(beta2)),
                         s.mul(square, s.constant(1.0 - beta2)));
          },
          Combine::None, masterType);
      newStates[h] = {nextAvg, nextAvgSq};
      newParams[h] = b.einsum(
          l + "," + l + "," + l + ",,->" + l,
          {weight, nextAvg, nextAvgSq, stepSize, biasCorrection2Sqrt},
          [&](Scalar &s, ValueRange x) {
            Value denominator =
                s.add(s.div(s.sqrt(x[2]), x[4]), s.constant(eps));
            return s.sub(x[0], s.mul(x[3], s.div(x[1], denominator)));
          },
          Combine::None, masterType);
      break;
    }
    }
  }

  Value nextLossScale, nextGrowthTracker;
  if (skip) {
    for (unsigned h : order) {
      Param &param = params[h];
      newParams[h] = unlessSkipped(skip, weightOf(param), newParams[h]);
      for (auto [state, argument] :
           llvm::zip(newStates[h],
                     ArrayRef(param.stateArguments).drop_front(firstState)))
        state = unlessSkipped(skip, function.getArgument(argument), state);
    }
    if (nextStep)
      nextStep = unlessSkipped(skip, function.getArgument(*stepArgument),
                               nextStep);
    // GradScaler.update: halve the scale on a skipped step, double it after
    // `interval` steps in a row that were not skipped.
    Type i64 = builder.getI64Type();
    int64_t interval = options.lossScaleGrowthInterval;
    Value tracker = function.getArgument(*growthTrackerArgument);
    nextLossScale = b.einsum(
        ",,->", {lossScale(), tracker, skip},
        [&](Scalar &s, ValueRange x) {
          Value grown = s.add(x[1], s.constant(1, i64));
          Value doubled = s.select(s.equal(grown, s.constant(interval, i64)),
                                   s.mul(x[0], s.constant(2.0)), x[0]);
          return s.select(s.greater(x[2], s.constant(0.0)),
                          s.mul(x[0], s.constant(0.5)), doubled);
        },
        Combine::None, masterType);
    nextGrowthTracker = b.einsum(
        ",->", {tracker, skip},
        [&](Scalar &s, ValueRange x) {
          Value grown = s.add(x[0], s.constant(1, i64));
          Value zero = s.constant(0, i64);
          Value wrapped =
              s.select(s.equal(grown, s.constant(interval, i64)), zero, grown);
          return s.select(s.greater(x[1], s.constant(0.0)), zero, wrapped);
        },
        Combine::None, i64);
  }

  // The updated master weights are state; the parameters are them rounded.
  if (options.masterWeights)
    for (unsigned h : order) {
      newStates[h].insert(newStates[h].begin(), newParams[h]);
      newParams[h] = b.convertElements(newParams[h], computeType);
    }
  SmallVector<Value> results;
  results.append(newParams);
  for (SmallVector<Value> &states : newStates)
    results.append(states);
  if (nextStep)
    results.push_back(nextStep);
  if (nextLossScale) {
    results.push_back(nextLossScale);
    results.push_back(nextGrowthTracker);
  }
  results.push_back(b.convertElements(loss, masterType));
  if (options.returnGradients)
    results.append(gradients);
  func::ReturnOp::create(builder, function.getLoc(), results);
  builder.setListener(nullptr);
}
