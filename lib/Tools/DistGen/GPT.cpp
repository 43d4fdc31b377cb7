//===- GPT.cpp - A GPT-style decoder's training step ----------------------===//
//
//   x = wte[ids] + wpe                              (tokens are rows: [B*S, H])
//   per layer (pre-layernorm, as GPT-2):
//     x = x + proj(attention(ln1(x)))               causal, A heads of H/A,
//                                                   no key bias
//     x = x + fc2(gelu(fc1(ln2(x))))                tanh GELU, 4H inner
//   logits = lnf(x) head        (head = wte^T when tied)
//   loss = mean over tokens of softmax cross-entropy(logits, labels)
//
// Megatron tensor parallelism on a model axis: q/k/v and fc1 column-parallel
// (heads split), proj and fc2 row-parallel, the embedding and the head split
// by vocabulary. The backward pass is written out op by op.
//
//===----------------------------------------------------------------------===//

#include "StepBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::gen;

namespace {

constexpr double kLayerNormEpsilon = 1e-5;

Value addFn(Scalar &s, ValueRange v) { return s.add(v[0], v[1]); }
Value mulFn(Scalar &s, ValueRange v) { return s.mul(v[0], v[1]); }
Value identityFn(Scalar &, ValueRange v) { return v[0]; }

struct Linear {
  unsigned weight;
  std::optional<unsigned> bias;
};

struct LayerNorm {
  unsigned weight, bias;
};

struct DecoderBlock {
  LayerNorm ln1, ln2;
  Linear q, k, v, proj, fc1, fc2;
};

/// What backward needs of one layer's forward.
struct DecoderActivations {
  Value ln1Input, ln1Normalized, ln1Rstd, ln1Output;
  Value q4, k4, v4, probabilities, context;
  Value ln2Normalized, ln2Rstd, ln2Output, fc1Output, geluOutput;
};

class GPTStep {
public:
  GPTStep(TrainingStep &step, const GPTOptions &model)
      : step(step), ops(step.ops()), model(model) {}

  Value linear(Value x, Linear layer) {
    Value y = ops.matmul(x, step.param(layer.weight));
    if (!layer.bias)
      return y;
    return ops.einsum("nk,k->nk", {y, step.param(*layer.bias)}, addFn);
  }

  /// Gradients of the weight and bias; returns the input's gradient.
  Value linearBackward(Value x, Value dy, Linear layer) {
    step.addGradient(layer.weight, ops.matmulTransposedLhs(x, dy));
    if (layer.bias)
      step.addGradient(*layer.bias,
                       ops.einsum("nk->k", {dy}, identityFn, Combine::Sum));
    return ops.matmulTransposedRhs(dy, step.param(layer.weight));
  }

  /// y = (x - mean) * rstd * weight + bias over the last dim.
  Value layerNorm(Value x, LayerNorm norm, Value &normalized, Value &rstd) {
    double inverseWidth = 1.0 / model.hidden;
    Value mean = ops.einsum(
        "nh->n", {x},
        [&](Scalar &s, ValueRange v) {
          return s.mul(v[0], s.constant(inverseWidth));
        },
        Combine::Sum);
    Value variance = ops.einsum(
        "nh,n->n", {x, mean},
        [&](Scalar &s, ValueRange v) {
          Value centered = s.sub(v[0], v[1]);
          return s.mul(s.mul(centered, centered), s.constant(inverseWidth));
        },
        Combine::Sum);
    rstd = ops.einsum("n->n", {variance}, [](Scalar &s, ValueRange v) {
      return s.div(s.constant(1.0),
                   s.sqrt(s.add(v[0], s.constant(kLayerNormEpsilon))));
    });
    normalized = ops.einsum("nh,n,n->nh", {x, mean, rstd},
                            [](Scalar &s, ValueRange v) {
                              return s.mul(s.sub(v[0], v[1]), v[2]);
                            });
    return ops.einsum(
        "nh,h,h->nh",
        {normalized, step.param(norm.weight), step.param(norm.bias)},
        [](Scalar &s, ValueRange v) { return s.add(s.mul(v[0], v[1]), v[2]); });
  }

