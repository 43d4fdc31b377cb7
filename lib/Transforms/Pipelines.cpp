//===- Pipelines.cpp - dist's pass pipelines ------------------------------===//

#include "dist/Transforms/Pipelines.h"
#include "dist/Transforms/Passes.h"

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
  pm.addPass(createDistVerify(DistVerifyOptions{"partitioned", false}));
}

void dist::registerDistPipelines() {
  PassPipelineRegistration<AutoPartitionOptions>(
      "dist-auto-partition",
      "Partition a module annotated with dist or upstream shard into an SPMD "
      "per-rank program (import, verify, propagate, partition, cleanup, "
      "verify)",
      buildAutoPartitionPipeline);
}
