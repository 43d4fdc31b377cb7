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
#include "dist/Tools/DistRun/Execution.h"
#include "dist/Tools/DistRun/Program.h"
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
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <random>
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
             "for argument INDEX instead of random values"),
    cl::cat(category));
static cl::opt<unsigned> seed("seed", cl::desc("Seed of the random inputs"),
                              cl::init(1), cl::cat(category));
static cl::opt<int> numSteps(
    "steps",
    cl::desc("Run the entry N times, feeding each result marked "
             "dist.updates = I back into argument I (the others get their "
             "inputs again); compare after every step"),
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
static cl::opt<double> relTolerance(
    "rtol", cl::desc("Relative tolerance of elementwise comparisons"),
    cl::init(1e-4), cl::cat(category));
static cl::opt<double> absTolerance(
    "atol", cl::desc("Absolute tolerance of elementwise comparisons"),
    cl::init(1e-5), cl::cat(category));
static cl::opt<bool> keep("keep",
                          cl::desc("Keep the intermediate IR, object files "
                                   "and data (see --work-dir)"),
                          cl::init(false), cl::cat(category));
static cl::opt<std::string>
    workDirOption("work-dir",
                  cl::desc("Directory for intermediate files (default: a "
                           "new temporary directory)"),
                  cl::cat(category));
static cl::opt<bool> useBlas("blas",
                             cl::desc("Call a BLAS for matmuls when one was "
                                      "found at build time"),
                             cl::init(true), cl::cat(category));
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
static cl::opt<bool> referenceWorker(
    "reference", cl::Hidden, cl::init(false),
    cl::desc("Internal: with --worker, run the widened reference program"));

//===----------------------------------------------------------------------===//
// Files of the work directory
//===----------------------------------------------------------------------===//

/// Who wrote a file: the serial run, the reference run, or a rank.
static std::string runName(int rank) {
  if (rank == -1)
    return "serial";
  if (rank == -2)
    return "reference";
  return "rank" + std::to_string(rank);
}
static constexpr int kSerial = -1, kReference = -2;

/// Argument `index`'s global input; the reference's is widened.
static std::string argPath(StringRef dir, int64_t index, bool reference) {
  return (dir + "/arg" + Twine(index) + (reference ? ".reference" : "") +
          ".bin")
      .str();
}

/// Result `index` of `step` (1-based) of a run.
static std::string resultPath(StringRef dir, int64_t index, int step,
                              int rank) {
  return (dir + "/result" + Twine(index) + ".step" + Twine(step) + "." +
          runName(rank) + ".bin")
      .str();
}

static std::string timesPath(StringRef dir, int rank) {
  return (dir + "/times." + runName(rank) + ".txt").str();
}

static LogicalResult writeOutput(StringRef path,
                                 llvm::function_ref<void(raw_ostream &)> write) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &message);
  if (!file) {
    llvm::errs() << "dist-run: " << message << "\n";
    return failure();
  }
  write(file->os());
  file->keep();
  return success();
}

static LogicalResult writeArray(StringRef path, const HostArray &array) {
  return writeOutput(path, [&](raw_ostream &os) {
    os.write(array.data(), array.numBytes());
  });
}

/// Reads `path` into `array`, whose type and shape give the expected size.
static LogicalResult readArray(StringRef path, HostArray &array) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer) {
    llvm::errs() << "dist-run: cannot read " << path << ": "
                 << buffer.getError().message() << "\n";
    return failure();
  }
  if ((int64_t)(*buffer)->getBufferSize() != array.numBytes()) {
    llvm::errs() << "dist-run: " << path << " has "
                 << (*buffer)->getBufferSize() << " bytes, expected "
                 << array.numBytes() << "\n";
    return failure();
  }
  std::memcpy(array.data(), (*buffer)->getBufferStart(), array.numBytes());
  return success();
}

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

