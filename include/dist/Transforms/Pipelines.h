//===- Pipelines.h - dist's pass pipelines ----------------------*- C++ -*-===//

#ifndef DIST_TRANSFORMS_PIPELINES_H
#define DIST_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace dist {

struct AutoPartitionOptions : public PassPipelineOptions<AutoPartitionOptions> {
  PassOptions::Option<bool> importShard{
      *this, "import-shard",
      llvm::cl::desc("Convert upstream `shard` annotations to dist first"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> cleanup{
      *this, "cleanup",
      llvm::cl::desc("Canonicalize and CSE the partitioned program"),
      llvm::cl::init(true)};
  PassOptions::Option<double> chunkMB{
      *this, "chunk-mb",
      llvm::cl::desc("Make and reduce-scatter inputs larger than this many MB "
                     "in chunks (dist-chunk-collectives{max-mb}); 0: off"),
      llvm::cl::init(0.0)};
  PassOptions::Option<bool> asyncCollectives{
      *this, "async-collectives",
      llvm::cl::desc("Start every collective async and wait at the first use "
                     "of its result (dist-make-async)"),
      llvm::cl::init(false)};
};

/// import (upstream shard -> dist), verify the global program, propagate,
/// partition, cleanup, chunk large reduce-scatters (optional), make
/// collectives async (optional), verify the per-rank program.
void buildAutoPartitionPipeline(OpPassManager &pm,
                                const AutoPartitionOptions &options);

struct LowerToLLVMOptions : public PassPipelineOptions<LowerToLLVMOptions> {
  PassOptions::Option<bool> blas{
      *this, "blas",
      llvm::cl::desc("Call a BLAS (cblas_sgemm/cblas_dgemm) for f32/f64 "
                     "matmuls and other contractions (link a CBLAS); false "
                     "generates "
                     "register-tiled vector code (dist-vectorize-matmul)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> runtimeVerification{
      *this, "runtime-verification",
      llvm::cl::desc("Check memref accesses at run time "
                     "(generate-runtime-verification after bufferization): "
                     "an out-of-bounds load or store prints the op and its "
                     "location and aborts"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse chains of elementwise linalg.generic ops into one "
                     "loop nest each (dist-fuse-elementwise)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Replace f32 exp, log, tanh and erf by polynomial "
                     "approximations that vectorize (dist-approximate-math)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> vectorizableReductions{
      *this, "vectorizable-reductions",
      llvm::cl::desc("Reorder and flag linalg reductions so that LLVM "
                     "vectorizes them (dist-vectorizable-reductions; sums "
                     "are reassociated)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> reportBuckets{
      *this, "report-buckets",
      llvm::cl::desc("Report, for each gradient bucket, how many of its "
                     "buffers dist-place-buckets made in the bucket's memory "
                     "and the bytes still copied (remarks)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> updateInPlace{
      *this, "update-in-place",
      llvm::cl::desc("Write each result that is the next value of an "
                     "argument of its type (dist.updates) into the "
                     "argument's buffer and drop it from the function's "
                     "results (dist-update-in-place, "
                     "dist-update-in-place-buffers): the caller reads it there"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> memoryReport{
      *this, "memory-report",
      llvm::cl::desc("Report each function's peak bytes live per rank, by "
                     "kind, after bufferization (dist-memory-report)"),
      llvm::cl::init(false)};
};

struct LowerToNVVMOptions : public PassPipelineOptions<LowerToNVVMOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture of the kernels"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features of the kernels (CUDA 13's ptxas needs "
                     "+ptx80 or later for sm_90)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What the kernels become: fatbin (needs the CUDA "
                     "toolkit's ptxas and fatbinary on PATH), bin (cubin) or "
                     "isa (PTX text, no external tool)"),
      llvm::cl::init("fatbin")};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block: each parallel loop is tiled by this "
                     "many iterations, tiles to blocks, iterations to "
                     "threads"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> vectorizeMinThreads{
      *this, "vectorize-min-threads",
      llvm::cl::desc("dist-gpu-vectorize-loops' min-threads: a loop nest "
                     "with a sequential loop inside (a reduction's partial "
                     "sums) takes vectors only when it keeps this many "
                     "threads"),
      llvm::cl::init(65536)};
  PassOptions::Option<bool> updateInPlace{
      *this, "update-in-place",
      llvm::cl::desc("Write each result that is the next value of an "
                     "argument of its type (dist.updates) into the "
                     "argument's device buffer and drop it from the "
                     "function's results, as dist-lower-to-llvm's option "
                     "does: no copy of the parameters and optimizer state "
                     "a step"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> blockReductionMinExtent{
      *this, "block-reduction-min-extent",
      llvm::cl::desc("Row reductions over at least this many elements a row "
                     "(and block-reduction-min-outputs rows) get a block of "
                     "threads a row, combining their partial results with "
                     "warp shuffles (dist-gpu-block-reductions; "
                     "dist-split-reductions leaves those rows whole); 0: "
                     "none"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> blockReductionMinOutputs{
      *this, "block-reduction-min-outputs",
      llvm::cl::desc("dist-gpu-block-reductions' min-outputs: fewer rows "
                     "are left to dist-split-reductions' partial results"),
      llvm::cl::init(1024)};
  PassOptions::Option<bool> emulateKernels{
      *this, "emulate-kernels",
      llvm::cl::desc("Run the kernels on the host, thread by thread "
                     "(dist-gpu-emulate-kernels): no GPU code is compiled; "
                     "for checking the lowering with a driver whose device "
                     "memory the host can address"),
      llvm::cl::init(false)};
};

/// Adds the passes that take TOSA ops to linalg, tensor and arith ops
/// (tosa-to-linalg-named, tosa-to-linalg, tosa-to-tensor, tosa-to-arith, on
/// each function); a program without TOSA is left as it is.
void addTosaToLinalgPasses(OpPassManager &pm);

/// Takes a program on tensors (serial, or the per-rank program of
/// dist-partition) to the LLVM dialect: decompose aggregate linalg ops,
/// elementwise arith/math on tensors to linalg, one-shot bufferize (identity layouts at function boundaries), free
/// buffers, lower collectives to runtime calls, matmuls to BLAS (optional)
/// or to register-tiled vector code, the rest of linalg to loops, and
/// everything to LLVM.
void buildLowerToLLVMPipeline(OpPassManager &pm,
                              const LowerToLLVMOptions &options);

/// Takes the same programs to host code in the LLVM dialect that launches
/// GPU kernels (gpu.binary objects for NVIDIA GPUs): the front of
/// dist-lower-to-llvm up to buffers and runtime calls, then linalg to
/// parallel loops tiled by the block size, mapped to blocks and threads and
/// outlined as kernels, buffers in device memory (dist-gpu-allocs), the
/// step's kernels, products and collectives queued on one stream
/// (dist-gpu-streams), and upstream's gpu-lower-to-nvvm-pipeline.
void buildLowerToNVVMPipeline(OpPassManager &pm,
                              const LowerToNVVMOptions &options);

/// Registers dist-auto-partition, dist-lower-to-llvm and dist-lower-to-nvvm.
void registerDistPipelines();

} // namespace dist
} // namespace mlir

#endif // DIST_TRANSFORMS_PIPELINES_H
