//===- Steps.cpp - One run of a program over N steps ----------------------===//

#include "dist/Tools/DistRun/Steps.h"
#include "dist/Tools/DistRun/StepLoop.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"

#include <cmath>
#include <limits>

#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::run;
using hostdata::HostArray;

meshmath::Shape run::getRunMeshShape(ModuleOp module, int64_t ranks) {
  for (MeshOp mesh : module.getOps<MeshOp>())
    return getMeshShape(mesh);
  return {ranks};
}

namespace {
/// One argument or result of the entry as a run sees it.
struct Boundary {
  HostValue value;
  meshmath::Layout layout;
  meshmath::Shape globalShape;
};
} // namespace

/// The boundary value of type `type`, with its layout and global shape.
static FailureOr<Boundary> describe(ModuleOp module, func::FuncOp entry,
                                    Type type, DictionaryAttr attrs,
                                    const meshmath::Shape &meshShape,
                                    const Twine &what) {
  FailureOr<BoundaryType> local =
      describeBoundary(type, entry.getLoc(), what);
  if (failed(local))
    return failure();
  Boundary boundary;
  boundary.value = {local->makeArray(), local->isScalar};
  boundary.layout = getBoundaryLayout(module, attrs, local->shape.size());
  boundary.globalShape = local->shape;
  for (auto [d, axes] : llvm::enumerate(boundary.layout.dims))
    boundary.globalShape[d] = meshmath::globalDimSize(
        boundary.globalShape[d], meshmath::groupSize(meshShape, axes),
        meshmath::haloOf(boundary.layout.halos, d));
  // Padded blocks: the partitioner wrote the global shape down.
  if (auto shape = attrs ? attrs.getAs<DenseI64ArrayAttr>(
                               DistDialect::getGlobalShapeAttrName())
                         : DenseI64ArrayAttr();
      shape && (size_t)shape.size() == boundary.globalShape.size())
    boundary.globalShape.assign(shape.asArrayRef().begin(),
                                shape.asArrayRef().end());
  return boundary;
}

/// Every step allocates and frees the same buffers. By default glibc hands
/// large ones back to the system (mmap'd chunks, a trimmed heap top), and
/// the next step page-faults them in again: a GPT step spent a quarter of
/// its time there (214 -> 163 ms). Keep freed memory in the process.
static void keepFreedMemory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

static llvm::Error failedAt(const Twine &what, std::string error) {
  return llvm::createStringError(what + ": " + error);
}

namespace {
/// What a run of a program passes and gets back, read before lowering
/// rewrites the module.
struct RunSignature {
  SmallVector<int64_t> updates;
  meshmath::Shape meshShape;
  std::vector<Boundary> args, results;

  /// Whether argument `arg` keeps result `result`'s block when fed by it.
  bool keepsBlock(int64_t result, int64_t arg, bool distributed) const {
    return !distributed ||
           (args[arg].layout == results[result].layout &&
            args[arg].value.array.shape() == results[result].value.array.shape());
  }
};
} // namespace

static llvm::Error describeRun(ModuleOp module, const WorkDir &dir, int run,
                               int64_t worldSize, RunSignature &signature) {
  func::FuncOp entry = getWrappedEntry(module);
  if (!entry)
    return llvm::createStringError(
        dir.program(run) + " has no @" + kWrapperName +
        " calling the entry; --worker runs what dist-run wrote");
  signature.updates = getUpdatedArguments(entry);
  signature.meshShape = getRunMeshShape(module, run >= 0 ? worldSize : 1);
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    FailureOr<Boundary> arg =
        describe(module, entry, type, entry.getArgAttrDict(i),
                 signature.meshShape, "argument " + Twine(i));
    if (failed(arg))
      return llvm::createStringError("unsupported argument");
    signature.args.push_back(std::move(*arg));
  }
  // The results, from the wrapper's output buffers.
  auto wrapper = module.lookupSymbol<func::FuncOp>(kWrapperName);
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
    FailureOr<Boundary> result = describe(
        module, entry, wrapper.getArgumentTypes()[entry.getNumArguments() + i],
        entry.getResultAttrDict(i), signature.meshShape, "result " + Twine(i));
    if (failed(result))
      return llvm::createStringError("unsupported result");
    signature.results.push_back(std::move(*result));
  }
  return llvm::Error::success();
}