/// The layout of a boundary value of a partitioned function (its
/// `dist.partitioned_as`), or replicated on `meshShape`.
static meshmath::Layout boundaryLayout(ModuleOp module, ShardingAttr sharding,
                                       size_t rank) {
  if (sharding)
    return getLayout(sharding, module.lookupSymbol<MeshOp>(sharding.getMesh()));
  meshmath::Layout layout;
  layout.dims.resize(rank);
  return layout;
}

/// The mesh shape a module's programs run on: its first mesh's, or one axis
/// of `ranks` devices.
static meshmath::Shape runMeshShape(ModuleOp module, int64_t ranks) {
  for (MeshOp mesh : module.getOps<MeshOp>())
    return getMeshShape(mesh);
  return {ranks};
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
  dist_group_t *group = dist_get_group(&world, 1, &axis, 1);
  int32_t token = 0;
  dist_all_reduce(group, &token, 1, DIST_I32, DIST_SUM);
}

/// Runs the program of the work directory: one rank of the partitioned
/// program, or (--serial) the serial or (--serial --reference) the
/// reference program in a process of its own, so that a crash or a hang of
/// the program under test is reported, with the --timeout, instead of taking
/// dist-run down. Runs --steps steps and writes every step's results and the
/// wall time of each call.
static int runWorker(MLIRContext &context) {
  // A crash here is the program's, not dist-run's: no LLVM stack dump (the
  // driver reports the signal).
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    std::signal(signal, SIG_DFL);
  bool distributed = !serialWorker;
  if (distributed)
    dist_init(nullptr, nullptr);
  // The program prints only to report a failed runtime check (puts) before
  // it aborts, which would lose a buffered stdout: send it to stderr.
  if (!distributed) {
    dup2(STDERR_FILENO, STDOUT_FILENO);
    std::setvbuf(stdout, nullptr, _IONBF, 0);
  }
  int rank = !distributed ? (referenceWorker ? kReference : kSerial)
                          : dist_world_rank();
  std::string dir = workerDir;
  auto fail = [&](const Twine &message) {
    llvm::errs() << "dist-run: "
                 << (distributed ? "rank " + Twine(rank)
                                 : Twine(runName(rank)) + " run")
                 << ": " << message << "\n";
    return 1;
  };
  std::string programPath =
      dir + (!distributed ? "/" + runName(rank) + ".mlir"
                          : std::string("/partitioned.mlir"));
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      programPath, sourceMgr, ParserConfig(&context));
  if (!module)
    return fail("cannot parse " + programPath);
  func::FuncOp entry = run::getWrappedEntry(*module);
  if (!entry)
    return fail(programPath + " has no @" + run::kWrapperName +
                " calling the entry; --worker runs what dist-run wrote");

  // Everything the steps need is read before lowering rewrites the module.
  SmallVector<int64_t> updates = run::getUpdatedArguments(entry);
  meshmath::Shape meshShape =
      runMeshShape(*module, distributed ? dist_world_size() : 1);
  std::string partitionedAs = DistDialect::getPartitionedAsAttrName().str();
  auto layoutOf = [&](DictionaryAttr attrs, size_t tensorRank) {
    return boundaryLayout(
        *module, attrs ? attrs.getAs<ShardingAttr>(partitionedAs) : nullptr,
        tensorRank);
  };
  std::vector<HostValue> args, results;
  std::vector<meshmath::Layout> argLayouts, resultLayouts;
  std::vector<meshmath::Shape> resultGlobalShapes;
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    FailureOr<BoundaryType> local =
        run::describeBoundary(type, entry.getLoc(), "argument " + Twine(i));
    if (failed(local))
      return 1;
    meshmath::Layout layout =
        layoutOf(entry.getArgAttrDict(i), local->shape.size());
    meshmath::Shape globalShape = local->shape;
    for (auto [d, axes] : llvm::enumerate(layout.dims))
      globalShape[d] *= meshmath::groupSize(meshShape, axes);
    HostArray global(local->dtype, globalShape);
    if (failed(readArray(argPath(dir, i, rank == kReference), global)))
      return 1;
    std::string error;
    std::optional<HostArray> block =
        distributed
            ? hostdata::shardBlock(global, layout, meshShape, rank, error)
            : std::optional<HostArray>(std::move(global));
    if (!block)
      return fail("argument " + Twine(i) + ": " + error);
    args.push_back({std::move(*block), local->isScalar});
    argLayouts.push_back(layout);
  }
  auto wrapper = module->lookupSymbol<func::FuncOp>(run::kWrapperName);
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
    Type type = wrapper.getArgumentTypes()[entry.getNumArguments() + i];
    FailureOr<BoundaryType> local =
        run::describeBoundary(type, entry.getLoc(), "result " + Twine(i));
    if (failed(local))
      return 1;
    meshmath::Layout layout =
        layoutOf(entry.getResultAttrDict(i), local->shape.size());
    meshmath::Shape globalShape = local->shape;
    for (auto [d, axes] : llvm::enumerate(layout.dims))
      globalShape[d] *= meshmath::groupSize(meshShape, axes);
    results.push_back({local->makeArray(), false});
    resultLayouts.push_back(layout);
    resultGlobalShapes.push_back(globalShape);
  }
  // Results fed back: a rank keeps its own block when the argument has the
  // result's layout; otherwise the ranks exchange blocks through the work
  // directory after every step.
  std::vector<HostValue> inputs = args;
  bool exchange = false;
  for (auto [i, arg] : llvm::enumerate(updates))
    if (arg >= 0 && distributed &&
        !(argLayouts[arg] == resultLayouts[i] &&
          args[arg].array.shape() == results[i].array.shape()))
      exchange = true;

  run::CompileOptions options;
