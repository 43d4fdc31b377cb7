//===- MLP.cpp - A multi-layer perceptron classifier's training step ------===//
//
//   z_i = a_i W_i + b_i,  a_{i+1} = relu(z_i),  logits = z_last
//   loss = mean over the batch of softmax cross-entropy(logits, labels)
//
// With a model axis, layers alternate column- and row-parallel (Megatron):
// W_0 split by columns (and b_0), W_1 by rows, W_2 by columns, ...
//
//===----------------------------------------------------------------------===//

#include "StepBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::gen;

OwningOpRef<ModuleOp> gen::buildMLPStep(MLIRContext *context,
                                        const StepOptions &options,
                                        const MLPOptions &model) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(context));
  TrainingStep step(*module, options);
  int64_t layers = model.widths.size() - 1;
  SmallVector<unsigned> weights, biases;
  for (int64_t i = 0; i < layers; ++i) {
    bool columnParallel = i % 2 == 0;
    std::string prefix = "fc" + std::to_string(i);
    // LeCun's initialization (variance 1 / fan-in), biases 0: activations
    // keep their scale through deep stacks.
    weights.push_back(step.addParam(
        prefix + ".weight", {model.widths[i], model.widths[i + 1]},
        columnParallel ? 1 : 0,
        TrainingStep::Init::normalWithStd(1.0 / std::sqrt(model.widths[i]))));
    biases.push_back(step.addParam(prefix + ".bias", {model.widths[i + 1]},
                                   columnParallel ? 0 : -1,
                                   TrainingStep::Init::fill(0.0)));
  }
  unsigned x = step.addInput("x", {model.batch, model.widths.front()});
  unsigned labels =
      step.addInput("labels", {model.batch},
                    IntegerType::get(context, 32), model.widths.back());
  step.begin();
  StepBuilder &ops = step.ops();

  // Forward: keep every layer's input and pre-activation for backward.
  SmallVector<Value> layerInputs, preActivations;
  Value activation = step.input(x);
  for (int64_t i = 0; i < layers; ++i) {
    layerInputs.push_back(activation);
    Value z = ops.matmul(activation, step.param(weights[i]));
    z = ops.einsum("nk,k->nk", {z, step.param(biases[i])},
                   [](Scalar &s, ValueRange v) { return s.add(v[0], v[1]); });
    preActivations.push_back(z);
    if (i + 1 < layers)
      activation = ops.einsum("nk->nk", {z}, [](Scalar &s, ValueRange v) {
        return s.max(v[0], s.constant(0.0));
      });
  }
  auto [loss, dz] =
      softmaxCrossEntropy(ops, preActivations.back(), step.input(labels),
                          step.lossScale());

  // Backward, last layer first.
  ops.setRole(Role::backward);
  for (int64_t i = layers - 1; i >= 0; --i) {
    step.addGradient(weights[i], ops.matmulTransposedLhs(layerInputs[i], dz));
    step.addGradient(biases[i],
                     ops.einsum("nk->k", {dz},
                                [](Scalar &, ValueRange v) { return v[0]; },
                                Combine::Sum));
    if (i == 0)
      break;
    Value da = ops.matmulTransposedRhs(dz, step.param(weights[i]));
    dz = ops.einsum("nk,nk->nk", {da, preActivations[i - 1]},
                    [](Scalar &s, ValueRange v) {
                      Value positive = s.greater(v[1], s.constant(0.0));
                      return s.select(positive, v[0], s.constant(0.0));
                    });
  }
  step.finish(loss);
  return module;
}
