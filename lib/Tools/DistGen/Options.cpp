//===- Options.cpp - dist-gen's options, parsed and checked ---------------===//

#include "dist/Tools/DistGen/DistGen.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::gen;

LogicalResult gen::parseMesh(StringRef text, StepOptions &options,
                             std::string &error) {
  options.meshAxes.clear();
  SmallVector<StringRef> axes;
  text.split(axes, ',');
  for (StringRef axis : axes) {
    auto [nameText, sizeText] = axis.trim().split('=');
    StringRef name = nameText.trim();
    int64_t size = 0;
    if (name.empty() || sizeText.trim().getAsInteger(10, size) || size < 1) {
      error = llvm::formatv("--mesh: expected NAME=SIZE (a size >= 1) for "
                            "each axis, got '{0}'",
                            axis.trim());
      return failure();
    }
    if (llvm::any_of(options.meshAxes,
                     [&](const auto &other) { return other.first == name; })) {
      error = llvm::formatv("--mesh: axis '{0}' appears twice", name);
      return failure();
    }
    options.meshAxes.push_back({name.str(), size});
  }
  return success();
}

static std::optional<int64_t> axisSize(const StepOptions &options,
                                       StringRef axis) {
  for (const auto &[name, size] : options.meshAxes)
    if (name == axis)
      return size;
  return std::nullopt;
}

/// Checks the parallelism axes and the dims they split: `dataDims` are split
/// over the data axis, `modelDims` over the model axis (name, size).
static LogicalResult
verifyParallelism(const StepOptions &options,
                  ArrayRef<std::pair<std::string, int64_t>> dataDims,
                  ArrayRef<std::pair<std::string, int64_t>> modelDims,
                  std::string &error) {
  auto check = [&](StringRef option, StringRef axis,
                   ArrayRef<std::pair<std::string, int64_t>> dims) {
    if (axis.empty())
      return success();
    std::optional<int64_t> size = axisSize(options, axis);
    if (!size) {
      error = llvm::formatv("{0}: axis '{1}' is not on the mesh (--mesh {2})",
                            option, axis,
                            options.meshAxes.empty() ? "not given" : "has " +
                                llvm::join(llvm::map_range(options.meshAxes,
                                                           [](const auto &a) {
                                                             return a.first;
                                                           }),
                                           ", "));
      return failure();
    }
    for (const auto &[what, extent] : dims)
      if (extent % *size != 0) {
        error = llvm::formatv("{0}: {1} = {2} is not divisible by the size {3} "
                              "of mesh axis '{4}'",
                              option, what, extent, *size, axis);
        return failure();
      }
    return success();
  };
  if (!options.dataAxis.empty() && options.dataAxis == options.modelAxis) {
    error = "--parallel: data and model parallelism need different axes";
    return failure();
  }
  return success(succeeded(check("data parallelism", options.dataAxis,
                                 dataDims)) &&
                 succeeded(check("tensor parallelism", options.modelAxis,
                                 modelDims)));
}

static LogicalResult verifyCommon(const StepOptions &options,
                                  std::string &error) {
  if (options.learningRate < 0) {
    error = "--lr must be positive";
    return failure();
  }
  if (options.clipGradNorm && *options.clipGradNorm <= 0) {
    error = "--clip-grad-norm must be positive";
    return failure();
  }
  if (!(options.initialLossScale > 0) || std::isinf(options.initialLossScale)) {
    error = "--loss-scale must be positive and finite";
    return failure();
  }
  if (options.lossScaleGrowthInterval < 1) {
    error = "--loss-scale-growth-interval must be at least 1";
    return failure();
  }
  return success();
}

LogicalResult gen::verifyOptions(const StepOptions &options,
                                 const MLPOptions &model, std::string &error) {
  if (failed(verifyCommon(options, error)))
    return failure();
  if (model.widths.size() < 2) {
    error = "--widths needs at least two widths (inputs and classes)";
    return failure();
  }
  if (model.batch < 1 || llvm::any_of(model.widths, [](int64_t w) {
        return w < 1;
      })) {
    error = "--widths and --batch must be positive";
    return failure();
  }
  // A batch or tensor-parallel widths that the axis does not divide are
  // split into padded blocks by the partitioner.
  return verifyParallelism(options, {}, {}, error);
}

LogicalResult gen::verifyOptions(const StepOptions &options,
                                 const GPTOptions &model, std::string &error) {
  if (failed(verifyCommon(options, error)))
    return failure();
  if (model.layers < 1 || model.hidden < 1 || model.heads < 1 ||
      model.seq < 1 || model.vocab < 1 || model.batch < 1) {
    error = "--layers, --hidden, --heads, --seq, --vocab and --batch must be "
            "positive";
    return failure();
  }
  if (model.hidden % model.heads != 0) {
    error = llvm::formatv("--hidden {0} is not divisible by --heads {1}",
                          model.hidden, model.heads);
    return failure();
  }
  // A batch or a vocabulary that the axis does not divide is split into
  // padded blocks;
  // the heads are merged with the head size in the hidden dim, which is
  // split by heads only evenly.
  return verifyParallelism(options, {}, {{"--heads", model.heads}}, error);
}
