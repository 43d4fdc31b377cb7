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
};

/// import (upstream shard -> dist), verify the global program, propagate,
/// partition, cleanup, verify the per-rank program.
void buildAutoPartitionPipeline(OpPassManager &pm,
                                const AutoPartitionOptions &options);

/// Registers dist-auto-partition.
void registerDistPipelines();

} // namespace dist
} // namespace mlir

#endif // DIST_TRANSFORMS_PIPELINES_H
