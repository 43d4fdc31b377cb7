//===- dist-run.cpp - Run a program serially and on N ranks, and compare --===//
//
// dist-run [--ranks N] [--entry NAME] [--mesh NAME=AxB] [--steps N] FILE
//
// The driver: it builds the serial program, its f64-widened reference and
// the partitioned program (dist/Tools/DistRun), writes them and the inputs
// to a work directory, runs the serial and reference programs in a child
// process each and the partitioned one on N MPI ranks (this tool in worker
// mode), then rebuilds every result from the ranks' blocks and judges it
// (dist/Support: HostArray, Verdict) after every step. It exits non-zero on
// any mismatch or failure.
//
//===----------------------------------------------------------------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"
#include "dist/InitAllDist.h"
#include "dist/Runtime/DistRuntime.h"
#include "dist/Support/HostArray.h"
#include "dist/Support/Verdict.h"
#include "dist/Tools/DistRun/Judge.h"
#include "dist/Tools/DistRun/Program.h"
#include "dist/Tools/DistRun/Steps.h"
#include "dist/Tools/DistRun/WorkDir.h"
#include "dist/Transforms/Passes.h"
#include "dist/Transforms/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <random>
#include <thread>
#include <arpa/inet.h>
#include <dlfcn.h>
#include <sstream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::dist;
using hostdata::DType;
using hostdata::HostArray;
using run::BoundaryType;
using run::HostValue;
namespace cl = llvm::cl;

static cl::OptionCategory category("dist-run options");
static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<annotated program>"),
                                          cl::cat(category));
static cl::opt<int> numRanks(
    "ranks",
    cl::desc("Number of MPI processes (default: the devices of the mesh)"),
    cl::init(0), cl::cat(category));
static cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the only public one)"),
              cl::cat(category));
static cl::list<std::string> meshOverrides(
    "mesh",
    cl::desc("Reshape a mesh before partitioning: NAME=2x4 (or 2x4 when the "
             "module has one mesh); the axis count must stay the same"),
    cl::cat(category));
static cl::list<std::string> inputFiles(
    "input",
    cl::desc("INDEX=FILE: raw little-endian data (global shape, row-major) "
             "for argument INDEX instead of random values; a file of n "
             "values gives step s value (s - 1) mod n (a dataset)"),
    cl::cat(category));
static cl::opt<unsigned> seed("seed",
                              cl::desc("Seed of the random inputs (default: "
                                       "the module's dist.input_seed, or 1)"),
                              cl::init(1), cl::cat(category));
static cl::opt<int> numSteps(
    "steps",
    cl::desc("Run the entry N times, feeding each result marked "
             "dist.updates = I back into argument I (or into the argument of "
             "its dist.name; the others get their inputs again); compare "
             "after every step"),
    cl::init(1), cl::cat(category));