/// `run`'s blocks of every argument's inputs: its values of every step (an
/// input file may hold a value per step, a dataset: step s takes value
/// (s - 1) mod count). A run and its perturbed run share a program, not
/// their inputs.
static llvm::Error loadBlocks(RunSignature &signature, const WorkDir &dir,
                              int run, bool distributed,
                              std::vector<std::vector<HostArray>> &samples) {
  samples.clear();
  for (auto [i, arg] : llvm::enumerate(signature.args)) {
    std::vector<HostArray> globals;
    if (llvm::Error error = readArrays(
            dir.arg(i, run),
            HostArray(arg.value.array.dtype(), arg.globalShape), globals))
      return error;
    std::vector<HostArray> blocks;
    for (HostArray &global : globals) {
      std::string error;
      std::optional<HostArray> block =
          distributed ? hostdata::shardBlock(global, arg.layout,
                                             signature.meshShape, run, error)
                      : std::optional<HostArray>(std::move(global));
      if (!block)
        return failedAt("argument " + Twine(i), error);
      blocks.push_back(std::move(*block));
    }
    arg.value.array = blocks.front();
    samples.push_back(std::move(blocks));
  }
  return llvm::Error::success();
}

llvm::Error run::exportRanks(ModuleOp module, const WorkDir &dir,
                             int64_t worldSize, const StepOptions &options) {
  RunSignature signature;
  if (llvm::Error error = describeRun(module, dir, 0, worldSize, signature))
    return error;
  StepManifest manifest;
  manifest.worldSize = worldSize;
  manifest.deviceBuffers = options.compile.gpu;
  manifest.options.steps = options.steps;
  manifest.options.corruptRank = options.corruptRank;
  manifest.options.corruptStep = options.corruptStep;
  manifest.options.resultsOfEveryStep = options.resultsOfEveryStep;
  // Rank 0's blocks also give the manifest each argument's range.
  std::vector<std::vector<HostArray>> rank0;
  for (int64_t r = 0; r < worldSize; ++r) {
    std::vector<std::vector<HostArray>> samples;
    if (llvm::Error error = loadBlocks(signature, dir, r, true, samples))
      return error;
    for (auto [i, blocks] : llvm::enumerate(samples))
      if (llvm::Error error = writeArrays(dir.block(i, r), blocks))
        return error;
    if (r == 0)
      rank0 = std::move(samples);
  }
  for (auto [i, arg] : llvm::enumerate(signature.args)) {
    StepManifest::Value value{arg.value.array.dtype(), arg.value.array.shape(),
                              arg.value.isScalar, -1};
    // The finite values' range (an infinite mask entry stays out of it).
    const HostArray &first = rank0[i].front();
    bool any = false;
    for (int64_t e = 0, n = first.numElements(); e < n; ++e) {
      double v = first.get(e);
      if (!std::isfinite(v))
        continue;
      value.low = any ? std::min(value.low, v) : v;
      value.high = any ? std::max(value.high, v) : v;
      any = true;
    }
    manifest.args.push_back(std::move(value));
  }
  for (auto [i, result] : llvm::enumerate(signature.results)) {
    int64_t arg = signature.updates[i];
    // One step feeds nothing back.
    if (options.steps == 1)
      arg = -1;
    if (arg >= 0 && !signature.keepsBlock(i, arg, true))
      return llvm::createStringError(
          "result " + Twine(i) + " feeds argument " + Twine(arg) +
          " with another layout: the ranks would exchange blocks between "
          "steps, which an exported run (dist-step) does not do");
    manifest.results.push_back({result.value.array.dtype(),
                                result.value.array.shape(),
                                result.value.isScalar, arg});
  }
  return writeManifest(dir.manifest(), manifest);
}

