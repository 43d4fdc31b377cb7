//===- Steps.cpp - One run of a program over N steps ----------------------===//

#include "dist/Tools/DistRun/Steps.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"

#include <chrono>
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

llvm::Error run::runSteps(ModuleOp module, const WorkDir &dir, int run,
                          int64_t worldSize, const StepOptions &options,
                          const std::function<void()> &barrier) {
  func::FuncOp entry = getWrappedEntry(module);
  if (!entry)
    return llvm::createStringError(
        dir.program(run) + " has no @" + kWrapperName +
        " calling the entry; --worker runs what dist-run wrote");
  bool distributed = run >= 0;
  // Everything the steps need is read before lowering rewrites the module.
  SmallVector<int64_t> updates = getUpdatedArguments(entry);
  meshmath::Shape meshShape =
      getRunMeshShape(module, distributed ? worldSize : 1);
  std::vector<Boundary> args, results;
  // An argument's input file may hold a value per step (a dataset): step s
  // takes value (s - 1) mod count. This run's blocks of them.
  std::vector<std::vector<HostArray>> argSamples;
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    FailureOr<Boundary> arg =
        describe(module, entry, type, entry.getArgAttrDict(i), meshShape,
                 "argument " + Twine(i));
    if (failed(arg))
      return llvm::createStringError("unsupported argument");
    args.push_back(std::move(*arg));
  }
  // The inputs of `thisRun` (a run and its perturbed run share a program,
  // not their inputs).
  auto loadInputs = [&](int thisRun) -> llvm::Error {
    argSamples.clear();
    for (auto [i, arg] : llvm::enumerate(args)) {
      std::vector<HostArray> globals;
      if (llvm::Error error = readArrays(
              dir.arg(i, thisRun),
              HostArray(arg.value.array.dtype(), arg.globalShape), globals))
        return error;
      std::vector<HostArray> blocks;
      for (HostArray &global : globals) {
        std::string error;
        std::optional<HostArray> block =
            distributed ? hostdata::shardBlock(global, arg.layout, meshShape,
                                               thisRun, error)
                        : std::optional<HostArray>(std::move(global));
        if (!block)
          return failedAt("argument " + Twine(i), error);
        blocks.push_back(std::move(*block));
      }
      arg.value.array = blocks.front();
      argSamples.push_back(std::move(blocks));
    }
    return llvm::Error::success();
  };
  if (llvm::Error error = loadInputs(run))
    return error;
  // The results, from the wrapper's output buffers.
  auto wrapper = module.lookupSymbol<func::FuncOp>(kWrapperName);
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
    FailureOr<Boundary> result = describe(
        module, entry, wrapper.getArgumentTypes()[entry.getNumArguments() + i],
        entry.getResultAttrDict(i), meshShape, "result " + Twine(i));
    if (failed(result))
      return llvm::createStringError("unsupported result");
    results.push_back(std::move(*result));
  }
  auto keepsBlock = [&](int64_t result, int64_t arg) {
    return !distributed ||
           (args[arg].layout == results[result].layout &&
            args[arg].value.array.shape() == results[result].value.array.shape());
  };
  bool exchange = false;
  for (auto [i, arg] : llvm::enumerate(updates))
    exchange |= arg >= 0 && !keepsBlock(i, arg);

  keepFreedMemory();
  std::string error;
  FailureOr<std::unique_ptr<CompiledProgram>> program =
      CompiledProgram::compile(module, options.compile, error);
  if (failed(program))
    return llvm::createStringError(error);

  std::vector<HostValue> argValues, resultValues;
  for (Boundary &result : results)
    resultValues.push_back(result.value);
  CompiledProgram &step = **program;
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
    argValues.clear();
    for (Boundary &arg : args)
      argValues.push_back(arg.value);
    if (failed(step.bind(argValues, resultValues, error)))
      return llvm::createStringError(error);
    // An argument fed by a result of its own layout takes that result's buffer
    // (no copy); the others get their values again before every step, since
    // the entry may write its arguments.
    SmallVector<bool> fedBack(args.size(), false);
    for (auto [i, arg] : llvm::enumerate(updates))
      if (arg >= 0 && keepsBlock(i, arg))
        fedBack[arg] = true;
    for (auto [i, arg] : llvm::enumerate(argValues))
      step.setArgument(i, arg);
    // The time of a step is the compiled step's: copies between dist-thisRun's
    // files and the buffers are not part of training.
    std::vector<double> seconds;
    for (int stepNumber = 1; stepNumber <= options.steps; ++stepNumber) {
      auto start = std::chrono::steady_clock::now();
      step.invoke();
      seconds.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count());
      bool last = stepNumber == options.steps;
      bool corrupt = distributed && thisRun == options.corruptRank &&
                     stepNumber == options.corruptStep && !resultValues.empty() &&
                     resultValues.front().array.numElements() > 0;
      if (options.resultsOfEveryStep || last || exchange || corrupt) {
        for (auto [i, result] : llvm::enumerate(resultValues))
          step.getResult(i, result.array);
        if (corrupt) {
          // Adding 1 is lost on a true i1 or a saturated integer: subtract.
          HostArray &first = resultValues.front().array;
          double before = first.get(0);
          first.set(0, before + 1.0);
          if (first.get(0) == before)
            first.set(0, before - 1.0);
          step.setResult(0, first);
        }
        for (auto [i, result] : llvm::enumerate(resultValues))
          if (llvm::Error error =
                  writeArray(dir.result(i, stepNumber, thisRun), result.array))
            return error;
      }
      if (last)
        break;
      // Every rank's blocks of this step are written (files of later steps
      // have other names, so nothing needs to wait for the reads).
      if (exchange)
        barrier();
      for (auto [i, samples] : llvm::enumerate(argSamples))
        if (samples.size() > 1)
          argValues[i].array = samples[stepNumber % samples.size()];
      for (auto [i, arg] : llvm::enumerate(updates)) {
        if (arg < 0)
          continue;
        if (keepsBlock(i, arg)) {
          step.feedResultToArgument(i, arg);
          continue;
        }
        std::vector<HostArray> blocks;
        for (int64_t r = 0, n = meshmath::numDevices(meshShape); r < n; ++r) {
          blocks.push_back(resultValues[i].array);
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
        argValues[arg].array = std::move(*block);
      }
      for (auto [i, arg] : llvm::enumerate(argValues))
        if (!fedBack[i])
          step.setArgument(i, arg);
    }
    return writeTimes(dir.times(thisRun), seconds);
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
