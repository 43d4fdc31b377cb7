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
  PassOptions::Option<bool> asyncCollectives{
      *this, "async-collectives",
      llvm::cl::desc("Start every collective async and wait at the first use "
                     "of its result (dist-make-async)"),
      llvm::cl::init(false)};
};

/// import (upstream shard -> dist), verify the global program, propagate,
/// partition, cleanup, make collectives async (optional), verify the per-rank
/// program.
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
  PassOptions::Option<bool> memoryReport{
      *this, "memory-report",
      llvm::cl::desc("Report each function's peak bytes live per rank, by "
                     "kind, after bufferization (dist-memory-report)"),
      llvm::cl::init(false)};
};

/// Takes a program on tensors (serial, or the per-rank program of
/// dist-partition) to the LLVM dialect: decompose aggregate linalg ops,
/// elementwise arith/math on tensors to linalg, one-shot bufferize (identity layouts at function boundaries), free
/// buffers, lower collectives to runtime calls, matmuls to BLAS (optional)
/// or to register-tiled vector code, the rest of linalg to loops, and
/// everything to LLVM.
/// Adds the passes that take TOSA ops to linalg, tensor and arith ops
/// (tosa-to-linalg-named, tosa-to-linalg, tosa-to-tensor, tosa-to-arith, on
/// each function); a program without TOSA is left as it is.
void addTosaToLinalgPasses(OpPassManager &pm);

void buildLowerToLLVMPipeline(OpPassManager &pm,
                              const LowerToLLVMOptions &options);

/// Registers dist-auto-partition and dist-lower-to-llvm.
void registerDistPipelines();

} // namespace dist
} // namespace mlir

#endif // DIST_TRANSFORMS_PIPELINES_H