#ifdef DIST_BLAS_LIBRARY
  options.blas = useBlas;
#endif
  options.runtimeVerification = rank == kSerial;
  options.sharedLibraries = jitLibraries();
  if (keep && rank <= 0)
    options.objectDump =
        dir + "/" + (distributed ? "partitioned.rank0" : runName(rank)) + ".o";
  std::string error;
  FailureOr<std::unique_ptr<run::CompiledProgram>> program =
      run::CompiledProgram::compile(*module, options, error);
  if (failed(program))
    return fail(error);

  std::vector<double> seconds;
  for (int step = 1; step <= numSteps; ++step) {
    auto start = std::chrono::steady_clock::now();
    if (failed((*program)->call(args, results, error)))
      return fail(error);
    seconds.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    if (distributed && rank == corruptRank && step == corruptStep &&
        !results.empty() && results.front().array.numElements() > 0)
      results.front().array.set(0, results.front().array.get(0) + 1.0);
    for (auto [i, result] : llvm::enumerate(results))
      if (failed(writeArray(resultPath(dir, i, step, rank), result.array)))
        return 1;
    if (step == numSteps)
      break;
    // The next step's arguments.
    for (auto [i, input] : llvm::enumerate(inputs))
      if (!llvm::is_contained(updates, (int64_t)i))
        args[i] = input;
    if (exchange)
      barrier();
    for (auto [i, arg] : llvm::enumerate(updates)) {
      if (arg < 0)
        continue;
      if (!distributed || (argLayouts[arg] == resultLayouts[i] &&
                           args[arg].array.shape() ==
                               results[i].array.shape())) {
        args[arg].array = results[i].array;
        continue;
      }
      std::vector<HostArray> blocks;
      for (int64_t r = 0, n = meshmath::numDevices(meshShape); r < n; ++r) {
        blocks.push_back(results[i].array);
        if (failed(readArray(resultPath(dir, i, step, r), blocks.back())))
          return 1;
      }
      std::optional<std::vector<HostArray>> global = hostdata::assembleBlocks(
          blocks, resultGlobalShapes[i], resultLayouts[i], meshShape, error);
      std::optional<HostArray> block;
      if (global)
        block = hostdata::shardBlock(global->front(), argLayouts[arg],
                                     meshShape, rank, error);
      if (!block)
        return fail("result " + Twine(i) + " fed to argument " + Twine(arg) +
                    ": " + error);
      args[arg].array = std::move(*block);
    }
    // Nobody overwrites this step's files before every rank has read them.
    if (exchange)
      barrier();
  }
  if (failed(writeOutput(timesPath(dir, rank), [&](raw_ostream &os) {
        for (double s : seconds)
          os << llvm::formatv("{0:e9}\n", s);
      })))
    return 1;
  if (distributed)
    dist_finalize();
  return 0;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

