//===- DistGen.h - Training steps of real model shapes ----------*- C++ -*-===//
//
// dist-gen's library: builds one training step (forward, loss, backward,
// optional gradient clipping, optimizer update) of an MLP or a GPT-style
// decoder as a func.func on tensors, with the training-step markings
// (dist.param, dist.grad_of, dist.state_of, dist.role, dist.name/updates)
// and, optionally, the shardings of data and/or Megatron tensor parallelism
// on a declared mesh. The backward pass is written out op by op (no
// autodiff); the numerics are those of PyTorch autograd + torch.optim.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_TOOLS_DISTGEN_DISTGEN_H
#define DIST_TOOLS_DISTGEN_DISTGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir::dist::gen {

enum class OptimizerKind { SGD, Momentum, Adam };

/// Element types of a step. `F32`/`F64`: parameters and compute in that type.
/// `BF16`: f32 master parameters and optimizer state, forward and backward in
/// bf16 (matmuls accumulate in f32). `FP16`: as bf16 with fp16 compute, and
/// dynamic loss scaling (torch.cuda.amp.GradScaler's algorithm, the seeds'
/// AMP): the loss gradient is multiplied by the scale (state), gradients are
/// unscaled in f32 and checked for infinities and NaNs; a step that finds one
/// changes no parameter or optimizer state and halves the scale; after
/// `lossScaleGrowthInterval` steps in a row without one the scale doubles.
enum class Precision { F32, F64, BF16, FP16 };

/// What the model, the optimizer and the parallelism have in common.
struct StepOptions {
  OptimizerKind optimizer = OptimizerKind::Adam;
  Precision precision = Precision::F32;
  /// Learning rate; 0 picks the optimizer's usual default (SGD/momentum 0.01,
  /// Adam 1e-3).
  double learningRate = 0;
  double momentum = 0.9;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  /// Global-norm gradient clipping (torch.nn.utils.clip_grad_norm_).
  std::optional<double> clipGradNorm;
  /// fp16's dynamic loss scaling: the initial scale and the number of steps
  /// without infinities after which it doubles (GradScaler's defaults).
  double initialLossScale = 65536.0;
  int64_t lossScaleGrowthInterval = 2000;
  /// The mesh: name and axes (name, size), major first. Empty: no mesh.
  std::string meshName = "mesh";
  llvm::SmallVector<std::pair<std::string, int64_t>> meshAxes;
  /// Annotations: the batch split over `dataAxis` and/or Megatron tensor
  /// parallelism over `modelAxis` (empty: not used).
  std::string dataAxis, modelAxis;
  /// bf16/fp16 with master weights (DeepSpeed's and Apex O2's mixed
  /// precision, ZeRO's accounting: 2 + 2 + K bytes per parameter): the
  /// parameters are bf16/fp16 arguments and each has an f32 copy,
  /// "<param>.master", as its first optimizer state (starting as a copy of
  /// the parameter, `dist.input_from_param`); the gradients are marked in
  /// bf16/fp16 (what data parallelism and sharding reduce), the optimizer
  /// updates the master copy in f32 and the parameter is the update rounded.
  /// The numbers are those of the default (f32 parameters cast at use).
  bool masterWeights = false;
  /// With master weights: each rank rounds its share of a gradient to the
  /// compute type before the shares are reduced (`dist.round_partials` on
  /// the rounding), so data parallelism and sharding reduce bf16/fp16 (half
  /// the bytes, the ZeRO paper's fp16 reduction). Not bit-for-bit the
  /// serial step: a sum of rounded shares differs from the rounded sum, and
  /// Adam's first update turns a near-zero gradient's sign into a full step.
  /// Off: the shares are reduced in f32 and rounded once (exact).
  bool roundGradientPartials = false;
  /// Also return every gradient (after clipping), named "grad.<param>".
  bool returnGradients = false;
  /// The seed dist-run draws the initial weights and the batch with
  /// (`dist.input_seed` on the module); none: dist-run's own.
  std::optional<uint64_t> seed;
  std::string functionName = "train_step";
};

struct MLPOptions {
  /// Input width, hidden widths, number of classes (at least two entries).
  llvm::SmallVector<int64_t> widths;
  int64_t batch = 32;
};

struct GPTOptions {
  int64_t layers = 2, hidden = 64, heads = 4, seq = 16, vocab = 128,
          batch = 2;
  /// The output head is the token embedding (transposed), as in GPT-2.
  bool tiedHead = false;
};

/// Parses a mesh written `dp=4` or `dp=2,mp=2` into `options.meshAxes`.
LogicalResult parseMesh(llvm::StringRef text, StepOptions &options,
                        std::string &error);

/// Checks the options against each other and the model (axes on the mesh,
/// divisibility, sizes); the message says what is wrong.
LogicalResult verifyOptions(const StepOptions &options,
                            const MLPOptions &model, std::string &error);
LogicalResult verifyOptions(const StepOptions &options,
                            const GPTOptions &model, std::string &error);

/// The module with the mesh (if any) and the step function. The options must
/// have passed verifyOptions.
OwningOpRef<ModuleOp> buildMLPStep(MLIRContext *context,
                                   const StepOptions &options,
                                   const MLPOptions &model);
OwningOpRef<ModuleOp> buildGPTStep(MLIRContext *context,
                                   const StepOptions &options,
                                   const GPTOptions &model);

} // namespace mlir::dist::gen

#endif // DIST_TOOLS_DISTGEN_DISTGEN_H