  Value layerNormBackward(Value dy, Value normalized, Value rstd,
                          LayerNorm norm) {
    double inverseWidth = 1.0 / model.hidden;
    step.addGradient(norm.weight, ops.einsum("nh,nh->h", {dy, normalized},
                                             mulFn, Combine::Sum));
    step.addGradient(norm.bias,
                     ops.einsum("nh->h", {dy}, identityFn, Combine::Sum));
    Value dNormalized =
        ops.einsum("nh,h->nh", {dy, step.param(norm.weight)}, mulFn);
    Value meanGrad = ops.einsum(
        "nh->n", {dNormalized},
        [&](Scalar &s, ValueRange v) {
          return s.mul(v[0], s.constant(inverseWidth));
        },
        Combine::Sum);
    Value meanGradDot = ops.einsum(
        "nh,nh->n", {dNormalized, normalized},
        [&](Scalar &s, ValueRange v) {
          return s.mul(s.mul(v[0], v[1]), s.constant(inverseWidth));
        },
        Combine::Sum);
    return ops.einsum(
        "nh,n,n,nh,n->nh", {dNormalized, meanGrad, meanGradDot, normalized, rstd},
        [](Scalar &s, ValueRange v) {
          Value centered = s.sub(s.sub(v[0], v[1]), s.mul(v[3], v[2]));
          return s.mul(centered, v[4]);
        });
  }

  /// [B*S, H] <-> [B, S, A, H/A].
  Value toHeads(Value x) {
    return ops.expand(x,
                      {model.batch, model.seq, model.heads,
                       model.hidden / model.heads},
                      {{0, 1}, {2, 3}});
  }
  Value fromHeads(Value x) { return ops.collapse(x, {{0, 1}, {2, 3}}); }

  double attentionScale() const {
    return 1.0 / std::sqrt((double)(model.hidden / model.heads));
  }

  Value attention(Value a, DecoderBlock &block, DecoderActivations &saved) {
    double scale = attentionScale();
    saved.q4 = toHeads(linear(a, block.q));
    saved.k4 = toHeads(linear(a, block.k));
    saved.v4 = toHeads(linear(a, block.v));
    Value scores = ops.einsum("biad,bjad->baij", {saved.q4, saved.k4}, mulFn,
                              Combine::Sum);
    // Causal: query i sees keys j <= i.
    Value rowMax = ops.einsum(
        "baij->bai", {scores},
        [&](Scalar &s, ValueRange v) {
          Value visible = s.lessEqualIndex(s.index('j'), s.index('i'));
          return s.select(visible, s.mul(v[0], s.constant(scale)),
                          s.constant(-INFINITY));
        },
        Combine::Max);
    Value exponentials = ops.einsum(
        "baij,bai->baij", {scores, rowMax}, [&](Scalar &s, ValueRange v) {
          Value visible = s.lessEqualIndex(s.index('j'), s.index('i'));
          Value e = s.exp(s.sub(s.mul(v[0], s.constant(scale)), v[1]));
          return s.select(visible, e, s.constant(0.0));
        });
    Value sums =
        ops.einsum("baij->bai", {exponentials}, identityFn, Combine::Sum);
    saved.probabilities = ops.einsum(
        "baij,bai->baij", {exponentials, sums},
        [](Scalar &s, ValueRange v) { return s.div(v[0], v[1]); });
    Value context4 = ops.einsum("baij,bjad->biad",
                                {saved.probabilities, saved.v4}, mulFn,
                                Combine::Sum);
    saved.context = fromHeads(context4);
    return linear(saved.context, block.proj);
  }

  Value attentionBackward(Value dOut, Value a, DecoderBlock &block,
                          DecoderActivations &saved) {
    double scale = attentionScale();
    Value dContext = linearBackward(saved.context, dOut, block.proj);
    Value dContext4 = toHeads(dContext);
    Value dProbabilities = ops.einsum("biad,bjad->baij", {dContext4, saved.v4},
                                      mulFn, Combine::Sum);
    Value dV4 = ops.einsum("baij,biad->bjad",
                           {saved.probabilities, dContext4}, mulFn,
                           Combine::Sum);
    Value rowDot = ops.einsum("baij,baij->bai",
                              {dProbabilities, saved.probabilities}, mulFn,
                              Combine::Sum);
    Value dScores = ops.einsum(
        "baij,baij,bai->baij", {saved.probabilities, dProbabilities, rowDot},
        [&](Scalar &s, ValueRange v) {
          return s.mul(s.mul(v[0], s.sub(v[1], v[2])), s.constant(scale));
        });
    Value dQ4 = ops.einsum("baij,bjad->biad", {dScores, saved.k4}, mulFn,
                           Combine::Sum);
    Value dK4 = ops.einsum("baij,biad->bjad", {dScores, saved.q4}, mulFn,
                           Combine::Sum);
    Value da = linearBackward(a, fromHeads(dV4), block.v);
    da = ops.add(da, linearBackward(a, fromHeads(dK4), block.k));
    return ops.add(da, linearBackward(a, fromHeads(dQ4), block.q));
  }

