//===- StepLoop.cpp - Calling a compiled step N times ---------------------===//

#include "dist/Tools/DistRun/StepLoop.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <sstream>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::run;
using hostdata::HostArray;

llvm::Error run::runStepLoop(PackedProgram &step, const WorkDir &dir, int run,
                             bool distributed, StepLoopSpec &spec,
                             const StepLoopOptions &options,
                             const std::function<void()> &barrier) {
  std::vector<HostValue> argValues, &resultValues = spec.results;
  for (auto [i, samples] : llvm::enumerate(spec.argSamples))
    argValues.push_back({samples.front(), (bool)spec.argIsScalar[i]});
  std::string error;
  if (failed(step.bind(argValues, resultValues, error)))
    return llvm::createStringError(error);
  bool exchange = false;
  for (auto [i, arg] : llvm::enumerate(spec.updates))
    exchange |= arg >= 0 && !spec.feedsInPlace[i];
  // An argument fed by a result of its own layout takes that result's buffer
  // (no copy); the others get their values again before every step, since
  // the entry may write its arguments.
  SmallVector<bool> fedBack(argValues.size(), false);
  for (auto [i, arg] : llvm::enumerate(spec.updates))
    if (arg >= 0 && spec.feedsInPlace[i])
      fedBack[arg] = true;
  for (auto [i, arg] : llvm::enumerate(argValues))
    step.setArgument(i, arg);
  // The time of a step is the compiled step's: copies between the files and
  // the buffers are not part of training.
  std::vector<double> seconds;
  for (int stepNumber = 1; stepNumber <= options.steps; ++stepNumber) {
    auto start = std::chrono::steady_clock::now();
    step.invoke();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
    bool last = stepNumber == options.steps;
    bool corrupt = distributed && run == options.corruptRank &&
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
                writeArray(dir.result(i, stepNumber, run), result.array))
          return error;
    }
    if (last)
      break;
    // A GPU profile leaves out the first step, which loads code.
    if (stepNumber == 1)
      step.restartDeviceProfile("step 2");
    // Every rank's blocks of this step are written (files of later steps
    // have other names, so nothing needs to wait for the reads).
    if (exchange)
      barrier();
    for (auto [i, samples] : llvm::enumerate(spec.argSamples))
      if (samples.size() > 1)
        argValues[i].array = samples[stepNumber % samples.size()];
    for (auto [i, arg] : llvm::enumerate(spec.updates)) {
      if (arg < 0)
        continue;
      if (spec.feedsInPlace[i]) {
        step.feedResultToArgument(i, arg);
        continue;
      }
      if (llvm::Error error =
              spec.exchange(i, arg, stepNumber, argValues[arg].array))
        return error;
    }
    for (auto [i, arg] : llvm::enumerate(argValues))
      if (!fedBack[i])
        step.setArgument(i, arg);
  }
  return writeTimes(dir.times(run), seconds);
}

//===----------------------------------------------------------------------===//
// The manifest of an exported run
//===----------------------------------------------------------------------===//

static void writeValue(llvm::raw_ostream &os, StringRef kind, size_t index,
                       const StepManifest::Value &value) {
  os << kind << " " << index << " " << hostdata::name(value.dtype) << " "
     << (value.isScalar ? 1 : 0) << " " << value.updates << " "
     << llvm::format("%.17g %.17g", value.low, value.high) << " "
     << value.shape.size();
  for (int64_t size : value.shape)
    os << " " << size;
  os << "\n";
}

llvm::Error run::writeManifest(StringRef path, const StepManifest &manifest) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError("cannot write " + path + ": " +
                                   ec.message());
  const StepLoopOptions &o = manifest.options;
  os << "dist-step 1\nsteps " << o.steps << "\nevery-step "
     << (o.resultsOfEveryStep ? 1 : 0) << "\ncorrupt " << o.corruptRank << " "
     << o.corruptStep << "\nworld " << manifest.worldSize << "\ndevice "
     << (manifest.deviceBuffers ? 1 : 0) << "\n";
  for (auto [i, value] : llvm::enumerate(manifest.args))
    writeValue(os, "arg", i, value);
  for (auto [i, value] : llvm::enumerate(manifest.results))
    writeValue(os, "result", i, value);
  return llvm::Error::success();
}

