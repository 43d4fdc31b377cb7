//===- dist-gen.cpp - Write training steps of real model shapes -----------===//
//
//   dist-gen mlp --widths 784,256,10 --batch 32 --optimizer adam
//   dist-gen gpt --layers 2 --hidden 256 --heads 4 --seq 128 --vocab 1024 \
//       --batch 16 --mesh dp=2,mp=2 --parallel dp,mp
//
// Prints one training step (forward, loss, backward, optimizer) as MLIR. The
// models live in the DistGen library; this is its command line.
//
//===----------------------------------------------------------------------===//

#include "dist/Tools/DistGen/DistGen.h"
#include "dist/InitAllDist.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "mlir/Support/FileUtilities.h"

using namespace mlir;
using namespace mlir::dist::gen;
namespace cl = llvm::cl;

static cl::OptionCategory genCategory("dist-gen options");
static cl::opt<std::string> modelName(cl::Positional, cl::Required,
                                      cl::desc("<mlp|gpt>"),
                                      cl::cat(genCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Output file (default: stdout)"),
                                       cl::init("-"), cl::cat(genCategory));
// Model shapes.
static cl::opt<std::string> widths("widths",
                                   cl::desc("mlp: widths of the input, the hidden layers and the classes, e.g. 784,256,10"),
                                   cl::cat(genCategory));
static cl::opt<int64_t> batch("batch", cl::desc("Global batch size (sequences for gpt)"),
                              cl::init(-1), cl::cat(genCategory));
static cl::opt<int64_t> layers("layers", cl::desc("gpt: decoder layers"),
                               cl::init(2), cl::cat(genCategory));
static cl::opt<int64_t> hidden("hidden", cl::desc("gpt: hidden size"),
                               cl::init(64), cl::cat(genCategory));
static cl::opt<int64_t> heads("heads", cl::desc("gpt: attention heads"),
                              cl::init(4), cl::cat(genCategory));
static cl::opt<int64_t> seq("seq", cl::desc("gpt: sequence length"),
                            cl::init(16), cl::cat(genCategory));
static cl::opt<int64_t> vocab("vocab", cl::desc("gpt: vocabulary size"),
                              cl::init(128), cl::cat(genCategory));
static cl::opt<bool> tiedHead("tied-head",
                              cl::desc("gpt: the output head is the token embedding"),
                              cl::init(false), cl::cat(genCategory));
// Training.
static cl::opt<std::string> optimizer("optimizer", cl::desc("sgd, momentum or adam"),
                                      cl::init("adam"), cl::cat(genCategory));
static cl::opt<std::string> dtype("dtype",
                                  cl::desc("f32, f64, bf16 (f32 master weights) or fp16 (f32 master weights, dynamic loss scaling)"),
                                  cl::init("f32"), cl::cat(genCategory));
static cl::opt<bool> masterWeights(
    "master-weights",
    cl::desc("bf16/fp16: bf16/fp16 parameters with f32 master copies in the "
             "optimizer state, gradients reduced in bf16/fp16 (DeepSpeed's "
             "mixed precision) instead of f32 parameters cast at use"),
    cl::init(false), cl::cat(genCategory));
static cl::opt<bool> roundGradientPartials(
    "round-gradient-partials",
    cl::desc("With --master-weights: each rank rounds its share of a gradient "
             "to bf16/fp16, so gradients are reduced in bf16/fp16 (half the "
             "bytes; not bit-for-bit the serial step) instead of in f32"),
    cl::init(false), cl::cat(genCategory));
static cl::opt<double> learningRate("lr",
                                    cl::desc("Learning rate (default 1e-3 for adam, 0.01 otherwise)"),
                                    cl::init(0), cl::cat(genCategory));
static cl::opt<double> momentum("momentum", cl::desc("momentum: the momentum"),
                                cl::init(0.9), cl::cat(genCategory));
static cl::opt<double> beta1("beta1", cl::desc("adam: beta1"), cl::init(0.9),
                             cl::cat(genCategory));
static cl::opt<double> beta2("beta2", cl::desc("adam: beta2"), cl::init(0.999),
                             cl::cat(genCategory));
static cl::opt<double> epsilon("eps", cl::desc("adam: epsilon"), cl::init(1e-8),
                               cl::cat(genCategory));
static cl::opt<double> clipGradNorm("clip-grad-norm",
                                    cl::desc("Clip the global gradient norm to this value"),
                                    cl::init(0), cl::cat(genCategory));
static cl::opt<double> lossScale(
    "loss-scale",
    cl::desc("fp16: the initial loss scale (default 65536, as PyTorch's GradScaler)"),
    cl::init(65536.0), cl::cat(genCategory));
static cl::opt<int64_t> lossScaleGrowthInterval(
    "loss-scale-growth-interval",
    cl::desc("fp16: steps in a row with finite gradients after which the "
             "loss scale doubles (default 2000)"),
    cl::init(2000), cl::cat(genCategory));
static cl::opt<unsigned long long> seed(
    "seed",
    cl::desc("Seed of the initial weights and the batch that dist-run draws "
             "(the module's dist.input_seed; weights from their declared "
             "distributions: N(0, 0.02) for GPT, N(0, 1/fan-in) for the MLP)"),
    cl::cat(genCategory));
static cl::opt<bool> returnGradients("return-gradients",
                                     cl::desc("Also return every gradient (after clipping)"),
                                     cl::init(false), cl::cat(genCategory));
static cl::opt<std::string> functionName("function", cl::desc("Name of the step function"),
                                         cl::init("train_step"), cl::cat(genCategory));
// Parallelism.
static cl::opt<std::string> mesh("mesh", cl::desc("The mesh's axes, e.g. dp=4 or dp=2,mp=2"),
                                 cl::cat(genCategory));
static cl::opt<std::string> meshName("mesh-name", cl::desc("Name of the mesh"),
                                     cl::init("mesh"), cl::cat(genCategory));
static cl::opt<std::string> parallel("parallel",
                                     cl::desc("Annotations: dp (batch split), mp (Megatron), or dp,mp"),
                                     cl::cat(genCategory));
static cl::opt<std::string> dpAxis("dp-axis", cl::desc("Mesh axis of data parallelism"),
                                   cl::init("dp"), cl::cat(genCategory));
static cl::opt<std::string> mpAxis("mp-axis", cl::desc("Mesh axis of tensor parallelism"),
                                   cl::init("mp"), cl::cat(genCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "dist-gen: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(genCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "dist-gen: write a training step (forward, backward, optimizer) of an MLP or a GPT-style decoder\n");

  StepOptions options;
  if (optimizer == "sgd")
    options.optimizer = OptimizerKind::SGD;
  else if (optimizer == "momentum")
    options.optimizer = OptimizerKind::Momentum;
  else if (optimizer == "adam")
    options.optimizer = OptimizerKind::Adam;
  else
    return fail("--optimizer: expected sgd, momentum or adam, got '" +
                optimizer + "'");
  if (dtype == "f32")
    options.precision = Precision::F32;
  else if (dtype == "f64")
    options.precision = Precision::F64;
  else if (dtype == "bf16")
    options.precision = Precision::BF16;
  else if (dtype == "fp16")
    options.precision = Precision::FP16;
  else
    return fail("--dtype: expected f32, f64, bf16 or fp16, got '" + dtype +
                "'");
  if ((lossScale.getNumOccurrences() ||
       lossScaleGrowthInterval.getNumOccurrences()) &&
      options.precision != Precision::FP16)
    return fail("--loss-scale and --loss-scale-growth-interval apply to "
                "--dtype fp16 only");
  if (masterWeights && options.precision != Precision::BF16 &&
      options.precision != Precision::FP16)
    return fail("--master-weights applies to --dtype bf16 and fp16 only");
  options.masterWeights = masterWeights;
  if (roundGradientPartials && !masterWeights)
    return fail("--round-gradient-partials applies with --master-weights only");
  options.roundGradientPartials = roundGradientPartials;
  options.initialLossScale = lossScale;
  options.lossScaleGrowthInterval = lossScaleGrowthInterval;
  options.learningRate = learningRate;
  options.momentum = momentum;
  options.beta1 = beta1;
  options.beta2 = beta2;
  options.epsilon = epsilon;
  if (clipGradNorm.getNumOccurrences())
    options.clipGradNorm = clipGradNorm;
  if (seed.getNumOccurrences())
    options.seed = seed;
  options.returnGradients = returnGradients;
  options.functionName = functionName;
  options.meshName = meshName;
  std::string error;
  if (!mesh.empty() && failed(parseMesh(mesh, options, error)))
    return fail(error);
  SmallVector<StringRef> kinds;
  StringRef(parallel).split(kinds, ',', -1, /*KeepEmpty=*/false);
  for (StringRef kind : kinds) {
    if (kind.trim() == "dp")
      options.dataAxis = dpAxis;
    else if (kind.trim() == "mp")
      options.modelAxis = mpAxis;
    else
      return fail("--parallel: expected dp, mp or dp,mp, got '" + parallel +
                  "'");
  }

  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect,
                  linalg::LinalgDialect, math::MathDialect,
                  tensor::TensorDialect>();
  dist::registerAllDistDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  OwningOpRef<ModuleOp> module;
  if (modelName == "mlp") {
    MLPOptions model;
    model.batch = batch < 0 ? 32 : batch;
    SmallVector<StringRef> parts;
    StringRef(widths).split(parts, ',', -1, /*KeepEmpty=*/false);
    for (StringRef part : parts) {
      int64_t width;
      if (part.trim().getAsInteger(10, width))
        return fail("--widths: expected integers separated by commas, got '" +
                    widths + "'");
      model.widths.push_back(width);
    }
    if (failed(verifyOptions(options, model, error)))
      return fail(error);
    module = buildMLPStep(&context, options, model);
  } else if (modelName == "gpt") {
    GPTOptions model;
    model.layers = layers;
    model.hidden = hidden;
    model.heads = heads;
    model.seq = seq;
    model.vocab = vocab;
    model.batch = batch < 0 ? 2 : batch;
    model.tiedHead = tiedHead;
    if (failed(verifyOptions(options, model, error)))
      return fail(error);
    module = buildGPTStep(&context, options, model);
  } else {
    return fail("unknown model '" + modelName + "' (expected mlp or gpt)");
  }
  if (failed(verify(*module)))
    return fail("the generated step does not verify (a bug in dist-gen)");

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFile, &error);
  if (!output)
    return fail(error);
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