  /// GELU, tanh approximation (torch's approximate="tanh").
  static Value gelu(Scalar &s, Value x) {
    Value inner = geluInner(s, x);
    return s.mul(s.mul(s.constant(0.5), x),
                 s.add(s.constant(1.0), s.tanh(inner)));
  }
  static Value geluInner(Scalar &s, Value x) {
    Value cube = s.mul(s.mul(x, x), x);
    return s.mul(s.constant(std::sqrt(2.0 / M_PI)),
                 s.add(x, s.mul(s.constant(0.044715), cube)));
  }
  static Value geluDerivative(Scalar &s, Value x) {
    Value t = s.tanh(geluInner(s, x));
    Value one = s.constant(1.0);
    Value innerDerivative =
        s.mul(s.constant(std::sqrt(2.0 / M_PI)),
              s.add(one, s.mul(s.constant(3 * 0.044715), s.mul(x, x))));
    Value left = s.mul(s.constant(0.5), s.add(one, t));
    Value right = s.mul(s.mul(s.constant(0.5), x),
                        s.mul(s.sub(one, s.mul(t, t)), innerDerivative));
    return s.add(left, right);
  }

private:
  TrainingStep &step;
  StepBuilder &ops;
  const GPTOptions &model;
};

} // namespace

OwningOpRef<ModuleOp> gen::buildGPTStep(MLIRContext *context,
                                        const StepOptions &options,
                                        const GPTOptions &model) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(context));
  TrainingStep step(*module, options);
  int64_t h = model.hidden, v = model.vocab;
  // GPT-2's initialization: weights N(0, 0.02), biases 0, layernorm gains 1.
  auto gpt2Init = TrainingStep::Init::normalWithStd(0.02);
  auto zeros = TrainingStep::Init::fill(0.0);
  auto linearParams = [&](const std::string &prefix, int64_t in, int64_t out,
                          bool columnParallel, bool withBias = true) {
    Linear layer;
    layer.weight = step.addParam(prefix + ".weight", {in, out},
                                 columnParallel ? 1 : 0, gpt2Init);
    if (withBias)
      layer.bias = step.addParam(prefix + ".bias", {out},
                                 columnParallel ? 0 : -1, zeros);
    return layer;
  };
  auto normParams = [&](const std::string &prefix) {
    return LayerNorm{step.addParam(prefix + ".weight", {h}, -1,
                                   TrainingStep::Init::fill(1.0)),
                     step.addParam(prefix + ".bias", {h}, -1, zeros)};
  };
  unsigned wte = step.addParam("wte", {v, h}, 0, gpt2Init);
  unsigned wpe = step.addParam("wpe", {model.seq, h}, -1, gpt2Init);
  SmallVector<DecoderBlock> blocks;
  for (int64_t l = 0; l < model.layers; ++l) {
    std::string prefix = "h." + std::to_string(l) + ".";
    DecoderBlock block;
    block.ln1 = normParams(prefix + "ln1");
    block.q = linearParams(prefix + "attn.q", h, h, true);
    // No key bias: softmax ignores a constant per row, so its gradient is
    // zero and only rounding noise would train it (Adam amplifies noise).
    block.k = linearParams(prefix + "attn.k", h, h, true, /*withBias=*/false);
    block.v = linearParams(prefix + "attn.v", h, h, true);
    block.proj = linearParams(prefix + "attn.proj", h, h, false);
    block.ln2 = normParams(prefix + "ln2");
    block.fc1 = linearParams(prefix + "mlp.fc1", h, 4 * h, true);
    block.fc2 = linearParams(prefix + "mlp.fc2", 4 * h, h, false);
    blocks.push_back(block);
  }
  LayerNorm lnf = normParams("lnf");
  std::optional<unsigned> head;
  if (!model.tiedHead)
    head = step.addParam("head.weight", {h, v}, 1, gpt2Init);
  Type i32 = IntegerType::get(context, 32);
  unsigned ids = step.addInput("ids", {model.batch, model.seq}, i32, v);
  unsigned labels = step.addInput("labels", {model.batch, model.seq}, i32, v);
  step.begin();
  GPTStep gpt(step, model);
  StepBuilder &ops = step.ops();

  // Embeddings: the rows of wte the ids name (a partial sum when the
  // vocabulary is split) plus the position embedding. Backward takes wte's
  // gradient as one-hot(ids)^T dx.
  Value tokenIds = ops.collapse(step.input(ids), {{0, 1}});
  Value tokens = ops.expand(ops.gatherRows(step.param(wte), tokenIds),
                            {model.batch, model.seq, h}, {{0, 1}, {2}});
  Value x = ops.collapse(
      ops.einsum("bsh,sh->bsh", {tokens, step.param(wpe)}, addFn),
      {{0, 1}, {2}});

  SmallVector<DecoderActivations> saved(blocks.size());
  for (auto [block, act] : llvm::zip(blocks, saved)) {
    act.ln1Input = x;
    act.ln1Output = gpt.layerNorm(x, block.ln1, act.ln1Normalized, act.ln1Rstd);
    x = ops.add(x, gpt.attention(act.ln1Output, block, act));
    act.ln2Output = gpt.layerNorm(x, block.ln2, act.ln2Normalized, act.ln2Rstd);
    act.fc1Output = gpt.linear(act.ln2Output, block.fc1);
    act.geluOutput = ops.einsum("nk->nk", {act.fc1Output},
                                [](Scalar &s, ValueRange x) {
                                  return GPTStep::gelu(s, x[0]);
                                });
    x = ops.add(x, gpt.linear(act.geluOutput, block.fc2));
  }
  Value finalNormalized, finalRstd;
  Value final = gpt.layerNorm(x, lnf, finalNormalized, finalRstd);
  Value logits = head ? ops.matmul(final, step.param(*head))
                      : ops.matmulTransposedRhs(final, step.param(wte));
  Value labelRows = ops.collapse(step.input(labels), {{0, 1}});
  auto [loss, dLogits] = softmaxCrossEntropy(ops, logits, labelRows, step.lossScale());

  ops.setRole(Role::backward);
  Value dFinal;
  if (head) {
    step.addGradient(*head, ops.matmulTransposedLhs(final, dLogits));
    dFinal = ops.matmulTransposedRhs(dLogits, step.param(*head));
  } else {
    step.addGradient(wte, ops.matmulTransposedLhs(dLogits, final));
    dFinal = ops.matmul(dLogits, step.param(wte));
  }
  Value dx = gpt.layerNormBackward(dFinal, finalNormalized, finalRstd, lnf);
  for (int64_t l = model.layers - 1; l >= 0; --l) {
    DecoderBlock &block = blocks[l];
    DecoderActivations &act = saved[l];
    Value dGelu = gpt.linearBackward(act.geluOutput, dx, block.fc2);
    Value dFc1 = ops.einsum("nk,nk->nk", {dGelu, act.fc1Output},
                            [](Scalar &s, ValueRange x) {
                              return s.mul(x[0],
                                           GPTStep::geluDerivative(s, x[1]));
                            });
    Value dLn2 = gpt.linearBackward(act.ln2Output, dFc1, block.fc1);
    dx = ops.add(dx, gpt.layerNormBackward(dLn2, act.ln2Normalized,
                                           act.ln2Rstd, block.ln2));
    Value dLn1 = gpt.attentionBackward(dx, act.ln1Output, block, act);
    dx = ops.add(dx, gpt.layerNormBackward(dLn1, act.ln1Normalized,
                                           act.ln1Rstd, block.ln1));
  }
  Value dx3 = ops.expand(dx, {model.batch, model.seq, h}, {{0, 1}, {2}});
  step.addGradient(wpe,
                   ops.einsum("bsh->sh", {dx3}, identityFn, Combine::Sum));
  Value oneHot = ops.einsum(
      "n->nv", {tokenIds},
      [](Scalar &s, ValueRange x) {
        Value hit = s.equalIndex(s.index('v'), s.toIndex(x[0]));
        return s.select(hit, s.constant(1.0), s.constant(0.0));
      },
      Combine::None, {}, {{'v', v}});
  step.addGradient(wte, ops.matmulTransposedLhs(oneHot, dx));
  step.finish(loss);
  return module;
}
