//===- dist-step.cpp - Run an exported partitioned step -------------------===//
//
// Runs one rank of a partitioned run that dist-run prepared for another
// machine (dist-run --export-ranks DIR): loads DIR/partitioned.so, a step
// compiled ahead of time (for a GPU, with its kernels inside), takes the
// rank's input blocks from DIR, calls the step for the manifest's steps and
// writes the results where `dist-run --judge DIR` reads them. It needs
// neither LLVM nor MLIR, only dist's runtime libraries (DIR/lib):
//
//   scripts/launch.py -n 4 -- dist-step DIR        # or mpirun -np 4
//
//===----------------------------------------------------------------------===//

#include "dist/Runtime/DistRuntime.h"
#include "dist/Tools/DistRun/StepLoop.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>

using namespace mlir;
using namespace mlir::dist::run;

namespace {

/// The step of the shared object: its packed entry and, per result, the
/// argument the wrapper writes it into (the table ends with -2).
class ExportedStep : public PackedProgram {
public:
  ExportedStep(void (*entry)(void **), const int64_t *resultsInArgs,
               bool onDevice) {
    packedEntry = entry;
    deviceBuffers = onDevice;
    for (const int64_t *p = resultsInArgs; *p != -2; ++p)
      resultsInArguments.push_back(*p);
  }
};

void barrier() {
  int64_t world = dist_world_size(), axis = 0;
  dist_group_t *group = dist_get_group(&world, 1, &axis, 1, /*comm=*/0);
  int32_t token = 0;
  dist_all_reduce(group, &token, 1, DIST_I32, DIST_SUM, /*stream=*/nullptr);
}

int fail(int rank, const std::string &message) {
  std::fprintf(stderr, "dist-step: rank %d: %s\n", rank, message.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  bool synthetic = false, usage = argc < 2;
  int steps = 0; // 0: the manifest's
  for (int next = 1; next < argc - 1 && !usage; ++next) {
    if (!std::strcmp(argv[next], "--synthetic-inputs"))
      synthetic = true;
    else if (!std::strcmp(argv[next], "--steps") && next + 2 < argc &&
             (steps = std::atoi(argv[next + 1])) > 0)
      ++next;
    else
      usage = true;
  }
  bool help = argc == 2 && !std::strcmp(argv[1], "--help");
  if (usage || help) {
    std::fprintf(
        stderr,
        "usage: dist-step [--synthetic-inputs] [--steps N] DIR\n"
        "Runs one rank of the partitioned run dist-run --export-ranks DIR "
        "prepared;\nstart one process per rank (scripts/launch.py -n N, or "
        "mpirun -np N).\n--synthetic-inputs: no input files (a benchmark): "
        "each argument drawn in the\nrange its exported values had.\n"
        "--steps N: run N steps instead of the manifest's (a benchmark).\n");
    return help ? 0 : 2;
  }
  WorkDir dir(argv[argc - 1]);
  llvm::Expected<StepManifest> manifest = readManifest(dir.manifest());
  if (!manifest)
    return fail(-1, llvm::toString(manifest.takeError()));
  if (steps > 0)
    manifest->options.steps = steps;
  dist_init(&argc, &argv);
  int rank = dist_world_rank();
  if (dist_world_size() != manifest->worldSize)
    return fail(rank, "the run was exported for " +
                          std::to_string(manifest->worldSize) +
                          " rank(s), this job has " +
                          std::to_string(dist_world_size()));
  llvm::Expected<StepLoopSpec> spec =
      loadExportedSpec(*manifest, dir, rank, synthetic);
  if (!spec)
    return fail(rank, llvm::toString(spec.takeError()));
  // A GPU step's buffers are allocated through the CUDA runtime library
  // (the step loads it too; found next to dist-step or through its rpath).
  if (manifest->deviceBuffers &&
      !dlopen("libdist_cuda_runtime.so", RTLD_NOW | RTLD_GLOBAL))
    return fail(rank, std::string("the step works on GPU buffers: ") +
                          dlerror());
  void *library = dlopen(dir.sharedObject().c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!library)
    return fail(rank, std::string("cannot load the step: ") + dlerror());
  auto entry =
      reinterpret_cast<void (*)(void **)>(dlsym(library, "dist_step_packed"));
  auto *table = static_cast<const int64_t *>(
      dlsym(library, "dist_step_results_in_arguments"));
  if (!entry || !table)
    return fail(rank, dir.sharedObject() +
                          " is not a step dist-run --export-ranks compiled");
  size_t tableSize = 0;
  while (table[tableSize] != -2)
    ++tableSize;
  if (tableSize != manifest->results.size())
    return fail(rank, dir.sharedObject() + " returns " +
                          std::to_string(tableSize) +
                          " result(s), the manifest names " +
                          std::to_string(manifest->results.size()));
  ExportedStep step(entry, table, manifest->deviceBuffers);
  if (llvm::Error error = runStepLoop(step, dir, rank, /*distributed=*/true,
                                      *spec, manifest->options, barrier))
    return fail(rank, llvm::toString(std::move(error)));
  dist_finalize();
  if (rank == 0)
    std::printf("dist-step: %lld rank(s) ran %d step(s) of %s\n",
                (long long)manifest->worldSize, manifest->options.steps,
                dir.sharedObject().c_str());
  return 0;
}