llvm::Expected<StepManifest> run::readManifest(StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return llvm::createStringError("cannot read " + path + ": " +
                                   file.getError().message());
  std::istringstream in((*file)->getBuffer().str());
  auto bad = [&](const Twine &why) {
    return llvm::createStringError(path + ": " + why);
  };
  std::string word;
  int version = 0;
  if (!(in >> word >> version) || word != "dist-step" || version != 1)
    return bad("not a dist-step manifest (version 1)");
  StepManifest manifest;
  StepLoopOptions &o = manifest.options;
  int everyStep = 1;
  while (in >> word) {
    if (word == "steps") {
      in >> o.steps;
    } else if (word == "every-step") {
      in >> everyStep;
    } else if (word == "corrupt") {
      in >> o.corruptRank >> o.corruptStep;
    } else if (word == "world") {
      in >> manifest.worldSize;
    } else if (word == "device") {
      int device = 0;
      in >> device;
      manifest.deviceBuffers = device;
    } else if (word == "arg" || word == "result") {
      size_t index = 0, rank = 0;
      std::string dtype;
      int scalar = 0;
      StepManifest::Value value;
      in >> index >> dtype >> scalar >> value.updates >> value.low >>
          value.high >> rank;
      std::optional<hostdata::DType> parsed;
      for (int d = 0; d <= (int)hostdata::DType::Index; ++d)
        if (dtype == hostdata::name((hostdata::DType)d))
          parsed = (hostdata::DType)d;
      if (!in || !parsed || rank > 64)
        return bad("bad " + word + " line");
      value.dtype = *parsed;
      value.isScalar = scalar;
      value.shape.resize(rank);
      for (int64_t &size : value.shape)
        in >> size;
      std::vector<StepManifest::Value> &list =
          word == "arg" ? manifest.args : manifest.results;
      if (!in || index != list.size())
        return bad("bad " + word + " line");
      list.push_back(std::move(value));
    } else {
      return bad("unknown entry '" + word + "'");
    }
    if (!in)
      return bad("bad '" + word + "' line");
  }
  o.resultsOfEveryStep = everyStep;
  if (o.steps < 1 || manifest.worldSize < 1)
    return bad("needs steps and a world size of at least 1");
  auto check = [&](const StepManifest::Value &value,
                   const Twine &what) -> llvm::Error {
    int64_t elements = 1;
    for (int64_t size : value.shape) {
      if (size < 0 || (size && elements > (int64_t(1) << 40) / size))
        return bad(what + " has a bad shape");
      elements *= size;
    }
    if (value.isScalar && !value.shape.empty())
      return bad(what + " is a scalar with a shape");
    if (!std::isfinite(value.low) || !std::isfinite(value.high) ||
        value.low > value.high)
      return bad(what + " has a bad range");
    return llvm::Error::success();
  };
  for (auto [i, arg] : llvm::enumerate(manifest.args))
    if (llvm::Error error = check(arg, "argument " + Twine(i)))
      return std::move(error);
  for (auto [i, result] : llvm::enumerate(manifest.results)) {
    if (llvm::Error error = check(result, "result " + Twine(i)))
      return std::move(error);
    if (result.isScalar)
      return bad("result " + Twine(i) + " is a scalar (results are buffers)");
    if (result.updates < -1 || result.updates >= (int64_t)manifest.args.size())
      return bad("result " + Twine(i) + " feeds argument " +
                 Twine(result.updates) + " of " +
                 Twine(manifest.args.size()));
    if (result.updates >= 0) {
      const StepManifest::Value &arg = manifest.args[result.updates];
      if (arg.dtype != result.dtype ||
          (arg.isScalar ? !result.shape.empty() : arg.shape != result.shape))
        return bad("result " + Twine(i) + " feeds argument " +
                   Twine(result.updates) + " of another type");
    }
  }
  return manifest;
}

llvm::Expected<StepLoopSpec>
run::loadExportedSpec(const StepManifest &manifest, const WorkDir &dir,
                      int run, bool synthetic) {
  StepLoopSpec spec;
  std::mt19937_64 generator(1000003ull * (uint64_t)(run + 1));
  for (auto [i, arg] : llvm::enumerate(manifest.args)) {
    std::vector<HostArray> samples;
    if (synthetic) {
      HostArray value(arg.dtype, arg.shape);
      bool isFloat = hostdata::isFloat(arg.dtype);
      std::uniform_real_distribution<double> real(arg.low, arg.high);
      // Within what an i64 holds (the manifest's doubles may round past it).
      auto clamp = [](double v) {
        return (int64_t)std::clamp(v, -9.2e18, 9.2e18);
      };
      std::uniform_int_distribution<int64_t> integer(clamp(arg.low),
                                                     clamp(arg.high));
      for (int64_t e = 0, n = value.numElements(); e < n; ++e) {
        if (arg.low == arg.high)
          value.set(e, arg.low);
        else if (isFloat)
          value.set(e, real(generator));
        else
          value.setInt(e, integer(generator));
      }
      samples.push_back(std::move(value));
    } else if (llvm::Error error =
                   readArrays(dir.block(i, run),
                              HostArray(arg.dtype, arg.shape), samples)) {
      return std::move(error);
    }
    spec.argSamples.push_back(std::move(samples));
    spec.argIsScalar.push_back(arg.isScalar);
  }
  for (const StepManifest::Value &result : manifest.results) {
    spec.results.push_back({HostArray(result.dtype, result.shape),
                            result.isScalar});
    spec.updates.push_back(result.updates);
    spec.feedsInPlace.push_back(true);
  }
  spec.exchange = [](unsigned, unsigned, int, HostArray &) {
    return llvm::createStringError(
        "an exported run cannot exchange blocks between ranks");
  };
  return spec;
}
