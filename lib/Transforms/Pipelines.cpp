//===- Pipelines.cpp - dist's pass pipelines ------------------------------===//

#include "dist/Transforms/Pipelines.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::dist;

void dist::buildAutoPartitionPipeline(OpPassManager &pm,
                                      const AutoPartitionOptions &options) {
  // Phase 0: users of upstream MLIR annotate with `shard`; everything after
  // this speaks dist only.
  if (options.importShard)
    pm.addPass(createDistImportShard());
  // Phase 1: the annotated global program must be well formed before
  // propagation reasons about it.
  pm.addPass(createDistVerify(DistVerifyOptions{"global", false}));
  // Phase 2: completion, then partitioning of the completed program.
  pm.addPass(createDistPropagate());
  pm.addPass(createDistPartition());
  // Phase 3: the reshards leave constants and index arithmetic to fold and
  // share; then the per-rank program must be free of annotations.
  if (options.cleanup) {
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // Phase 4 (optional): large reduce-scatters in chunks, then overlap. After
  // cleanup, so that the waits sit before the first uses that remain.
  if (options.chunkMB != 0) // a negative size is the pass's error to report
    pm.addPass(createDistChunkCollectives(
        DistChunkCollectivesOptions{static_cast<double>(options.chunkMB)}));
  if (options.asyncCollectives)
    pm.addPass(createDistMakeAsync());
  pm.addPass(createDistVerify(DistVerifyOptions{"partitioned", false}));
}

void dist::addTosaToLinalgPasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(tosa::createTosaToLinalgNamed());
  pm.addNestedPass<func::FuncOp>(tosa::createTosaToLinalg());
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
  // tosa.apply_scale (what tosa.rescale becomes) too.
  TosaToArithPassOptions toArith;
  toArith.includeApplyRescale = true;
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass(toArith));
}

/// The front of both lowerings, on tensors: the per-rank program's ops as
/// linalg ops.
static void addTensorFront(OpPassManager &pm, bool fuseElementwise,
                           bool gpuFusion = false) {
  // The input is a per-rank program (or one without annotations).
  pm.addPass(createDistVerify(DistVerifyOptions{"partitioned", false}));
  addTosaToLinalgPasses(pm);
  pm.addPass(createDistDecomposeAggregates());
  // arith/math ops on tensors have no bufferization: make them linalg ops.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  // Chains of elementwise ops become one loop nest each.
  if (fuseElementwise)
    pm.addPass(createDistFuseElementwise(
        DistFuseElementwiseOptions{/*multiResult=*/gpuFusion,
                                   /*recompute=*/gpuFusion}));
}