static LogicalResult generateInputs(func::FuncOp entry,
                                    std::vector<HostArray> &inputs) {
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
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    FailureOr<BoundaryType> boundary =
        run::describeBoundary(type, entry.getLoc(), "argument " + Twine(i));
    if (failed(boundary))
      return failure();
    HostArray tensor = boundary->makeArray();
    if (files.count(i)) {
      if (failed(readArray(files[i], tensor)))
        return failure();
      inputs.push_back(std::move(tensor));
      continue;
    }
    std::mt19937_64 generator(seed * 1000003ull + i);
    if (hostdata::isFloat(tensor.dtype())) {
      std::uniform_real_distribution<double> values(-1.0, 1.0);
      for (int64_t e = 0, n = tensor.numElements(); e < n; ++e)
        tensor.set(e, values(generator));
      inputs.push_back(std::move(tensor));
      continue;
    }
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
    std::uniform_int_distribution<int64_t> values(lo, hi - 1);
    for (int64_t e = 0, n = tensor.numElements(); e < n; ++e)
      tensor.setInt(e, values(generator));
    inputs.push_back(std::move(tensor));
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
  if (!useBlas)
    argv.push_back("--blas=false");
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
                                  bool reference) {
  SmallVector<std::string> argv = {self.str()};
  appendWorkerOptions(argv, dir);
  argv.push_back("--serial");
  if (reference)
    argv.push_back("--reference");
  return runChild(argv, std::nullopt,
                  reference ? "the reference run" : "the serial run");
}

/// Runs this tool in worker mode on `ranks` MPI processes.
static LogicalResult launchRanks(StringRef self, StringRef dir, int ranks) {
  std::string mpirun = findMpirun();
  if (mpirun.empty()) {
    llvm::errs() << "dist-run: mpirun not found (install openmpi-bin)\n";
    return failure();
  }
  SmallVector<std::string> argv = {mpirun, "--oversubscribe", "-np",
                                   std::to_string(ranks)};
  if (getuid() == 0)
    argv.push_back("--allow-run-as-root");
  argv.push_back(self.str());
  appendWorkerOptions(argv, dir);
  if (corruptRank >= 0) {
    argv.push_back("--corrupt-rank=" + std::to_string(corruptRank));
    argv.push_back("--corrupt-step=" + std::to_string(corruptStep));
  }
  // OpenMPI 4 creates its session directory under $TMPDIR with a racy mkdir:
  // two launches sharing a TMPDIR (parallel lit workers) can fail with "File
  // exists". Each launch gets the run's private directory instead.
  SmallVector<std::string> environment;
  for (char **entry = environ; *entry; ++entry)
    if (!StringRef(*entry).starts_with("TMPDIR="))
      environment.push_back(*entry);
  environment.push_back(("TMPDIR=" + dir).str());
  SmallVector<StringRef> env(environment.begin(), environment.end());
  return runChild(argv, ArrayRef<StringRef>(env),
                  "the " + Twine(ranks) + "-rank run");
}

static std::string describeLayout(ShardingAttr sharding) {
  if (!sharding)
    return "replicated";
  std::string text;
  llvm::raw_string_ostream os(text);
  Attribute(sharding).print(os);
  return text;
}

namespace {
/// What the driver knows of one result.
struct ResultInfo {
  std::string typeText;
  std::string layoutText;
  BoundaryType global;     // the serial run's
  BoundaryType local;      // a rank's
  meshmath::Layout layout; // on the run's mesh
  /// Judged against the reference (else elementwise).
  bool useReference = false;
  DType referenceType = DType::F64;
};
} // namespace

