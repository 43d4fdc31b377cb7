//===- DistGpuMergeKernels.cpp - One gpu.module for the outlined kernels --===//
//
// gpu-kernel-outlining makes a module per kernel, and each module becomes a
// binary of its own: one ptxas run and one module load per kernel. The
// kernels go into one module instead.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPUMERGEKERNELS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

/// The kernel of `module` if it holds nothing else.
static gpu::GPUFuncOp getOnlyKernel(gpu::GPUModuleOp module) {
  Block &body = module.getBodyRegion().front();
  if (!llvm::hasSingleElement(body))
    return nullptr;
  auto kernel = dyn_cast<gpu::GPUFuncOp>(&body.front());
  return kernel && kernel.isKernel() ? kernel : nullptr;
}

namespace {
struct DistGpuMergeKernelsPass
    : public dist::impl::DistGpuMergeKernelsBase<DistGpuMergeKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> mergeable;
    for (auto kernels : module.getOps<gpu::GPUModuleOp>())
      if (getOnlyKernel(kernels) && !kernels.getTargetsAttr())
        mergeable.push_back(kernels);
    if (mergeable.size() < 2)
      return;
    SymbolTable symbols(module);
    OpBuilder builder(mergeable.front());
    auto merged = gpu::GPUModuleOp::create(builder, mergeable.front().getLoc(),
                                           "dist_kernels");
    symbols.insert(merged); // renamed if the name is taken
    if (merged.getBodyRegion().empty())
      merged.getBodyRegion().emplaceBlock();
    Block &mergedBody = merged.getBodyRegion().front();
    // (old module, old kernel) -> new reference.
    DenseMap<std::pair<StringAttr, StringAttr>, SymbolRefAttr> moved;
    for (gpu::GPUModuleOp kernels : mergeable) {
      gpu::GPUFuncOp kernel = getOnlyKernel(kernels);
      StringAttr oldKernel = kernel.getNameAttr();
      // Module names are unique in the parent: unique kernel names here.
      kernel.setName(kernels.getName());
      kernel->moveBefore(&mergedBody, mergedBody.end());
      moved[{kernels.getNameAttr(), oldKernel}] = SymbolRefAttr::get(
          merged.getNameAttr(), {FlatSymbolRefAttr::get(kernel.getNameAttr())});
      kernels.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = moved.find(
          {launch.getKernelModuleName(), launch.getKernelName()});
      if (it != moved.end())
        launch.setKernelAttr(it->second);
    });
  }
};
} // namespace