static cl::opt<bool> showTime(
    "time",
    cl::desc("Print each rank's wall time per step (min / median / max), "
             "serial and distributed"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> strict(
    "strict",
    cl::desc("Compare every result elementwise with the serial run "
             "(--rtol/--atol) instead of judging f16/bf16/f32 results against "
             "an f64 reference"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> perturbedReference(
    "perturbed-reference",
    cl::desc("Also run the serial program and the f64 reference on inputs "
             "moved by one ulp, and judge the distributed results by the "
             "worse of the two serial errors (one serial run is one sample of "
             "the rounding: results that cancel to almost nothing, as an Adam "
             "update of a near-zero gradient sum, vary more)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> noCompare(
    "no-compare",
    cl::desc("Run the serial program and the ranks and write their results, "
             "but compare nothing (for per-rank passes that change the "
             "numbers on purpose, as dist-local-sgd with k > 1)"),
    cl::init(false), cl::cat(category));
static cl::opt<double> relTolerance(
    "rtol", cl::desc("Relative tolerance of elementwise comparisons"),
    cl::init(1e-4), cl::cat(category));
static cl::opt<double> absTolerance(
    "atol", cl::desc("Absolute tolerance of elementwise comparisons"),
    cl::init(1e-5), cl::cat(category));
static cl::opt<std::string> perRankPasses(
    "per-rank-passes",
    cl::desc("Passes run on the partitioned (per-rank) program before it is "
             "lowered, as a pipeline: e.g. "
             "'dist-fuse-gradients{bucket-mb=1},dist-make-async'"),
    cl::value_desc("pipeline"), cl::cat(category));
static cl::opt<bool> keep("keep",
                          cl::desc("Keep the intermediate IR, object files "
                                   "and data (see --work-dir)"),
                          cl::init(false), cl::cat(category));
static cl::opt<std::string>
    workDirOption("work-dir",
                  cl::desc("Directory for intermediate files (default: a "
                           "new temporary directory)"),
                  cl::cat(category));
static cl::opt<std::string> device(
    "device",
    cl::desc("Where the partitioned program runs: cpu, or gpu (one NVIDIA "
             "GPU per rank: compiled by dist-lower-to-nvvm, collectives "
             "through the nccl backend on more than one rank, compared with "
             "the CPU serial run)"),
    cl::init("cpu"), cl::cat(category));
static cl::opt<bool> emulateGpuKernels(
    "emulate-gpu-kernels",
    cl::desc("With --device=gpu: compile no GPU code and run each kernel on "
             "the host, thread by thread (dist-lower-to-nvvm{emulate-kernels}"
             "); everything else goes through the CUDA driver and cuBLAS as "
             "on a GPU. For checking the GPU lowering on a machine without a "
             "GPU, with the fake driver and cuBLAS of test/Runtime on "
             "LD_LIBRARY_PATH"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> gpuAllowTf32(
    "gpu-allow-tf32",
    cl::desc("With --device=gpu: f32 products may round their inputs to TF32 "
             "on tensor cores (DIST_CUBLAS_TF32=1 for the ranks, as PyTorch's "
             "torch.backends.cuda.matmul.allow_tf32); f32 results are then "
             "judged against the f64 reference with TF32's unit roundoff "
             "(2^-11). With --judge: the exported run ran with "
             "DIST_CUBLAS_TF32=1"),
    cl::init(false), cl::cat(category));
static cl::opt<int64_t> gpuVectorizeMinThreads(
    "gpu-vectorize-min-threads",
    cl::desc("With --device=gpu: a reduction's partial-sum kernel takes "
             "vectors (several consecutive outputs a thread) only when it "
             "keeps this many threads (dist-lower-to-nvvm{vectorize-min-"
             "threads}); 1 vectorizes every one, as small test programs need "
             "to reach that code"),
    cl::init(65536), cl::cat(category));
static cl::opt<int64_t> gpuBlockReductionMinExtent(
    "gpu-block-reduction-min-extent",
    cl::desc("With --device=gpu: row reductions over at least this many "
             "elements a row get a block of threads a row "
             "(dist-lower-to-nvvm{block-reduction-min-extent}); 0: none"),
    cl::init(256), cl::cat(category));
static cl::opt<int64_t> gpuBlockReductionMinOutputs(
    "gpu-block-reduction-min-outputs",
    cl::desc("With --device=gpu: ... and at least this many rows "
             "(dist-lower-to-nvvm{block-reduction-min-outputs}); small test "
             "programs lower both to reach that code"),
    cl::init(1024), cl::cat(category));
static cl::opt<std::string> launcher(
    "launcher",
    cl::desc("How the ranks start: mpirun, tcp (dist-run starts them and "
             "they meet at the tcp backend's store: no MPI needed), or auto "
             "(mpirun when it is found, else tcp)"),
    cl::init("auto"), cl::cat(category));
static cl::opt<std::string> exportRanksDir(
    "export-ranks",
    cl::desc("Prepare the partitioned run for another machine instead of "
             "running it (a GPU machine without LLVM): the serial run runs "
             "here; the directory receives the partitioned program compiled "
             "ahead of time (partitioned.so, its libraries in lib/), each "
             "rank's inputs and a manifest for dist-step; judge its results "
             "with --judge"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> judgeDir(
    "judge",
    cl::desc("Judge the results that dist-step wrote into a directory "
             "prepared by --export-ranks (no program runs)"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<bool> useBlas("blas",
                             cl::desc("Call a BLAS for matmuls when one was "
                                      "found at build time"),
                             cl::init(true), cl::cat(category));
static cl::opt<bool> fuseElementwise(
    "fuse-elementwise",
    cl::desc("Fuse chains of elementwise ops before bufferization "
             "(dist-lower-to-llvm's fuse-elementwise)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> approximateMath(
    "approximate-math",
    cl::desc("Replace f32 exp, log, tanh and erf by polynomial "
             "approximations (dist-lower-to-llvm's approximate-math)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> updateInPlace(
    "update-in-place",
    cl::desc("Update the arguments that results feed back into in place "
             "(the update-in-place of dist-lower-to-llvm, and of "
             "dist-lower-to-nvvm with --device=gpu; the run wrapper keeps "
             "such results in the arguments' buffers)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> vectorizableReductions(
    "vectorizable-reductions",
    cl::desc("Reorder and flag reductions so that LLVM vectorizes them "
             "(dist-lower-to-llvm's vectorizable-reductions)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> debugLines(
    "debug-lines",
    cl::desc("Compile with line tables of the program's MLIR source, so that "
             "gdb or perf attached to a run names the line of the op it is "
             "in (for profiling)"),
    cl::init(false), cl::cat(category));
static cl::opt<unsigned> timeoutSeconds(
    "timeout",
    cl::desc("Seconds before the serial run or the N-rank run is killed "
             "(the runtime's own collective timeout is DIST_TIMEOUT_SECONDS)"),
    cl::init(600), cl::cat(category));
static cl::opt<int> corruptRank(
    "corrupt-rank", cl::Hidden, cl::init(-1),
    cl::desc("Testing: this rank adds 1 to the first element of its first "
             "result (at --corrupt-step), which the comparison must catch"));
static cl::opt<int> corruptStep(
    "corrupt-step", cl::Hidden, cl::init(1),
    cl::desc("Testing: the step at which --corrupt-rank corrupts"));
static cl::opt<std::string> workerDir("worker", cl::Hidden,
                                      cl::desc("Internal: run as one rank"));
static cl::opt<bool> serialWorker(
    "serial", cl::Hidden, cl::init(false),
    cl::desc("Internal: with --worker, run the serial program (no MPI)"));
static cl::opt<bool> perturbedWorker(
    "perturbed-run", cl::Hidden, cl::init(false),
    cl::desc("Internal: with --worker --serial, also run on the perturbed "
             "inputs (the reference too, with --reference)"));
static cl::opt<bool> referenceWorker(
    "reference", cl::Hidden, cl::init(false),
    cl::desc("Internal: with --worker, run the widened reference program"));
static cl::opt<bool> lastResultsOnly(
    "last-results-only", cl::Hidden, cl::init(false),
    cl::desc("Internal: with --worker, write only the last step's results "
             "(nothing compares or keeps the others)"));

//===----------------------------------------------------------------------===//
// Program preparation
//===----------------------------------------------------------------------===//

static void registerEverything(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllDistDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

static LogicalResult applyMeshOverrides(ModuleOp module) {
  SmallVector<MeshOp> meshes = llvm::to_vector(module.getOps<MeshOp>());
  for (StringRef spec : meshOverrides) {
    auto [name, shapeText] = spec.split('=');
    if (shapeText.empty()) {
      if (meshes.size() != 1) {
        llvm::errs() << "dist-run: --mesh " << spec
                     << ": the module has " << meshes.size()
                     << " meshes; write NAME=SHAPE\n";
        return failure();
      }
      shapeText = name;
      name = meshes.front().getSymName();
    }
    auto mesh = module.lookupSymbol<MeshOp>(name);
    if (!mesh) {
      llvm::errs() << "dist-run: --mesh " << spec << ": no mesh @" << name
                   << "\n";
      return failure();
    }
    SmallVector<StringRef> parts;
    shapeText.split(parts, 'x');
    SmallVector<int64_t> shape;
    for (StringRef part : parts) {
      int64_t size;
      if (part.getAsInteger(10, size) || size < 1) {
        llvm::errs() << "dist-run: --mesh " << spec << ": '" << part
                     << "' is no positive size\n";
        return failure();
      }
      shape.push_back(size);
    }
    if ((int64_t)shape.size() != mesh.getRank()) {
      llvm::errs() << "dist-run: --mesh " << spec << ": @" << name << " has "
                   << mesh.getRank() << " axes, the new shape "
                   << shape.size() << "\n";
      return failure();
    }
    mesh.setShape(shape);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Workers: the serial and reference runs, and one rank of the partitioned run
//===----------------------------------------------------------------------===//

static SmallVector<std::string> jitLibraries() {
  SmallVector<std::string> libraries;
#ifdef DIST_C_RUNNER_UTILS_LIBRARY
  libraries.push_back(DIST_C_RUNNER_UTILS_LIBRARY);
#endif
#ifdef DIST_BLAS_LIBRARY
  if (useBlas)
    libraries.push_back(DIST_BLAS_LIBRARY);
#endif
  return libraries;
}

/// Waits until every rank got here.
static void barrier() {
  int64_t world = dist_world_size(), axis = 0;
  dist_group_t *group = dist_get_group(&world, 1, &axis, 1, /*comm=*/0);
  int32_t token = 0;
  dist_all_reduce(group, &token, 1, DIST_I32, DIST_SUM, /*stream=*/nullptr);
}

/// How run `run` compiles and runs its program (a worker's, or an exported
/// partitioned run's).
static run::StepOptions makeStepOptions(int run, bool distributed,
                                        StringRef dirPath) {
  run::StepOptions options;
  options.steps = numSteps;
  options.corruptRank = corruptRank;
  options.corruptStep = corruptStep;
  options.resultsOfEveryStep = !lastResultsOnly;
  options.perturbedRun = perturbedWorker;
#ifdef DIST_BLAS_LIBRARY
  options.compile.blas = useBlas;
#endif
  options.compile.fuseElementwise = fuseElementwise;
  options.compile.vectorizableReductions = vectorizableReductions;
  options.compile.approximateMath = approximateMath;
  options.compile.updateInPlace = updateInPlace;
  options.compile.debugLines = debugLines;
  // The user's loads and stores are checked in the serial run.
  options.compile.runtimeVerification = run == run::kSerialRun;
  options.compile.sharedLibraries = jitLibraries();
#ifdef DIST_CUDA_RUNTIME_LIBRARY
  if (device == "gpu" && distributed) {
    options.compile.gpu = true;
    options.compile.emulateGpuKernels = emulateGpuKernels;
    options.compile.gpuVectorizeMinThreads = gpuVectorizeMinThreads;
    options.compile.gpuBlockReductionMinExtent = gpuBlockReductionMinExtent;
    options.compile.gpuBlockReductionMinOutputs = gpuBlockReductionMinOutputs;
    options.compile.sharedLibraries.push_back(DIST_CUDA_RUNTIME_LIBRARY);
  }
#endif
  if (keep && run <= 0)
    options.compile.objectDump =
        dirPath.str() + "/" +
        (distributed ? "partitioned.rank0" : run::WorkDir::runName(run)) + ".o";
  return options;
}

/// Runs the program of the work directory: one rank of the partitioned
/// program, or (--serial) the serial or (--serial --reference) the
/// reference program in a process of its own, so that a crash or a hang of
/// the program under test is reported, with the --timeout, instead of taking
/// dist-run down.
static int runWorker(MLIRContext &context) {
  // A crash here is the program's, not dist-run's: no LLVM stack dump (the
  // driver reports the signal).
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    std::signal(signal, SIG_DFL);
  bool distributed = !serialWorker;
  if (distributed) {
    dist_init(nullptr, nullptr);
  } else {
    // The program prints only to report a failed runtime check (puts)
    // before it aborts, which would lose a buffered stdout: send it to
    // stderr, unbuffered.
    dup2(STDERR_FILENO, STDOUT_FILENO);
    std::setvbuf(stdout, nullptr, _IONBF, 0);
  }
  int run = !distributed ? (referenceWorker ? run::kReferenceRun
                                            : run::kSerialRun)
                         : dist_world_rank();
  run::WorkDir dir(workerDir);
  auto fail = [&](const Twine &message) {
    llvm::errs() << "dist-run: "
                 << (distributed ? "rank " + Twine(run)
                                 : Twine(run::WorkDir::runName(run)) + " run")
                 << ": " << message << "\n";
    return 1;
  };
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      dir.program(run), sourceMgr, ParserConfig(&context));
  if (!module)
    return fail("cannot parse " + dir.program(run));

  run::StepOptions options = makeStepOptions(run, distributed, dir.str());
  if (llvm::Error error =
          run::runSteps(*module, dir, run, distributed ? dist_world_size() : 1,
                        options, barrier))
    return fail(llvm::toString(std::move(error)));
  if (distributed)
    dist_finalize();
  return 0;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// The first element and the element count of a packed-state member
/// (`dist.state_pool`) in its row-major pool of `columns` columns.
static std::pair<int64_t, int64_t> getPoolMemberExtent(DictionaryAttr member,
                                                       int64_t columns) {
  int64_t begin = member.getAs<IntegerAttr>("owner").getInt() * columns +
                  member.getAs<IntegerAttr>("offset").getInt();
  int64_t count = 1;
  for (int64_t size : member.getAs<DenseI64ArrayAttr>("shape").asArrayRef())
    count *= size;
  return {begin, count};
}

/// The input of argument `i` of `entry`, of global type `type`: from
/// `file` (one value, or one per step), `dist.input_fill`, or seeded random
/// values (in `dist.input_range` for integers).
static LogicalResult generateInput(func::FuncOp entry, unsigned i, Type type,
                                   StringRef file,
                                   std::vector<HostArray> &values) {
  FailureOr<BoundaryType> boundary =
      run::describeBoundary(type, entry.getLoc(), "argument " + Twine(i));
  if (failed(boundary))
    return failure();
  HostArray tensor = boundary->makeArray();
  if (!file.empty()) {
    if (llvm::Error error = run::readArrays(file, tensor, values)) {
      llvm::errs() << "dist-run: --input " << i << ": "
                   << llvm::toString(std::move(error)) << "\n";
      return failure();
    }
    return success();
  }
  uint64_t base = seed;
  if (seed.getNumOccurrences() == 0)
    if (auto moduleSeed =
            entry->getParentOfType<ModuleOp>()->getAttrOfType<IntegerAttr>(
                DistDialect::getInputSeedAttrName()))
      base = moduleSeed.getValue().getZExtValue();
  std::mt19937_64 generator(base * 1000003ull + i);
  if (auto pool = entry.getArgAttrOfType<ArrayAttr>(
          i, DistDialect::getStatePoolAttrName())) {
    // Packed state: each member by its own fill or normal attribute, else
    // uniform in [-1, 1) (zero for integers), all from this argument's
    // generator (the dialect checked that members fit their rows); the
    // gaps are zeros.
    int64_t columns = boundary->shape.back();
    for (int64_t e = 0, n = tensor.numElements(); e < n; ++e)
      tensor.set(e, 0.0);
    for (Attribute entry : pool) {
      auto member = cast<DictionaryAttr>(entry);
      auto [begin, count] = getPoolMemberExtent(member, columns);
      auto fill = member.getAs<FloatAttr>("fill");
      auto normal = member.getAs<FloatAttr>("normal");
      std::normal_distribution<double> drawNormal(
          0.0, normal ? normal.getValueAsDouble() : 1.0);
      std::uniform_real_distribution<double> drawUniform(-1.0, 1.0);
      bool isFloat = hostdata::isFloat(tensor.dtype());
      for (int64_t e = begin; e < begin + count; ++e)
        tensor.set(e, fill     ? fill.getValueAsDouble()
                      : !isFloat ? 0.0
                      : normal   ? drawNormal(generator)
                                 : drawUniform(generator));
    }
  } else if (auto fill = entry.getArgAttrOfType<FloatAttr>(
          i, DistDialect::getInputFillAttrName())) {
    for (int64_t e = 0, n = tensor.numElements(); e < n; ++e)
      tensor.set(e, fill.getValueAsDouble());
  } else if (auto normal = entry.getArgAttrOfType<FloatAttr>(
                 i, DistDialect::getInputNormalAttrName())) {
    std::normal_distribution<double> draw(0.0, normal.getValueAsDouble());
    for (int64_t e = 0, n = tensor.numElements(); e < n; ++e)
      tensor.set(e, draw(generator));
  } else if (hostdata::isFloat(tensor.dtype())) {
    std::uniform_real_distribution<double> draw(-1.0, 1.0);
    for (int64_t e = 0, n = tensor.numElements(); e < n; ++e)
      tensor.set(e, draw(generator));
  } else {
    auto range = entry.getArgAttrOfType<DenseI64ArrayAttr>(
        i, DistDialect::getInputRangeAttrName());
    int64_t lo = 0, hi = 2; // i1 needs no range
    if (range) {
      lo = range[0];
      hi = range[1];
    } else if (tensor.dtype() != DType::I1) {
      emitError(entry.getLoc())
          << "integer argument " << i << " of @" << entry.getName()
          << " needs its values' range: add {"
          << DistDialect::getInputRangeAttrName()
          << " = array<i64: lo, hi>} or pass --input " << i << "=FILE";
      return failure();
    }
    std::uniform_int_distribution<int64_t> draw(lo, hi - 1);
    for (int64_t e = 0, n = tensor.numElements(); e < n; ++e)
      tensor.setInt(e, draw(generator));
  }
  values.push_back(std::move(tensor));
  return success();
}

/// Writes parameter `param`'s input, converted, into `count` elements of
/// `state` from `begin` (the two must hold as many elements).
static LogicalResult copyParam(func::FuncOp entry, unsigned param,
                               const HostArray &values, HostArray &state,
                               int64_t begin, int64_t count, unsigned i) {
  if (values.numElements() != count) {
    emitError(entry.getLoc())
        << "argument " << i << " starts as a copy of parameter argument "
        << param << " ('" << DistDialect::getInputFromParamAttrName()
        << "'), but holds " << count << " elements for its "
        << values.numElements();
    return failure();
  }
  for (int64_t e = 0; e < count; ++e)
    state.set(begin + e, values.get(e));
  return success();
}

/// State that starts as a copy of its parameter (master weights), once every
/// parameter has its input; state given by --input is left as given.
static LogicalResult
copyParamsIntoState(func::FuncOp entry,
                    const llvm::DenseMap<unsigned, std::string> &files,
                    std::vector<std::vector<HostArray>> &inputs) {
  auto paramNamed = [&](StringAttr name) -> std::optional<unsigned> {
    for (unsigned a = 0, e = entry.getNumArguments(); a < e; ++a)
      if (entry.getArgAttr(a, DistDialect::getParamAttrName()) &&
          entry.getArgAttr(a, DistDialect::getNameAttrName()) == name)
        return a;
    return std::nullopt;
  };
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    if (files.count(i))
      continue;
    HostArray &state = inputs[i].front();
    if (entry.getArgAttr(i, DistDialect::getInputFromParamAttrName())) {
      auto param = entry.getArgAttrOfType<IntegerAttr>(
          i, DistDialect::getStateOfAttrName());
      unsigned p = param.getInt();
      if (failed(copyParam(entry, p, inputs[p].front(), state, 0,
                           state.numElements(), i)))
        return failure();
    }
    auto pool = entry.getArgAttrOfType<ArrayAttr>(
        i, DistDialect::getStatePoolAttrName());
    for (Attribute entryAttr : pool ? pool.getValue() : ArrayRef<Attribute>()) {
      auto member = cast<DictionaryAttr>(entryAttr);
      if (!member.get("from_param"))
        continue;
      std::optional<unsigned> p = paramNamed(member.getAs<StringAttr>("param"));
      if (!p) {
        emitError(entry.getLoc())
            << "argument " << i << " packs " << member.get("name")
            << " as a copy of parameter " << member.get("param")
            << ", but no parameter argument has that name";
        return failure();
      }
      int64_t columns = state.shape().back();
      auto [begin, count] = getPoolMemberExtent(member, columns);
      if (failed(copyParam(entry, *p, inputs[*p].front(), state, begin, count,
                           i)))
        return failure();
    }
  }
  return success();
}

/// Every argument's input: one value, or one per step (read from a file
/// holding several).
static LogicalResult generateInputs(func::FuncOp entry,
                                    std::vector<std::vector<HostArray>> &inputs) {
  llvm::DenseMap<unsigned, std::string> files;
  for (StringRef spec : inputFiles) {
    auto [indexText, path] = spec.split('=');
    unsigned index;
    if (path.empty() || indexText.getAsInteger(10, index) ||
        index >= entry.getNumArguments()) {
      llvm::errs() << "dist-run: --input " << spec
                   << ": expected INDEX=FILE with INDEX < "
                   << entry.getNumArguments() << "\n";
      return failure();
    }
    files[index] = path.str();
  }
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes()))
    if (failed(generateInput(entry, i, type, files.lookup(i),
                             inputs.emplace_back())))
      return failure();
  return copyParamsIntoState(entry, files, inputs);
}

/// Inputs of the arguments that per-rank passes added to the partitioned
/// entry (state of their own, such as dist-local-sgd's snapshots), after the
/// global entry's `numGlobalArgs`; written to `dir`.
static LogicalResult writePerRankStateInputs(ModuleOp partitioned,
                                             func::FuncOp entry,
                                             unsigned numGlobalArgs,
                                             const run::WorkDir &dir) {
  SymbolTableCollection symbolTables;
  for (unsigned i = numGlobalArgs; i < entry.getNumArguments(); ++i) {
    Type type = entry.getArgumentTypes()[i];
    if (auto layout = entry.getArgAttrOfType<ShardingAttr>(
            i, DistDialect::getPartitionedAsAttrName())) {
      auto mesh = symbolTables.lookupNearestSymbolFrom<MeshOp>(
          partitioned, layout.getMesh());
      auto local = dyn_cast<RankedTensorType>(type);
      if (!mesh || !local) {
        emitError(entry.getLoc()) << "argument " << i << " added by the "
                                  << "per-rank passes has a layout on no mesh";
        return failure();
      }
      type = getGlobalType(local, layout, mesh);
      if (auto shape = entry.getArgAttrOfType<DenseI64ArrayAttr>(
              i, DistDialect::getGlobalShapeAttrName()))
        type = local.clone(shape.asArrayRef());
    }
    std::vector<HostArray> values;
    if (failed(generateInput(entry, i, type, "", values)))
      return failure();
    if (llvm::Error error = run::writeArrays(dir.arg(i, run::kSerialRun), values)) {
      llvm::errs() << "dist-run: " << llvm::toString(std::move(error)) << "\n";
      return failure();
    }
  }
  return success();
}

static std::string findMpirun() {
#ifdef DIST_MPIEXEC
  if (llvm::sys::fs::can_execute(DIST_MPIEXEC))
    return DIST_MPIEXEC;
#endif
  auto path = llvm::sys::findProgramByName("mpirun");
  return path ? *path : std::string();
}

/// The options a worker needs from the driver's command line.
static void appendWorkerOptions(SmallVectorImpl<std::string> &argv,
                                StringRef dir) {
  argv.append({"--worker", dir.str()});
  argv.push_back("--steps=" + std::to_string(numSteps));
  if (keep)
    argv.push_back("--keep");
  else if (noCompare)
    argv.push_back("--last-results-only");
  if (!useBlas)
    argv.push_back("--blas=false");
  if (!fuseElementwise)
    argv.push_back("--fuse-elementwise=false");
  if (debugLines)
    argv.push_back("--debug-lines");
  if (!approximateMath)
    argv.push_back("--approximate-math=false");
  if (!vectorizableReductions)
    argv.push_back("--vectorizable-reductions=false");
  if (!updateInPlace)
    argv.push_back("--update-in-place=false");
  if (device != "cpu")
    argv.push_back("--device=" + device);
  if (emulateGpuKernels)
    argv.push_back("--emulate-gpu-kernels");
  if (gpuVectorizeMinThreads.getNumOccurrences())
    argv.push_back("--gpu-vectorize-min-threads=" +
                   std::to_string(gpuVectorizeMinThreads));
  for (cl::opt<int64_t> *option :
       {&gpuBlockReductionMinExtent, &gpuBlockReductionMinOutputs})
    if (option->getNumOccurrences())
      argv.push_back(("--" + option->ArgStr + "=").str() +
                     std::to_string(option->getValue()));
}

/// Runs `argv` with `environment`, within --timeout; `what` names it in the
/// error (a crash reports its signal, a hang the timeout).
static LogicalResult runChild(ArrayRef<std::string> argv,
                              std::optional<ArrayRef<StringRef>> environment,
                              const Twine &what) {
  SmallVector<StringRef> args(argv.begin(), argv.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(args.front(), args, environment, {},
                                         timeoutSeconds, 0, &message);
  if (status == 0)
    return success();
  llvm::errs() << "dist-run: " << what << " failed (";
  if (StringRef(message).starts_with("Child timed out"))
    llvm::errs() << "no result after " << timeoutSeconds
                 << " s; raise --timeout";
  else
    llvm::errs() << (message.empty() ? "exit status " + std::to_string(status)
                                     : message);
  llvm::errs() << ")\n";
  return failure();
}

/// Runs the serial (or the reference) program in a process of its own.
static LogicalResult launchSerial(StringRef self, StringRef dir,
                                  bool reference, bool perturbed = false) {
  SmallVector<std::string> argv = {self.str()};
  appendWorkerOptions(argv, dir);
  argv.push_back("--serial");
  if (reference)
    argv.push_back("--reference");
  if (perturbed)
    argv.push_back("--perturbed-run");
  return runChild(argv, std::nullopt,
                  reference ? "the reference run" : "the serial run");
}

/// A free TCP port of this machine for the tcp store (0 if none).
static int findFreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (fd >= 0 &&
      ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  if (fd >= 0)
    ::close(fd);
  return port;
}

/// Starts `ranks` workers itself with PyTorch's env:// variables; they meet
/// at the tcp backend's store. Within --timeout; when one fails, the others
/// are ended.
static LogicalResult launchWithStore(ArrayRef<std::string> argv,
                                     ArrayRef<std::string> environment,
                                     int ranks) {
  int port = findFreePort();
  if (port == 0) {
    llvm::errs() << "dist-run: no free TCP port for the tcp store\n";
    return failure();
  }
  SmallVector<StringRef> args(argv.begin(), argv.end());
  std::vector<llvm::sys::ProcessInfo> children;
  auto endAll = [&] {
    for (llvm::sys::ProcessInfo &child : children)
      if (child.Pid > 0)
        ::kill(child.Pid, SIGKILL);
    for (llvm::sys::ProcessInfo &child : children)
      if (child.Pid > 0)
        llvm::sys::Wait(child, std::nullopt);
  };
  // A job this tool runs in (launch.py, torchrun) must not leak its own.
  SmallVector<std::string> inherited;
  for (const std::string &entry : environment)
    if (!llvm::any_of(ArrayRef<StringRef>{"RANK=", "LOCAL_RANK=", "WORLD_SIZE=",
                                          "MASTER_ADDR=", "MASTER_PORT="},
                      [&](StringRef name) {
                        return StringRef(entry).starts_with(name);
                      }))
      inherited.push_back(entry);
  for (int rank = 0; rank < ranks; ++rank) {
    SmallVector<std::string> env(inherited.begin(), inherited.end());
    env.append({"RANK=" + std::to_string(rank),
                "LOCAL_RANK=" + std::to_string(rank),
                "WORLD_SIZE=" + std::to_string(ranks),
                "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + std::to_string(port)});
    if (!llvm::any_of(env, [](StringRef entry) {
          return entry.starts_with("DIST_BACKEND=");
        }))
      env.push_back("DIST_BACKEND=tcp");
    SmallVector<StringRef> envRefs(env.begin(), env.end());
    std::string message;
    bool failedToStart = false;
    children.push_back(llvm::sys::ExecuteNoWait(
        args.front(), args, ArrayRef<StringRef>(envRefs), {}, 0, &message,
        &failedToStart));
    if (failedToStart) {
      llvm::errs() << "dist-run: cannot start rank " << rank << ": " << message
                   << "\n";
      children.pop_back();
      endAll();
      return failure();
    }
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(timeoutSeconds);
  std::vector<bool> done(ranks, false);
  for (int remaining = ranks; remaining > 0;) {
    for (int rank = 0; rank < ranks; ++rank) {
      if (done[rank])
        continue;
      std::string message;
      llvm::sys::ProcessInfo state = llvm::sys::Wait(
          children[rank], /*SecondsToWait=*/0, &message, nullptr,
          /*Polling=*/true);
      if (state.Pid == 0)
        continue;
      done[rank] = true;
      --remaining;
      children[rank].Pid = 0;
      if (state.ReturnCode != 0) {
        llvm::errs() << "dist-run: the " << ranks << "-rank run failed (rank "
                     << rank << ": "
                     << (message.empty()
                             ? "exit status " + std::to_string(state.ReturnCode)
                             : message)
                     << ")\n";
        endAll();
        return failure();
      }
    }
    if (timeoutSeconds > 0 && std::chrono::steady_clock::now() > deadline) {
      llvm::errs() << "dist-run: the " << ranks << "-rank run failed (no "
                   << "result after " << timeoutSeconds
                   << " s; raise --timeout)\n";
      endAll();
      return failure();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return success();
}

/// Runs this tool in worker mode on `ranks` processes: through mpirun, or
/// started here and meeting at the tcp store (--launcher).
static LogicalResult launchRanks(StringRef self, StringRef dir, int ranks) {
  std::string mpirun = launcher == "tcp" ? std::string() : findMpirun();
  if (mpirun.empty() && launcher == "mpirun") {
    llvm::errs() << "dist-run: mpirun not found (install openmpi-bin, or run "
                    "with --launcher=tcp)\n";
    return failure();
  }
  SmallVector<std::string> worker = {self.str()};
  appendWorkerOptions(worker, dir);
  if (corruptRank >= 0) {
    worker.push_back("--corrupt-rank=" + std::to_string(corruptRank));
    worker.push_back("--corrupt-step=" + std::to_string(corruptStep));
  }
  // OpenMPI 4 creates its session directory under $TMPDIR with a racy mkdir:
  // two launches sharing a TMPDIR (parallel lit workers) can fail with "File
  // exists". Each launch gets the run's private directory instead.
  SmallVector<std::string> environment;
  for (char **entry = environ; *entry; ++entry)
    if (!StringRef(*entry).starts_with("TMPDIR="))
      environment.push_back(*entry);
  environment.push_back(("TMPDIR=" + dir).str());
  if (gpuAllowTf32) {
    llvm::erase_if(environment, [](StringRef entry) {
      return entry.starts_with("DIST_CUBLAS_TF32=");
    });
    environment.push_back("DIST_CUBLAS_TF32=1");
  }
  // Device buffers travel through NCCL (the user may choose another backend).
  if (device == "gpu" && ranks > 1 &&
      !llvm::any_of(environment, [](StringRef entry) {
        return entry.starts_with("DIST_BACKEND=");
      }))
    environment.push_back("DIST_BACKEND=nccl");
  if (mpirun.empty())
    return launchWithStore(worker, environment, ranks);
  // More ranks than cores: a rank waiting in MPI yields its core to the
  // ranks that compute on it instead of spinning (unless the user chose).
  if (ranks > (int)std::thread::hardware_concurrency() &&
      !llvm::any_of(environment, [](StringRef entry) {
        return entry.starts_with("OMPI_MCA_mpi_yield_when_idle=");
      }))
    environment.push_back("OMPI_MCA_mpi_yield_when_idle=1");
  SmallVector<std::string> argv = {mpirun, "--oversubscribe", "-np",
                                   std::to_string(ranks)};
  if (getuid() == 0)
    argv.push_back("--allow-run-as-root");
  argv.append(worker.begin(), worker.end());
  SmallVector<StringRef> env(environment.begin(), environment.end());
  return runChild(argv, ArrayRef<StringRef>(env),
                  "the " + Twine(ranks) + "-rank run");
}

static void printTimes(const run::WorkDir &dir, int ranks) {
  llvm::outs() << "time per step in ms (min / median / max of " << numSteps
               << " step(s)):\n";
  auto printRow = [&](StringRef name, std::vector<double> times) {
    llvm::outs() << llvm::formatv("  {0,-9}", name);
    if (times.empty()) {
      llvm::outs() << " unknown\n";
      return;
    }
    std::sort(times.begin(), times.end());
    llvm::outs() << llvm::formatv(" {0,10:f3} / {1,10:f3} / {2,10:f3}\n",
                                  times.front() * 1e3,
                                  times[times.size() / 2] * 1e3,
                                  times.back() * 1e3);
  };
  printRow("serial", run::readTimes(dir.times(run::kSerialRun)));
  for (int r = 0; r < ranks; ++r)
    printRow("rank " + std::to_string(r), run::readTimes(dir.times(r)));
}

/// Creates the work directory in `dir`: --work-dir, which must be new or
/// empty (it is removed at the end unless --keep, and dist-run never deletes
/// what it did not write), or a new temporary directory.
static LogicalResult createWorkDir(SmallString<128> &dir) {
  if (workDirOption.empty()) {
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("dist-run", dir)) {
      llvm::errs() << "dist-run: cannot create a work directory: "
                   << ec.message() << "\n";
      return failure();
    }
    return success();
  }
  dir = workDirOption;
  // Workers (started by mpirun, in its working directory) and the JIT's
  // debug directory need an absolute path.
  std::error_code ec = llvm::sys::fs::make_absolute(dir);
  if (ec) {
    llvm::errs() << "dist-run: --work-dir " << dir << ": " << ec.message()
                 << "\n";
    return failure();
  }
  if (llvm::sys::fs::exists(dir) &&
      (!llvm::sys::fs::is_directory(dir) ||
       llvm::sys::fs::directory_iterator(dir, ec) !=
           llvm::sys::fs::directory_iterator() ||
       ec)) {
    llvm::errs() << "dist-run: --work-dir " << dir
                 << " exists and is not an empty directory; give a new "
                    "path (dist-run creates it, and removes it unless "
                    "--keep)\n";
    return failure();
  }
  if ((ec = llvm::sys::fs::create_directories(dir))) {
    llvm::errs() << "dist-run: cannot create " << dir << ": " << ec.message()
                 << "\n";
    return failure();
  }
  return success();
}

/// Partitions `module` and checks its meshes against --ranks; sets `ranks`.
static LogicalResult partition(ModuleOp module, int &ranks) {
  PassManager pm(module.getContext());
  buildAutoPartitionPipeline(pm, AutoPartitionOptions());
  if (!perRankPasses.empty() &&
      failed(parsePassPipeline(perRankPasses, pm, llvm::errs()))) {
    llvm::errs() << "dist-run: --per-rank-passes: not a pass pipeline: '"
                 << perRankPasses << "'\n";
    return failure();
  }
  if (failed(pm.run(module))) {
    llvm::errs() << "dist-run: partitioning failed\n";
    return failure();
  }
  int64_t devices = 1;
  for (MeshOp mesh : module.getOps<MeshOp>())
    devices = std::max(devices, mesh.getNumDevices());
  for (MeshOp mesh : module.getOps<MeshOp>())
    if (mesh.getNumDevices() != devices) {
      llvm::errs() << "dist-run: meshes of different sizes (@"
                   << mesh.getSymName() << " has " << mesh.getNumDevices()
                   << " devices, another " << devices
                   << "); one program runs on one world\n";
      return failure();
    }
  ranks = numRanks ? (int)numRanks : (int)devices;
  if (!module.getOps<MeshOp>().empty() && ranks != devices) {
    llvm::errs() << "dist-run: the mesh has " << devices
                 << " devices but --ranks is " << ranks
                 << "; reshape it with --mesh\n";
    return failure();
  }
#ifndef DIST_HAVE_NCCL_BACKEND
  if (device == "gpu" && ranks != 1) {
    llvm::errs() << "dist-run: --device=gpu on " << ranks
                 << " ranks needs the nccl backend (dist built with NCCL's "
                    "headers); reshape the mesh to one device with --mesh\n";
    return failure();
  }
#endif
  return success();
}

/// Writes the f64 reference of `serial` and its inputs to `dir`, and marks
/// the f16/bf16/f32 results of `specs` to be judged against it. Returns
/// false, with `whyNot` set, when the program cannot be widened.
/// The results judged against the f64 reference, whose entry is
/// `referenceEntry` (and its perturbed run when `perturbed`).
static LogicalResult markReferenceSpecs(func::FuncOp referenceEntry,
                                        bool perturbed,
                                        std::vector<run::ResultSpec> &specs) {
  for (auto [i, type] : llvm::enumerate(referenceEntry.getResultTypes())) {
    FailureOr<BoundaryType> boundary = run::describeBoundary(
        type, referenceEntry.getLoc(), "result " + Twine(i));
    if (failed(boundary))
      return failure();
    DType dtype = specs[i].global.dtype;
    specs[i].useReference = hostdata::isFloat(dtype) && dtype != DType::F64;
    specs[i].usePerturbed = specs[i].useReference && perturbed;
    specs[i].referenceType = boundary->dtype;
  }
  return success();
}

static FailureOr<bool> prepareReference(ModuleOp serial,
                                        ArrayRef<std::vector<HostArray>> inputs,
                                        const run::WorkDir &dir,
                                        std::vector<run::ResultSpec> &specs,
                                        std::string &whyNot) {
  OwningOpRef<ModuleOp> reference = serial.clone();
  FailureOr<bool> widened = run::widenFloatsToF64(*reference, whyNot);
  if (failed(widened) || !*widened)
    return false;
  func::FuncOp entry = run::getWrappedEntry(*reference);
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    FailureOr<BoundaryType> boundary =
        run::describeBoundary(type, entry.getLoc(), "argument " + Twine(i));
    if (failed(boundary))
      return failure();
    std::vector<HostArray> widened, perturbed, perturbedWidened;
    for (const HostArray &value : inputs[i]) {
      widened.push_back(value.convertedTo(boundary->dtype));
      if (perturbedReference) {
        perturbed.push_back(hostdata::perturbByUlp(value));
        perturbedWidened.push_back(
            perturbed.back().convertedTo(boundary->dtype));
      }
    }
    if (llvm::Error error =
            run::writeArrays(dir.arg(i, run::kReferenceRun), widened)) {
      llvm::errs() << "dist-run: " << llvm::toString(std::move(error)) << "\n";
      return failure();
    }
    if (perturbedReference) {
      llvm::Error error =
          run::writeArrays(dir.arg(i, run::kPerturbedRun), perturbed);
      if (!error)
        error = run::writeArrays(dir.arg(i, run::kPerturbedReferenceRun),
                                 perturbedWidened);
      if (error) {
        llvm::errs() << "dist-run: " << llvm::toString(std::move(error))
                     << "\n";
        return failure();
      }
    }
  }
  if (failed(markReferenceSpecs(entry, perturbedReference, specs)))
    return failure();
  if (failed(run::writeModuleWithLocations(*reference,
                                           dir.program(run::kReferenceRun))))
    return failure();
  return true;
}

/// Judges every result after every step and prints the report: with
/// --steps, one line per step; the results of the first step that diverges
/// (or of the last step); the verdict. Returns whether every step passed.
static FailureOr<bool> report(const run::WorkDir &dir,
                              ArrayRef<run::ResultSpec> specs,
                              const meshmath::Shape &meshShape) {
  hostdata::Tolerance tolerance{relTolerance, absTolerance};
  int firstFailingStep = 0, detailFailures = 0;
  std::string details;
  for (int step = 1; step <= numSteps; ++step) {
    std::string lines;
    llvm::raw_string_ostream os(lines);
    int failures = 0;
    for (auto [i, spec] : llvm::enumerate(specs)) {
      hostdata::ReferenceRule rule =
          gpuAllowTf32 ? hostdata::tf32ProductsRule(spec.global.dtype)
                       : hostdata::ReferenceRule();
      llvm::Expected<bool> pass = run::judgeResult(dir, i, step, spec,
                                                   meshShape, tolerance, rule,
                                                   os);
      if (!pass) {
        llvm::errs() << "dist-run: " << llvm::toString(pass.takeError())
                     << "\n";
        return failure();
      }
      failures += !*pass;
    }
    if (numSteps > 1)
      llvm::outs() << "step " << step << ": " << (failures ? "FAIL" : "PASS")
                   << " (" << specs.size() - failures << " of "
                   << specs.size() << " result(s) match)\n";
    if ((failures && !firstFailingStep) ||
        (!firstFailingStep && step == numSteps)) {
      firstFailingStep = failures ? step : 0;
      details = lines;
      detailFailures = failures;
    }
  }
  llvm::outs() << details;
  size_t matching = specs.size() - detailFailures;
  if (!firstFailingStep)
    llvm::outs() << "PASS: " << matching << " of " << specs.size()
                 << " result(s) match the serial run"
                 << (numSteps > 1 ? " after every step" : "") << "\n";
  else if (numSteps > 1)
    llvm::outs() << "FAIL: step " << firstFailingStep
                 << " is the first step that diverges: " << matching << " of "
                 << specs.size() << " result(s) match the serial run\n";
  else
    llvm::outs() << "FAIL: " << matching << " of " << specs.size()
                 << " result(s) match the serial run\n";
  return !firstFailingStep;
}

static void printHeader(StringRef entry, int ranks, ModuleOp module) {
  llvm::outs() << "dist-run: @" << entry << " on " << ranks << " rank(s)";
  for (MeshOp mesh : module.getOps<MeshOp>()) {
    llvm::outs() << ", mesh @" << mesh.getSymName() << " [";
    llvm::interleaveComma(
        llvm::zip(mesh.getAxisNames().getAsValueRange<StringAttr>(),
                  mesh.getShape()),
        llvm::outs(), [&](auto axis) {
          llvm::outs() << std::get<0>(axis) << " = " << std::get<1>(axis);
        });
    llvm::outs() << "]";
  }
  if (numSteps > 1)
    llvm::outs() << ", " << numSteps << " steps";
  llvm::outs() << "\n";
}

/// libdist_runtime.so, the library this tool calls dist_init from.
static std::string runtimeLibraryPath() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&dist_init), &info) || !info.dli_fname)
    return "";
  return info.dli_fname;
}

/// --export-ranks: the partitioned program compiled ahead of time with its
/// libraries, each rank's inputs and the manifest for dist-step, and what
/// --judge needs to know.
static LogicalResult exportPartitionedRun(const run::WorkDir &dir, int ranks,
                                          ModuleOp partitioned,
                                          bool reference) {
  run::StepOptions options =
      makeStepOptions(/*run=*/0, /*distributed=*/true, dir.str());
  options.resultsOfEveryStep = !noCompare;
  if (llvm::Error error = run::exportRanks(partitioned, dir, ranks, options)) {
    llvm::errs() << "dist-run: --export-ranks: "
                 << llvm::toString(std::move(error)) << "\n";
    return failure();
  }
  SmallVector<std::string> libraries(options.compile.sharedLibraries.begin(),
                                     options.compile.sharedLibraries.end());
  std::string runtime = runtimeLibraryPath();
  if (runtime.empty()) {
    llvm::errs() << "dist-run: --export-ranks: cannot find libdist_runtime.so\n";
    return failure();
  }
  libraries.push_back(runtime);
  OwningOpRef<ModuleOp> program = partitioned.clone();
  std::string error;
  if (failed(run::compileSharedObject(*program, options.compile,
                                      dir.sharedObject(), DIST_LINKER,
                                      libraries, error))) {
    llvm::errs() << "dist-run: --export-ranks: " << error << "\n";
    return failure();
  }
  std::error_code ec;
  llvm::raw_fd_ostream info(dir.exportInfo(), ec);
  if (ec) {
    llvm::errs() << "dist-run: cannot write " << dir.exportInfo() << ": "
                 << ec.message() << "\n";
    return failure();
  }
  info << "steps " << numSteps << "\nranks " << ranks << "\ncompare "
       << (noCompare ? 0 : 1) << "\nreference "
       << (reference ? 1 : 0) << "\nperturbed "
       << (reference && perturbedReference ? 1 : 0) << "\n";
  return success();
}

/// --judge: the results dist-step wrote, against the serial run's.
static int runJudge(MLIRContext &context) {
  run::WorkDir dir(judgeDir);
  auto info = llvm::MemoryBuffer::getFile(dir.exportInfo());
  if (!info) {
    llvm::errs() << "dist-run: --judge " << judgeDir << ": no "
                 << dir.exportInfo() << " (prepare the run with "
                 << "--export-ranks)\n";
    return 1;
  }
  int ranks = 0, reference = 0, perturbed = 0, steps = 0, compare = 1;
  {
    std::istringstream in((*info)->getBuffer().str());
    std::string key;
    int value;
    while (in >> key >> value) {
      if (key != "steps" && key != "ranks" && key != "compare" &&
          key != "reference" && key != "perturbed") {
        llvm::errs() << "dist-run: --judge: " << dir.exportInfo()
                     << ": unknown entry '" << key << "'\n";
        return 1;
      }
      (key == "steps"       ? steps
       : key == "ranks"     ? ranks
       : key == "compare"   ? compare
       : key == "reference" ? reference
                            : perturbed) = value;
    }
  }
  if (steps < 1 || ranks < 1) {
    llvm::errs() << "dist-run: --judge: " << dir.exportInfo()
                 << " names no steps or ranks\n";
    return 1;
  }
  numSteps = steps;
  // One source manager per file (a source manager parses one main file).
  std::vector<std::unique_ptr<llvm::SourceMgr>> sources;
  std::vector<std::unique_ptr<SourceMgrDiagnosticHandler>> handlers;
  auto parse = [&](int run) {
    sources.push_back(std::make_unique<llvm::SourceMgr>());
    handlers.push_back(std::make_unique<SourceMgrDiagnosticHandler>(
        *sources.back(), &context));
    return parseSourceFile<ModuleOp>(dir.program(run), *sources.back(),
                                     ParserConfig(&context));
  };
  OwningOpRef<ModuleOp> serial = parse(run::kSerialRun), partitioned = parse(0);
  if (!serial || !partitioned)
    return 1;
  func::FuncOp serialEntry = run::getWrappedEntry(*serial),
               partEntry = run::getWrappedEntry(*partitioned);
  if (!serialEntry || !partEntry) {
    llvm::errs() << "dist-run: --judge: " << judgeDir
                 << " holds no programs dist-run wrote\n";
    return 1;
  }
  FailureOr<std::vector<run::ResultSpec>> specs =
      run::describeResults(serialEntry, partEntry, *partitioned);
  if (failed(specs))
    return 1;
  if (reference) {
    OwningOpRef<ModuleOp> referenceModule = parse(run::kReferenceRun);
    func::FuncOp referenceEntry =
        referenceModule ? run::getWrappedEntry(*referenceModule) : nullptr;
    if (!referenceEntry) {
      llvm::errs() << "dist-run: --judge: " << dir.program(run::kReferenceRun)
                   << " is not the reference program dist-run wrote\n";
      return 1;
    }
    if (failed(markReferenceSpecs(referenceEntry, perturbed, *specs)))
      return 1;
  }
  printHeader(serialEntry.getName(), ranks, *partitioned);
  FailureOr<bool> pass = true;
  if (compare)
    pass = report(dir, *specs, run::getRunMeshShape(*partitioned, ranks));
  else
    llvm::outs() << "dist-run: the run was exported with --no-compare; "
                    "nothing compared\n";
  if (failed(pass))
    return 1;
  if (showTime)
    printTimes(dir, ranks);
  return *pass ? 0 : 1;
}

static int runDriver(MLIRContext &context, StringRef self) {
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> original =
      parseSourceFile<ModuleOp>(inputFilename, sourceMgr, ParserConfig(&context));
  if (!original)
    return 1;
  // Upstream shard annotations become dist ones first, so that --mesh sees
  // every mesh and both programs start from the same module.
  {
    PassManager pm(&context);
    pm.addPass(createDistImportShard());
    if (failed(pm.run(*original)))
      return 1;
  }
  if (failed(applyMeshOverrides(*original)))
    return 1;
  func::FuncOp entry = run::findEntry(*original, entryName);
  if (!entry)
    return 1;
  std::string entrySymbol = entry.getName().str();

  SmallString<128> dirPath;
  if (failed(createWorkDir(dirPath)))
    return 1;
  llvm::scope_exit cleanup([&] {
    if (!keep)
      llvm::sys::fs::remove_directories(dirPath);
  });
  run::WorkDir dir(dirPath);

  // Inputs (global shapes), written for the runs.
  std::vector<std::vector<HostArray>> inputs;
  if (failed(generateInputs(entry, inputs)))
    return 1;
  for (auto [i, input] : llvm::enumerate(inputs))
    if (llvm::Error error = run::writeArrays(dir.arg(i, run::kSerialRun), input)) {
      llvm::errs() << "dist-run: " << llvm::toString(std::move(error)) << "\n";
      return 1;
    }

  // The programs, printed with the user's locations: every diagnostic of a
  // worker names the user's file and line.
  OwningOpRef<ModuleOp> partitioned = original->clone();
  int ranks;
  if (failed(partition(*partitioned, ranks)))
    return 1;
  auto partEntry = partitioned->lookupSymbol<func::FuncOp>(entrySymbol);
  if (partEntry.getNumArguments() < entry.getNumArguments() ||
      partEntry.getNumResults() < entry.getNumResults()) {
    emitError(partEntry.getLoc())
        << "the per-rank passes removed arguments or results of @"
        << entrySymbol << "; they may only add state after them";
    return 1;
  }
  if (failed(writePerRankStateInputs(*partitioned, partEntry,
                                     entry.getNumArguments(), dir)))
    return 1;
  run::addRunWrapper(*partitioned, partEntry);
  OwningOpRef<ModuleOp> serial = original->clone();
  if (failed(run::buildSerialProgram(*serial)))
    return 1;
  auto serialEntry = serial->lookupSymbol<func::FuncOp>(entrySymbol);
  run::addRunWrapper(*serial, serialEntry);
  if (failed(run::writeModuleWithLocations(*partitioned, dir.program(0))) ||
      failed(run::writeModuleWithLocations(*serial,
                                           dir.program(run::kSerialRun))))
    return 1;
  FailureOr<std::vector<run::ResultSpec>> specs =
      run::describeResults(serialEntry, partEntry, *partitioned);
  if (failed(specs))
    return 1;

  // The f64 reference, unless --strict or no result is a narrow float.
  std::string noReference;
  bool useReference = false;
  if (!strict && !noCompare &&
      llvm::any_of(*specs, [](const run::ResultSpec &spec) {
        return hostdata::isFloat(spec.global.dtype) &&
               spec.global.dtype != DType::F64;
      })) {
    FailureOr<bool> prepared =
        prepareReference(*serial, inputs, dir, *specs, noReference);
    if (failed(prepared))
      return 1;
    useReference = *prepared;
  }

  // An exported run that nothing will compare (a benchmark) needs no serial
  // run here.
  bool serialRun = !(noCompare && !exportRanksDir.empty());
  if (serialRun &&
      failed(launchSerial(self, dir.str(), /*reference=*/false,
                          /*perturbed=*/useReference && perturbedReference)))
    return 1;
  // The reference is the yardstick, not the program under test: when it
  // fails (its error is above), the results are compared elementwise.
  if (useReference &&
      failed(launchSerial(self, dir.str(), /*reference=*/true,
                          /*perturbed=*/perturbedReference))) {
    noReference = "the reference run failed";
    for (run::ResultSpec &spec : *specs)
      spec.useReference = spec.usePerturbed = false;
  }
  if (!exportRanksDir.empty()) {
    if (failed(exportPartitionedRun(dir, ranks, *partitioned,
                                    useReference && noReference.empty())))
      return 1;
    llvm::outs() << "dist-run: exported the " << ranks << "-rank run of @"
                 << entrySymbol << " (" << numSteps << " step(s)) to "
                 << dir.str() << ": run `dist-step " << dir.str()
                 << "` on " << ranks
                 << " rank(s) (scripts/launch.py -n N, or mpirun), then "
                 << "`dist-run --judge " << dir.str() << "`\n";
    return 0;
  }
  printHeader(entrySymbol, ranks, *partitioned);
  if (!noReference.empty())
    llvm::outs() << "dist-run: no f64 reference: " << noReference
                 << "; results are compared elementwise (--rtol, --atol)\n";
  llvm::outs().flush();
  if (failed(launchRanks(self, dir.str(), ranks)))
    return 1;

  FailureOr<bool> pass = true;
  if (noCompare)
    llvm::outs() << "dist-run: ran the serial program and " << ranks
                 << " rank(s) for " << numSteps
                 << " step(s); nothing compared (--no-compare)\n";
  else
    pass = report(dir, *specs, run::getRunMeshShape(*partitioned, ranks));
  if (failed(pass))
    return 1;
  if (showTime)
    printTimes(dir, ranks);
  if (keep)
    llvm::outs() << "dist-run: kept the intermediate files in " << dir.str()
                 << "\n";
  return *pass ? 0 : 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerAllPasses();
  registerAllDistPasses();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "dist-run: run an annotated program serially and on N MPI ranks, and "
      "compare the results\n");
  // A training step returns a hundred memref descriptors or more: their
  // stores form blocks on which the DAG combiner's store merging is
  // quadratic (10 s of 12 s of JIT codegen for a small GPT step). Merging
  // stores at function boundaries buys nothing here.
  auto &llvmOptions = cl::getRegisteredOptions();
  if (auto it = llvmOptions.find("combiner-store-merging");
      it != llvmOptions.end())
    if (auto *merging = static_cast<cl::opt<bool> *>(it->second))
      if (merging->getNumOccurrences() == 0)
        merging->setValue(false);

  DialectRegistry registry;
  registerEverything(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  if (numSteps < 1) {
    llvm::errs() << "dist-run: --steps must be at least 1, got " << numSteps
                 << "\n";
    return 1;
  }
  if (!workerDir.empty())
    return runWorker(context);
  if (!judgeDir.empty())
    return runJudge(context);
  if (!exportRanksDir.empty()) {
    if (!workDirOption.empty() && workDirOption != exportRanksDir) {
      llvm::errs() << "dist-run: --export-ranks names the work directory; "
                      "drop --work-dir\n";
      return 1;
    }
    workDirOption = exportRanksDir;
    keep = true;
  }
  if (device != "cpu" && device != "gpu") {
    llvm::errs() << "dist-run: --device must be cpu or gpu, got '" << device
                 << "'\n";
    return 1;
  }
  if (emulateGpuKernels && device != "gpu") {
    llvm::errs() << "dist-run: --emulate-gpu-kernels needs --device=gpu\n";
    return 1;
  }
  if (gpuAllowTf32 && device != "gpu") {
    llvm::errs() << "dist-run: --gpu-allow-tf32 needs --device=gpu\n";
    return 1;
  }
  if (gpuAllowTf32 && !exportRanksDir.empty()) {
    llvm::errs() << "dist-run: --gpu-allow-tf32 does not travel with "
                    "--export-ranks: run dist-step with DIST_CUBLAS_TF32=1 "
                    "and judge with --judge DIR --gpu-allow-tf32\n";
    return 1;
  }
  if (gpuBlockReductionMinExtent < 0 || gpuBlockReductionMinOutputs < 1) {
    llvm::errs() << "dist-run: --gpu-block-reduction-min-extent must be at "
                    "least 0 and --gpu-block-reduction-min-outputs at least "
                    "1, got "
                 << gpuBlockReductionMinExtent << " and "
                 << gpuBlockReductionMinOutputs << "\n";
    return 1;
  }
  if (gpuVectorizeMinThreads < 1) {
    llvm::errs() << "dist-run: --gpu-vectorize-min-threads must be at least "
                    "1, got "
                 << gpuVectorizeMinThreads << "\n";
    return 1;
  }
  if (launcher != "auto" && launcher != "mpirun" && launcher != "tcp") {
    llvm::errs() << "dist-run: --launcher must be auto, mpirun or tcp, got '"
                 << launcher << "'\n";
    return 1;
  }
#ifndef DIST_CUDA_RUNTIME_LIBRARY
  if (device == "gpu") {
    llvm::errs() << "dist-run: --device=gpu needs dist built with the CUDA "
                    "toolkit (libdist_cuda_runtime.so)\n";
    return 1;
  }
#endif
  if (numRanks.getNumOccurrences() && numRanks < 1) {
    llvm::errs() << "dist-run: --ranks must be at least 1, got " << numRanks
                 << "\n";
    return 1;
  }
  if (!(absTolerance >= 0) || !(relTolerance >= 0)) {
    llvm::errs() << "dist-run: --atol and --rtol must be numbers >= 0\n";
    return 1;
  }
  if (inputFilename.empty()) {
    llvm::errs() << "dist-run: no input file\n";
    return 1;
  }
  std::string self =
      llvm::sys::fs::getMainExecutable(argv[0], (void *)&main);
  return runDriver(context, self);
}