/// Judges result `index` at `step`; prints its line into `report`.
static FailureOr<bool> judgeResult(StringRef dir, int64_t index, int step,
                                   const ResultInfo &info,
                                   const meshmath::Shape &meshShape,
                                   raw_ostream &report) {
  HostArray serial = info.global.makeArray();
  if (failed(readArray(resultPath(dir, index, step, kSerial), serial)))
    return failure();
  std::vector<HostArray> blocks;
  for (int64_t r = 0, n = meshmath::numDevices(meshShape); r < n; ++r) {
    blocks.push_back(info.local.makeArray());
    if (failed(readArray(resultPath(dir, index, step, r), blocks.back())))
      return failure();
  }
  std::string error;
  std::optional<std::vector<HostArray>> replicas = hostdata::assembleBlocks(
      blocks, info.global.shape, info.layout, meshShape, error);
  if (!replicas) {
    llvm::errs() << "dist-run: result " << index << ": " << error << "\n";
    return failure();
  }
  hostdata::Tolerance tolerance{relTolerance, absTolerance};
  hostdata::ElementwiseResult vsSerial =
      hostdata::compareElementwise(serial, replicas->front(), tolerance);
  report << llvm::formatv("result #{0} {1} {2}: ", index, info.typeText,
                          info.layoutText);
  bool pass;
  if (info.useReference) {
    HostArray reference(info.referenceType, info.global.shape);
    if (failed(readArray(resultPath(dir, index, step, kReference), reference)))
      return failure();
    hostdata::ReferenceResult verdict =
        hostdata::judgeAgainstReference(reference, serial, *replicas);
    report << llvm::formatv(
        "max abs err {0:e2} vs serial; error vs f64 reference: distributed "
        "{1:e2}, serial {2:e2} (allowed {3:e2})",
        vsSerial.maxAbs, verdict.distributedError, verdict.serialError,
        verdict.allowed);
    if (verdict.specialMismatches)
      report << ", " << verdict.specialMismatches
             << " elements are NaN or infinite in one run only";
    pass = verdict.pass;
  } else {
    int64_t replicaMismatch = 0;
    for (const HostArray &replica : *replicas)
      replicaMismatch += hostdata::compareElementwise(replicas->front(),
                                                      replica, tolerance)
                             .mismatches;
    report << llvm::formatv("max abs err {0:e2}, max rel err {1:e2}",
                            vsSerial.maxAbs, vsSerial.maxRel);
    if (vsSerial.mismatches)
      report << ", " << vsSerial.mismatches << " of " << serial.numElements()
             << " elements differ";
    if (replicaMismatch)
      report << ", " << replicaMismatch << " elements differ between replicas";
    pass = vsSerial.mismatches == 0 && replicaMismatch == 0;
  }
  report << (pass ? ": PASS\n" : ": FAIL\n");
  return pass;
}

/// Reads the per-step times of a run.
static std::vector<double> readTimes(StringRef dir, int rank) {
  std::vector<double> times;
  auto buffer = llvm::MemoryBuffer::getFile(timesPath(dir, rank));
  if (!buffer)
    return times;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    double value;
    if (!line.trim().getAsDouble(value))
      times.push_back(value);
  }
  return times;
}

