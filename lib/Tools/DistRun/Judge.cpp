//===- Judge.cpp - Whether the runs of a program agree --------------------===//

#include "dist/Tools/DistRun/Judge.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Tools/DistRun/Steps.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::run;
using hostdata::HostArray;

FailureOr<std::vector<ResultSpec>>
run::describeResults(func::FuncOp serial, func::FuncOp partitioned,
                     ModuleOp partitionedModule) {
  std::vector<ResultSpec> specs;
  for (auto [i, type] : llvm::enumerate(serial.getResultTypes())) {
    ResultSpec &spec = specs.emplace_back();
    llvm::raw_string_ostream(spec.typeText) << type;
    FailureOr<BoundaryType> global =
        describeBoundary(type, serial.getLoc(), "result " + Twine(i));
    FailureOr<BoundaryType> local =
        describeBoundary(partitioned.getResultTypes()[i],
                         partitioned.getLoc(), "result " + Twine(i));
    if (failed(global) || failed(local))
      return failure();
    spec.global = *global;
    spec.local = *local;
    DictionaryAttr attrs = partitioned.getResultAttrDict(i);
    Attribute sharding =
        attrs ? attrs.get(DistDialect::getPartitionedAsAttrName())
              : Attribute();
    if (sharding)
      llvm::raw_string_ostream(spec.layoutText) << sharding;
    else
      spec.layoutText = "replicated";
    spec.layout =
        getBoundaryLayout(partitionedModule, attrs, local->shape.size());
  }
  return specs;
}

llvm::Expected<bool> run::judgeResult(const WorkDir &dir, int64_t index,
                                      int step, const ResultSpec &spec,
                                      const meshmath::Shape &meshShape,
                                      const hostdata::Tolerance &tolerance,
                                      const hostdata::ReferenceRule &rule,
                                      raw_ostream &os) {
  HostArray serial = spec.global.makeArray();
  if (llvm::Error error = readArray(dir.result(index, step, kSerialRun), serial))
    return std::move(error);
  std::vector<HostArray> blocks;
  for (int64_t r = 0, n = meshmath::numDevices(meshShape); r < n; ++r) {
    blocks.push_back(spec.local.makeArray());
    if (llvm::Error error = readArray(dir.result(index, step, r), blocks.back()))
      return std::move(error);
  }
  std::string error;
  std::optional<std::vector<HostArray>> replicas = hostdata::assembleBlocks(
      blocks, spec.global.shape, spec.layout, meshShape, error);
  if (!replicas)
    return llvm::createStringError("result " + Twine(index) + ": " + error);
  hostdata::ElementwiseResult vsSerial =
      hostdata::compareElementwise(serial, replicas->front(), tolerance);
  os << llvm::formatv("result #{0} {1} {2}: ", index, spec.typeText,
                      spec.layoutText);
  bool pass;
  if (spec.useReference) {
    HostArray reference(spec.referenceType, spec.global.shape);
    if (llvm::Error error =
            readArray(dir.result(index, step, kReferenceRun), reference))
      return std::move(error);
    std::optional<hostdata::PerturbedSample> perturbed;
    if (spec.usePerturbed) {
      perturbed.emplace(hostdata::PerturbedSample{
          spec.global.makeArray(),
          HostArray(spec.referenceType, spec.global.shape)});
      if (llvm::Error error = readArray(
              dir.result(index, step, kPerturbedRun), perturbed->serial))
        return std::move(error);
      if (llvm::Error error =
              readArray(dir.result(index, step, kPerturbedReferenceRun),
                        perturbed->reference))
        return std::move(error);
    }
    hostdata::ReferenceResult verdict = hostdata::judgeAgainstReference(
        reference, serial, *replicas, perturbed ? &*perturbed : nullptr,
        rule);
    os << llvm::formatv(
        "max abs err {0:e2} vs serial; error vs f64 reference: distributed "
        "{1:e2}, serial {2:e2}",
        vsSerial.maxAbs, verdict.distributedError, verdict.serialError);
    if (perturbed)
      os << llvm::formatv(", serial on perturbed inputs {0:e2}",
                          verdict.perturbedError);
    os << llvm::formatv(" (allowed {0:e2})", verdict.allowed);
    if (verdict.specialMismatches)
      os << ", " << verdict.specialMismatches
         << " elements are NaN or infinite in one run only";
    pass = verdict.pass;
  } else {
    int64_t replicaMismatch = 0;
    for (const HostArray &replica : *replicas)
      replicaMismatch +=
          hostdata::compareElementwise(replicas->front(), replica, tolerance)
              .mismatches;
    os << llvm::formatv("max abs err {0:e2}, max rel err {1:e2}",
                        vsSerial.maxAbs, vsSerial.maxRel);
    if (vsSerial.mismatches)
      os << ", " << vsSerial.mismatches << " of " << serial.numElements()
         << " elements differ";
    if (replicaMismatch)
      os << ", " << replicaMismatch << " elements differ between replicas";
    pass = vsSerial.mismatches == 0 && replicaMismatch == 0;
  }
  os << (pass ? ": PASS\n" : ": FAIL\n");
  return pass;
}