llvm::Error run::runSteps(ModuleOp module, const WorkDir &dir, int run,
                          int64_t worldSize, const StepOptions &options,
                          const std::function<void()> &barrier) {
  bool distributed = run >= 0;
  RunSignature signature;
  if (llvm::Error error = describeRun(module, dir, run, worldSize, signature))
    return error;
  std::vector<std::vector<HostArray>> argSamples;
  if (llvm::Error error = loadBlocks(signature, dir, run, distributed,
                                     argSamples))
    return error;
  std::vector<Boundary> &args = signature.args, &results = signature.results;
  const meshmath::Shape &meshShape = signature.meshShape;
  SmallVector<int64_t> &updates = signature.updates;
  auto keepsBlock = [&](int64_t result, int64_t arg) {
    return signature.keepsBlock(result, arg, distributed);
  };
  auto loadInputs = [&](int thisRun) {
    return loadBlocks(signature, dir, thisRun, distributed, argSamples);
  };

  keepFreedMemory();
  std::string error;
  FailureOr<std::unique_ptr<CompiledProgram>> program =
      CompiledProgram::compile(module, options.compile, error);
  if (failed(program))
    return llvm::createStringError(error);

  CompiledProgram &step = **program;
  StepLoopOptions loopOptions;
  loopOptions.steps = options.steps;
  loopOptions.corruptRank = options.corruptRank;
  loopOptions.corruptStep = options.corruptStep;
  loopOptions.resultsOfEveryStep = options.resultsOfEveryStep;
  // The serial and the reference run also run their program on the
  // perturbed inputs, if asked: one compilation for both.
  SmallVector<int, 2> runs = {run};
  if (run == kSerialRun && options.perturbedRun)
    runs.push_back(kPerturbedRun);
  if (run == kReferenceRun && options.perturbedRun)
    runs.push_back(kPerturbedReferenceRun);
  auto runOne = [&](int thisRun) -> llvm::Error {
    if (thisRun != run)
      if (llvm::Error error = loadInputs(thisRun))
        return error;
    StepLoopSpec spec;
    spec.argSamples = argSamples;
    for (Boundary &arg : args)
      spec.argIsScalar.push_back(arg.value.isScalar);
    for (Boundary &result : results)
      spec.results.push_back(result.value);
    spec.updates = updates;
    for (auto [i, arg] : llvm::enumerate(updates))
      spec.feedsInPlace.push_back(arg >= 0 && keepsBlock(i, arg));
    spec.exchange = [&](unsigned i, unsigned arg, int stepNumber,
                        HostArray &value) -> llvm::Error {
      std::vector<HostArray> blocks;
      for (int64_t r = 0, n = meshmath::numDevices(meshShape); r < n; ++r) {
        blocks.push_back(results[i].value.array);
        if (llvm::Error error =
                readArray(dir.result(i, stepNumber, r), blocks.back()))
          return error;
      }
      std::optional<std::vector<HostArray>> global = hostdata::assembleBlocks(
          blocks, results[i].globalShape, results[i].layout, meshShape, error);
      std::optional<HostArray> block;
      if (global)
        block = hostdata::shardBlock(global->front(), args[arg].layout,
                                     meshShape, thisRun, error);
      if (!block)
        return failedAt("result " + Twine(i) + " fed to argument " + Twine(arg),
                        error);
      value = std::move(*block);
      return llvm::Error::success();
    };
    return runStepLoop(step, dir, thisRun, distributed, spec, loopOptions,
                       barrier);
  };
  for (int thisRun : runs)
    if (llvm::Error error = runOne(thisRun))
      return thisRun != run
                 ? llvm::createStringError(
                       "on the inputs moved by one ulp (the perturbed run; "
                       "--perturbed-reference=false skips it): " +
                       llvm::toString(std::move(error)))
                 : std::move(error);
  return llvm::Error::success();
}
