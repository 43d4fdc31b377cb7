//===- InitAllDist.cpp - Register dist's dialects and passes --------------===//

#include "dist/InitAllDist.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"
#include "dist/Dialect/Dist/Transforms/BufferizableOpInterfaceImpl.h"
#include "dist/Extensions/ShardingRules.h"
#include "dist/Transforms/Passes.h"
#include "dist/Transforms/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

void mlir::dist::registerAllDistDialects(DialectRegistry &registry) {
  registry.insert<DistDialect>();
  registerAllDistExtensions(registry);
  registerBufferizableOpInterfaceExternalModels(registry);
  // dist-lower-to-nvvm serializes kernels (gpu-module-to-binary): the NVVM
  // target and the translations of what the kernels are written in.
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  // gpu.binary's #gpu.select_object embeds the kernels in the host module.
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void mlir::dist::registerAllDistPasses() {
  registerDistPasses();
  registerDistPipelines();
}