static void printTimes(StringRef dir, int ranks) {
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
  printRow("serial", readTimes(dir, kSerial));
  for (int r = 0; r < ranks; ++r)
    printRow("rank " + std::to_string(r), readTimes(dir, r));
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

  // Work directory. It is removed at the end (unless --keep), so a given
  // one must be new or empty: dist-run never deletes what it did not write.
  SmallString<128> dir;
  if (!workDirOption.empty()) {
    dir = workDirOption;
    std::error_code ec;
    bool exists = llvm::sys::fs::exists(dir);
    if (exists && (!llvm::sys::fs::is_directory(dir) ||
                   llvm::sys::fs::directory_iterator(dir, ec) !=
                       llvm::sys::fs::directory_iterator() ||
                   ec)) {
      llvm::errs() << "dist-run: --work-dir " << dir
                   << " exists and is not an empty directory; give a new "
                      "path (dist-run creates it, and removes it unless "
                      "--keep)\n";
      return 1;
    }
    if ((ec = llvm::sys::fs::create_directories(dir))) {
      llvm::errs() << "dist-run: cannot create " << dir << ": "
                   << ec.message() << "\n";
      return 1;
    }
  } else if (std::error_code ec =
                 llvm::sys::fs::createUniqueDirectory("dist-run", dir)) {
    llvm::errs() << "dist-run: cannot create a work directory: "
                 << ec.message() << "\n";
    return 1;
  }
  llvm::scope_exit cleanup([&] {
    if (!keep)
      llvm::sys::fs::remove_directories(dir);
  });

  // Inputs (global shapes), written for the runs.
  std::vector<HostArray> inputs;
  if (failed(generateInputs(entry, inputs)))
    return 1;
  for (auto [i, input] : llvm::enumerate(inputs))
    if (failed(writeArray(argPath(dir, i, false), input)))
      return 1;

  // The partitioned program.
  OwningOpRef<ModuleOp> partitioned = original->clone();
  {
    PassManager pm(&context);
    buildAutoPartitionPipeline(pm, AutoPartitionOptions());
    if (failed(pm.run(*partitioned))) {
      llvm::errs() << "dist-run: partitioning failed\n";
      return 1;
    }
  }
  auto partEntry = partitioned->lookupSymbol<func::FuncOp>(entrySymbol);
  SmallVector<MeshOp> meshes = llvm::to_vector(partitioned->getOps<MeshOp>());
  int64_t devices = 1;
  for (MeshOp mesh : meshes)
    devices = std::max(devices, mesh.getNumDevices());
  for (MeshOp mesh : meshes)
    if (mesh.getNumDevices() != devices) {
      llvm::errs() << "dist-run: meshes of different sizes (@"
                   << mesh.getSymName() << " has " << mesh.getNumDevices()
                   << " devices, another " << devices
                   << "); one program runs on one world\n";
      return 1;
    }
  int ranks = numRanks ? (int)numRanks : (int)devices;
  if (!meshes.empty() && ranks != devices) {
    llvm::errs() << "dist-run: the mesh has " << devices
                 << " devices but --ranks is " << ranks
                 << "; reshape it with --mesh\n";
    return 1;
  }
  meshmath::Shape meshShape = runMeshShape(*partitioned, ranks);
  run::addRunWrapper(*partitioned, partEntry);
  if (failed(run::writeModuleWithLocations(
          *partitioned, (dir + "/partitioned.mlir").str())))
    return 1;

  // The serial program and, unless --strict, its widened reference.
  OwningOpRef<ModuleOp> serial = original->clone();
  if (failed(run::buildSerialProgram(*serial)))
    return 1;
  auto serialEntry = serial->lookupSymbol<func::FuncOp>(entrySymbol);
  run::addRunWrapper(*serial, serialEntry);
  if (failed(run::writeModuleWithLocations(*serial,
                                           (dir + "/serial.mlir").str())))
    return 1;
  std::vector<ResultInfo> results;
  bool anyNarrowFloat = false;
  for (auto [i, type] : llvm::enumerate(serialEntry.getResultTypes())) {
    ResultInfo &info = results.emplace_back();
    llvm::raw_string_ostream(info.typeText) << type;
    FailureOr<BoundaryType> global =
        run::describeBoundary(type, serialEntry.getLoc(), "result " + Twine(i));
    FailureOr<BoundaryType> local = run::describeBoundary(
        partEntry.getResultTypes()[i], partEntry.getLoc(),
        "result " + Twine(i));
    if (failed(global) || failed(local))
      return 1;
    info.global = *global;
    info.local = *local;
    auto sharding = partEntry.getResultAttrOfType<ShardingAttr>(
        i, DistDialect::getPartitionedAsAttrName());
    info.layoutText = describeLayout(sharding);
    info.layout = boundaryLayout(*partitioned, sharding, local->shape.size());
    anyNarrowFloat |= hostdata::isFloat(global->dtype) &&
                      global->dtype != DType::F64;
  }
  std::string widenFailure;
  bool useReference = false;
  if (!strict && anyNarrowFloat) {
    OwningOpRef<ModuleOp> reference = serial->clone();
    FailureOr<bool> widened = run::widenFloatsToF64(*reference, widenFailure);
    if (succeeded(widened) && *widened) {
      useReference = true;
      auto refEntry = run::getWrappedEntry(*reference);
      for (auto [i, type] : llvm::enumerate(refEntry.getArgumentTypes())) {
        FailureOr<BoundaryType> boundary = run::describeBoundary(
            type, refEntry.getLoc(), "argument " + Twine(i));
        if (failed(boundary) ||
            failed(writeArray(argPath(dir, i, true),
                              inputs[i].convertedTo(boundary->dtype))))
          return 1;
      }
      for (auto [i, type] : llvm::enumerate(refEntry.getResultTypes())) {
        FailureOr<BoundaryType> boundary = run::describeBoundary(
            type, refEntry.getLoc(), "result " + Twine(i));
        if (failed(boundary))
          return 1;
        DType dtype = results[i].global.dtype;
        results[i].useReference =
            hostdata::isFloat(dtype) && dtype != DType::F64;
        results[i].referenceType = boundary->dtype;
      }
      if (failed(run::writeModuleWithLocations(
              *reference, (dir + "/reference.mlir").str())))
        return 1;
    }
  }

  if (failed(launchSerial(self, dir, /*reference=*/false)))
    return 1;
  if (useReference && failed(launchSerial(self, dir, /*reference=*/true)))
    return 1;

  llvm::outs() << "dist-run: @" << entrySymbol << " on " << ranks
               << " rank(s)";
  for (MeshOp mesh : meshes) {
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
  if (!widenFailure.empty())
    llvm::outs() << "dist-run: no f64 reference: " << widenFailure
                 << "; results are compared elementwise (--rtol, --atol)\n";
  llvm::outs().flush();
  if (failed(launchRanks(self, dir, ranks)))
    return 1;

  // Judge every step; report the first step that diverges (or the last).
  int firstFailingStep = 0;
  std::string details;
  int detailFailures = 0;
  for (int step = 1; step <= numSteps; ++step) {
    std::string report;
    llvm::raw_string_ostream os(report);
    int failures = 0;
    for (auto [i, info] : llvm::enumerate(results)) {
      FailureOr<bool> pass = judgeResult(dir, i, step, info, meshShape, os);
      if (failed(pass))
        return 1;
      failures += !*pass;
    }
    if (numSteps > 1)
      llvm::outs() << "step " << step << ": "
                   << (failures ? "FAIL" : "PASS") << " ("
                   << results.size() - failures << " of " << results.size()
                   << " result(s) match)\n";
    if (failures && !firstFailingStep) {
      firstFailingStep = step;
      details = report;
      detailFailures = failures;
    }
    if (!firstFailingStep && step == numSteps) {
      details = report;
      detailFailures = failures;
    }
  }
  llvm::outs() << details;
  size_t matching = results.size() - detailFailures;
  if (!firstFailingStep)
    llvm::outs() << "PASS: " << matching << " of " << results.size()
                 << " result(s) match the serial run"
                 << (numSteps > 1 ? " after every step" : "") << "\n";
  else if (numSteps > 1)
    llvm::outs() << "FAIL: step " << firstFailingStep
                 << " is the first step that diverges: " << matching << " of "
                 << results.size() << " result(s) match the serial run\n";
  else
    llvm::outs() << "FAIL: " << matching << " of " << results.size()
                 << " result(s) match the serial run\n";
  if (showTime)
    printTimes(dir, ranks);
  if (keep)
    llvm::outs() << "dist-run: kept the intermediate files in " << dir << "\n";
  return firstFailingStep ? 1 : 0;
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