/// Tensors to buffers, freed where they die.
static void addBufferization(OpPassManager &pm, bool updateInPlace) {
  // Unrelated results must not meet in one buffer through a shared init.
  pm.addPass(createDistPrivatizeInits());
  // Next values made in their arguments' buffers (the empty inits of their
  // producers become the arguments).
  if (updateInPlace)
    pm.addPass(createDistUpdateInPlace());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Partitioned loops may yield a fresh tensor (an accumulator whose init
  // value the partitioner replaced by tensor.empty).
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Before deallocation, which would clone a returned argument buffer.
  if (updateInPlace)
    pm.addPass(createDistUpdateInPlaceBuffers());
  bufferization::buildBufferDeallocationPipeline(pm);
  // The deallocation pipeline leaves bufferization.clone/dealloc ops.
  pm.addPass(createConvertBufferizationToMemRefPass());
  // It frees at the end of blocks: a step would hold all its buffers.
  pm.addPass(createDistDeallocAfterLastUse());
}

void dist::buildLowerToLLVMPipeline(OpPassManager &pm,
                                    const LowerToLLVMOptions &options) {
  addTensorFront(pm, options.fuseElementwise);
  // BLAS reads transposed operands in place.
  if (options.blas)
    pm.addPass(createDistFoldTransposes());
  // Matmuls no BLAS takes become register-tiled vector code (not loops).
  DistVectorizeMatmulOptions vectorize;
  vectorize.skipBlasTypes = options.blas;
  pm.addNestedPass<func::FuncOp>(createDistVectorizeMatmul(vectorize));
  addBufferization(pm, options.updateInPlace);
  // Gradients made in their bucket's memory (no packing copies).
  pm.addPass(createDistPlaceBuckets(
      DistPlaceBucketsOptions{options.reportBuckets}));
  if (options.memoryReport)
    pm.addPass(createDistMemoryReport());
  // The user's loads, stores and subviews (and the shapes of linalg ops) are
  // checked here, before linalg becomes loops whose accesses are in bounds by
  // construction and would only cost time.
  if (options.runtimeVerification)
    pm.addPass(createGenerateRuntimeVerificationPass());
  pm.addPass(createDistLowerToRuntime());
  if (options.blas)
    pm.addPass(createDistMatmulToBlas());
  if (options.approximateMath)
    pm.addPass(createDistApproximateMath());
  if (options.vectorizableReductions)
    pm.addPass(createDistVectorizableReductions());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Transfers of 2-D tiles become rows (unrolled), then LLVM vectors.
  pm.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void dist::buildLowerToNVVMPipeline(OpPassManager &pm,
                                    const LowerToNVVMOptions &options) {
  // Each loop nest is a kernel launch: sibling results in one, short shared
  // producers computed where they are read rather than stored.
  addTensorFront(pm, /*fuseElementwise=*/true, /*gpuFusion=*/true);
  // Reductions with few outputs get a thread per chunk, not per output;
  // long rows are left whole for a block each (dist-gpu-block-reductions).
  DistGpuBlockReductionsOptions blockReductions;
  blockReductions.minExtent = options.blockReductionMinExtent;
  blockReductions.minOutputs = options.blockReductionMinOutputs;
  DistSplitReductionsOptions split;
  split.blockMinExtent = blockReductions.minExtent;
  split.blockMinOutputs = blockReductions.minOutputs;
  pm.addPass(createDistSplitReductions(split));
  // The BLAS reads transposed operands in place (cuBLAS: 16-bit too).
  pm.addPass(createDistFoldTransposes(
      DistFoldTransposesOptions{/*mixedPrecision=*/true}));
  addBufferization(pm, options.updateInPlace);
  pm.addPass(createDistPlaceBuckets());
  pm.addPass(createDistLowerToRuntime());
  // f32/f64 contractions to cuBLAS (through dist's CUDA runtime).
  pm.addPass(createDistMatmulToBlas(DistMatmulToBlasOptions{"cublas"}));
  // Compute to kernels: each parallel loop nest tiled by the block size
  // (constant inner bounds with a guard, which the mapping needs), tiles to
  // blocks, iterations to threads; reduction loops stay sequential in a
  // thread.
  // A copy of a strided view is no single transfer: a kernel does it.
  pm.addPass(createDistGpuStridedCopies());
  // A reduction before a parallel dimension would be a host loop of
  // launches.
  pm.addPass(createDistGpuReductionsInside());
  // A block of threads per row of a long row reduction (warp shuffles),
  // with the ops on its rows; after the above, which puts the row last.
  if (options.blockReductionMinExtent != 0)
    pm.addPass(createDistGpuBlockReductions(blockReductions));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createDistGpuSerialKernels());
  // A reduction's output element in a register, not stored every iteration.
  pm.addPass(createDistPromoteAccumulators());
  // Several consecutive elements per thread, 16-byte accesses.
  pm.addPass(createDistGpuVectorizeLoops(
      DistGpuVectorizeLoopsOptions{options.vectorizeMinThreads}));
  // Consecutive threads on consecutive elements (coalesced), a 1-D grid.
  pm.addPass(createDistGpuLinearizeLoops());
  pm.addNestedPass<func::FuncOp>(createParallelLoopTilingPass(
      {options.blockSize}, /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addPass(createConvertParallelLoopToGpuPass());
  // Loop bounds and strides folded to constants inside the kernels: a
  // delinearized index divides by them (by a constant, a multiply and a
  // shift; by a kernel argument, a 64-bit division per element).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createDistGpuMergeKernels());
  pm.addPass(createDistGpuAllocs());
  // One stream per step: kernels, products and collectives queued in order.
  pm.addPass(createDistGpuStreams());
  if (options.emulateKernels)
    pm.addPass(createDistGpuEmulateKernels());
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  nvvm.cubinFormat = options.format;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
}

void dist::registerDistPipelines() {
  PassPipelineRegistration<LowerToNVVMOptions>(
      "dist-lower-to-nvvm",
      "Lower a program on tensors (serial or per-rank) to host code in the "
      "LLVM dialect that launches GPU kernels compiled for NVIDIA GPUs "
      "(gpu.binary), with collectives as calls into dist's runtime",
      buildLowerToNVVMPipeline);
  PassPipelineRegistration<LowerToLLVMOptions>(
      "dist-lower-to-llvm",
      "Lower a program on tensors (serial or per-rank) to the LLVM dialect, "
      "with collectives as calls into dist's runtime",
      buildLowerToLLVMPipeline);
  PassPipelineRegistration<AutoPartitionOptions>(
      "dist-auto-partition",
      "Partition a module annotated with dist or upstream shard into an SPMD "
      "per-rank program (import, verify, propagate, partition, cleanup, "
      "verify)",
      buildAutoPartitionPipeline);
}
