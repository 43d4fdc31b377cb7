//===- dist-run.cpp - Run a program serially and on N ranks, and compare --===//
//
// dist-run [--ranks N] [--entry NAME] [--mesh NAME=AxB] [--keep] FILE
//
// Takes one annotated program (dist or upstream shard annotations) and:
//   1. builds the serial program (annotations dropped) and the partitioned
//      one (dist-auto-partition);
//   2. generates the entry's inputs (seeded random floats; integers from each
//      argument's `dist.input_range`; or raw files given with --input);
//   3. JIT-compiles and runs the serial program in a child process (this
//      tool in serial worker mode), so that a crash or a hang of the program
//      is reported instead of ending dist-run;
//   4. runs the partitioned program on N MPI ranks (mpirun of this tool in
//      worker mode), each rank feeding its shard of every input;
//   5. assembles each result from the ranks' shards (reducing partial ones),
//      compares it with the serial result and prints PASS/FAIL per result.
// It exits non-zero on any mismatch or failure.
//
//===----------------------------------------------------------------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/InitAllDist.h"
#include "dist/Runtime/DistRuntime.h"
#include "dist/Support/MeshMath.h"
#include "dist/Transforms/Passes.h"
#include "dist/Transforms/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
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
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <random>
#include <unistd.h>

using namespace mlir;
using namespace mlir::dist;
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
static cl::opt<double> relTolerance("rtol", cl::desc("Relative tolerance"),
                            cl::init(1e-4), cl::cat(category));
static cl::opt<double> absTolerance("atol", cl::desc("Absolute tolerance"),
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
             "result, which the comparison must catch"));
static cl::opt<std::string> workerDir("worker", cl::Hidden,
                                      cl::desc("Internal: run as one rank"));
static cl::opt<bool> serialWorker(
    "serial", cl::Hidden, cl::init(false),
    cl::desc("Internal: with --worker, run the serial program (no MPI)"));

static constexpr const char *kWrapperName = "__dist_run_entry";

//===----------------------------------------------------------------------===//
// Values and layouts
//===----------------------------------------------------------------------===//

namespace {

/// A tensor (or scalar, rank 0 without a tensor type) of one of the supported
/// element types, as raw bytes in row-major order.
struct HostTensor {
  Type elementType;
  SmallVector<int64_t> shape;
  bool isScalar = false;
  std::vector<char> data;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  int64_t elementBytes() const {
    return elementType.isIndex() ? 8 : elementType.getIntOrFloatBitWidth() / 8;
  }
  double get(int64_t i) const {
    const char *p = data.data() + i * elementBytes();
    if (elementType.isF32())
      return *reinterpret_cast<const float *>(p);
    if (elementType.isF64())
      return *reinterpret_cast<const double *>(p);
    if (elementType.isInteger(32))
      return *reinterpret_cast<const int32_t *>(p);
    return (double)*reinterpret_cast<const int64_t *>(p);
  }
  void set(int64_t i, double value) {
    char *p = data.data() + i * elementBytes();
    if (elementType.isF32())
      *reinterpret_cast<float *>(p) = (float)value;
    else if (elementType.isF64())
      *reinterpret_cast<double *>(p) = value;
    else if (elementType.isInteger(32))
      *reinterpret_cast<int32_t *>(p) = (int32_t)value;
    else
      *reinterpret_cast<int64_t *>(p) = (int64_t)value;
  }
};

/// Where a rank's local tensor sits in the global one.
struct Layout {
  meshmath::Shape meshShape;
  std::vector<meshmath::AxisList> dimAxes;
  meshmath::AxisList partialAxes;
  ReductionKind partialKind = ReductionKind::sum;
};

} // namespace

static bool isSupportedElementType(Type type) {
  return type.isF32() || type.isF64() || type.isInteger(32) ||
         type.isInteger(64) || type.isIndex();
}

/// The shape and element type of a function argument/result type.
static FailureOr<HostTensor> describeType(Type type, Location loc,
                                          const Twine &what) {
  HostTensor tensor;
  if (auto ranked = dyn_cast<RankedTensorType>(type)) {
    if (!ranked.hasStaticShape())
      return emitError(loc) << what << " has a dynamic shape " << type
                            << "; dist-run needs static shapes";
    tensor.elementType = ranked.getElementType();
    tensor.shape.assign(ranked.getShape().begin(), ranked.getShape().end());
  } else if (type.isIntOrIndexOrFloat()) {
    tensor.elementType = type;
    tensor.isScalar = true;
  } else {
    return emitError(loc) << what << " has type " << type
                          << "; dist-run supports ranked tensors and scalars";
  }
  if (!isSupportedElementType(tensor.elementType))
    return emitError(loc) << what << " has element type "
                          << tensor.elementType
                          << "; dist-run supports f32, f64, i32, i64, index";
  tensor.data.resize(tensor.numElements() * tensor.elementBytes());
  return tensor;
}

static Layout layoutOf(ShardingAttr sharding, MeshOp mesh) {
  Layout layout;
  layout.meshShape.assign(mesh.getShape().begin(), mesh.getShape().end());
  auto indices = [&](ArrayRef<StringAttr> axes) {
    meshmath::AxisList list;
    for (StringAttr axis : axes)
      list.push_back(*mesh.getAxisIndex(axis));
    return list;
  };
  for (DimShardingAttr dim : sharding.getDims())
    layout.dimAxes.push_back(indices(dim.getAxes()));
  layout.partialAxes = indices(sharding.getPartialAxes());
  layout.partialKind = sharding.getPartialKind();
  return layout;
}

/// Calls `fn(i, index)` for every element of a tensor of `shape`, `i` being
/// its row-major position.
static void forEachIndex(ArrayRef<int64_t> shape,
                         llvm::function_ref<void(int64_t, ArrayRef<int64_t>)> fn) {
  int64_t n = 1;
  for (int64_t size : shape)
    n *= size;
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    fn(i, index);
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// Row-major position of `offsets + index` in a tensor of `shape`.
static int64_t positionIn(ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets,
                          ArrayRef<int64_t> index) {
  int64_t position = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    position = position * shape[d] + offsets[d] + index[d];
  return position;
}

/// Copies the block of `global` at `offsets` with the shape of `local` into
/// `local`.
static void extractBlock(const HostTensor &global, HostTensor &local,
                         ArrayRef<int64_t> offsets) {
  int64_t bytes = local.elementBytes();
  forEachIndex(local.shape, [&](int64_t i, ArrayRef<int64_t> index) {
    std::memcpy(local.data.data() + i * bytes,
                global.data.data() +
                    positionIn(global.shape, offsets, index) * bytes,
                bytes);
  });
}

/// Writes `path` through `write`; reports a failure to open it.
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

static LogicalResult writeFile(StringRef path, ArrayRef<char> data) {
  return writeOutput(path, [&](raw_ostream &os) {
    os.write(data.data(), data.size());
  });
}

static LogicalResult readFile(StringRef path, std::vector<char> &data) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer) {
    llvm::errs() << "dist-run: cannot read " << path << ": "
                 << buffer.getError().message() << "\n";
    return failure();
  }
  if ((*buffer)->getBufferSize() != data.size()) {
    llvm::errs() << "dist-run: " << path << " has "
                 << (*buffer)->getBufferSize() << " bytes, expected "
                 << data.size() << "\n";
    return failure();
  }
  std::memcpy(data.data(), (*buffer)->getBufferStart(), data.size());
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

static func::FuncOp findEntry(ModuleOp module) {
  if (!entryName.empty()) {
    auto fn = module.lookupSymbol<func::FuncOp>(entryName);
    if (!fn || fn.isExternal()) {
      emitError(module.getLoc())
          << "no function @" << entryName << " with a body in the module";
      return nullptr;
    }
    return fn;
  }
  func::FuncOp entry;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isPrivate() || fn.isExternal())
      continue;
    if (entry) {
      emitError(module.getLoc())
          << "the module has several public functions (@" << entry.getName()
          << ", @" << fn.getName() << ", ...); choose one with --entry";
      return nullptr;
    }
    entry = fn;
  }
  if (!entry)
    emitError(module.getLoc())
        << "the module has no public function with a body; name one "
           "with --entry";
  return entry;
}

/// Adds `__dist_run_entry`, which calls the entry and returns every result as
/// a tensor (scalars as 0-d tensors), with a C interface, so every run calls
/// a function of the same shape: (results*, args...).
static void addRunWrapper(ModuleOp module, func::FuncOp entry) {
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> resultTypes;
  for (Type type : entry.getResultTypes())
    resultTypes.push_back(isa<RankedTensorType>(type)
                              ? type
                              : RankedTensorType::get({}, type));
  auto wrapper = func::FuncOp::create(
      builder, entry.getLoc(), kWrapperName,
      builder.getFunctionType(entry.getArgumentTypes(), resultTypes));
  wrapper->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  Block *body = wrapper.addEntryBlock();
  builder.setInsertionPointToStart(body);
  auto call = func::CallOp::create(builder, entry.getLoc(), entry,
                                   body->getArguments());
  SmallVector<Value> results;
  for (auto [value, type] : llvm::zip(call.getResults(), resultTypes))
    results.push_back(value.getType() == type
                          ? Value(value)
                          : tensor::FromElementsOp::create(
                                builder, entry.getLoc(), type, value)
                                .getResult());
  func::ReturnOp::create(builder, entry.getLoc(), results);
}

/// The serial program: upstream shard annotations imported, then every
/// annotation dropped (dist.annotate becomes its operand, boundary shardings
/// go). Meshes and other dist attributes are removed by the lowering.
static LogicalResult makeSerial(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(createDistImportShard());
  if (failed(pm.run(module)))
    return failure();
  module.walk([](AnnotateOp op) {
    op.getResult().replaceAllUsesWith(op.getInput());
    op.erase();
  });
  StringAttr sharding =
      StringAttr::get(module.getContext(), DistDialect::getShardingAttrName());
  for (auto fn : module.getOps<func::FuncOp>()) {
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      fn.removeArgAttr(i, sharding);
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      fn.removeResultAttr(i, sharding);
  }
  return success();
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

static LogicalResult dumpModule(ModuleOp module, StringRef path) {
  return writeOutput(path, [&](raw_ostream &os) { module.print(os); });
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

namespace {
/// A memref descriptor of any rank: allocated, aligned, offset, sizes,
/// strides, all 8 bytes wide.
struct Descriptor {
  std::vector<int64_t> words;
  explicit Descriptor(int64_t rank) : words(3 + 2 * rank, 0) {}
  static int64_t numWords(int64_t rank) { return 3 + 2 * rank; }
};
} // namespace

/// Lowers `module` (which has the run wrapper), JIT-compiles it and calls the
/// wrapper on `args`; fills `results` (whose types are set).
static LogicalResult execute(ModuleOp module, std::vector<HostTensor> &args,
                             std::vector<HostTensor> &results,
                             StringRef objectDump) {
  PassManager pm(module.getContext());
  LowerToLLVMOptions lowering;
#ifdef DIST_BLAS_LIBRARY
  lowering.blas = useBlas;
#else
  lowering.blas = false; // No BLAS to load into the JIT.
#endif
  buildLowerToLLVMPipeline(pm, lowering);
  if (failed(pm.run(module)))
    return failure();

  auto transformer = makeOptimizingTransformer(/*optLevel=*/2,
                                               /*sizeLevel=*/0, nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Default;
  options.enableObjectDump = !objectDump.empty();
  SmallVector<StringRef> libraries;
#ifdef DIST_C_RUNNER_UTILS_LIBRARY
  libraries.push_back(DIST_C_RUNNER_UTILS_LIBRARY);
#endif
#ifdef DIST_BLAS_LIBRARY
  if (useBlas)
    libraries.push_back(DIST_BLAS_LIBRARY);
#endif
  options.sharedLibPaths = libraries;
  auto engine = ExecutionEngine::create(module, options);
  if (!engine) {
    llvm::errs() << "dist-run: JIT compilation failed: "
                 << llvm::toString(engine.takeError()) << "\n";
    return failure();
  }
  if (!objectDump.empty())
    (*engine)->dumpToObjectFile(objectDump);

  // The C interface takes a pointer to the results (a struct of
  // descriptors), then a pointer to each memref argument's descriptor or
  // each scalar by value. invokePacked wants a pointer to each parameter.
  std::vector<int64_t> resultWords;
  for (HostTensor &result : results)
    resultWords.resize(resultWords.size() +
                       Descriptor::numWords(result.shape.size()));
  std::vector<Descriptor> argDescriptors;
  argDescriptors.reserve(args.size());
  std::vector<void *> argPointers(args.size());
  SmallVector<void *> packed;
  void *resultPointer = resultWords.data();
  if (!results.empty())
    packed.push_back(&resultPointer);
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (arg.isScalar) {
      packed.push_back(arg.data.data());
      continue;
    }
    int64_t rank = arg.shape.size();
    Descriptor &desc = argDescriptors.emplace_back(rank);
    desc.words[0] = desc.words[1] = (int64_t)(intptr_t)arg.data.data();
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      desc.words[3 + d] = arg.shape[d];
      desc.words[3 + rank + d] = stride;
      stride *= arg.shape[d];
    }
    argPointers[i] = desc.words.data();
    packed.push_back(&argPointers[i]);
  }
  if (llvm::Error error = (*engine)->invokePacked(
          std::string("_mlir_ciface_") + kWrapperName, packed)) {
    llvm::errs() << "dist-run: call failed: "
                 << llvm::toString(std::move(error)) << "\n";
    return failure();
  }

  // Copy the results out of their buffers, which follow the descriptors'
  // strides. The buffers are not freed: a result may be an argument or a
  // constant global, and this process ends after one call.
  int64_t word = 0;
  for (HostTensor &result : results) {
    int64_t rank = result.shape.size();
    int64_t *desc = resultWords.data() + word;
    word += Descriptor::numWords(rank);
    char *aligned = reinterpret_cast<char *>((intptr_t)desc[1]);
    int64_t bytes = result.elementBytes();
    forEachIndex(result.shape, [&](int64_t i, ArrayRef<int64_t> index) {
      int64_t element = desc[2];
      for (int64_t d = 0; d < rank; ++d)
        element += index[d] * desc[3 + rank + d];
      std::memcpy(result.data.data() + i * bytes, aligned + element * bytes,
                  bytes);
    });
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Workers: the serial run, and one rank of the partitioned run
//===----------------------------------------------------------------------===//

/// Where a run leaves result `index`: the serial run's (rank -1) or a rank's.
static std::string resultPath(StringRef dir, int64_t index, int rank) {
  std::string name = "/result" + std::to_string(index);
  name += rank < 0 ? ".serial" : ".rank" + std::to_string(rank);
  return dir.str() + name + ".bin";
}

static double combine(ReductionKind kind, double a, double b) {
  switch (kind) {
  case ReductionKind::sum:
  case ReductionKind::avg:
    return a + b;
  case ReductionKind::max:
    return std::max(a, b);
  case ReductionKind::min:
    return std::min(a, b);
  case ReductionKind::prod:
    return a * b;
  }
  return a + b;
}

/// The identity of `kind` on elements of `elementType`, as a double the
/// element type holds: for integers, the extreme values of their width (for
/// i64 and index, the largest double below 2^63, which is above any input).
static double identityOf(ReductionKind kind, Type elementType) {
  bool isFloat = isa<FloatType>(elementType);
  unsigned width =
      elementType.isIndex() ? 64 : elementType.getIntOrFloatBitWidth();
  switch (kind) {
  case ReductionKind::max:
    return isFloat ? -INFINITY : -std::ldexp(1.0, width - 1);
  case ReductionKind::min:
    return isFloat ? INFINITY
                   : width >= 64 ? std::nextafter(std::ldexp(1.0, 63), 0.0)
                                 : std::ldexp(1.0, width - 1) - 1;
  case ReductionKind::prod:
    return 1;
  default:
    return 0;
  }
}

/// Runs the program of the work directory: one rank of the partitioned
/// program, or (--serial) the serial program in a process of its own, so
/// that a crash or a hang of the program under test is reported, with the
/// --timeout, instead of taking dist-run down.
static int runWorker(MLIRContext &context) {
  // A crash here is the program's, not dist-run's: no LLVM stack dump (the
  // driver reports the signal).
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    std::signal(signal, SIG_DFL);
  if (!serialWorker)
    dist_init(nullptr, nullptr);
  int rank = serialWorker ? 0 : dist_world_rank();
  std::string dir = workerDir;
  auto fail = [&](const Twine &message) {
    llvm::errs() << "dist-run: "
                 << (serialWorker ? "serial run" : "rank " + Twine(rank))
                 << ": " << message << "\n";
    return 1;
  };
  std::string programPath =
      dir + (serialWorker ? "/serial.mlir" : "/partitioned.mlir");
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      programPath, sourceMgr, ParserConfig(&context));
  if (!module)
    return fail("cannot parse " + programPath);
  auto wrapper = module->lookupSymbol<func::FuncOp>(kWrapperName);
  func::CallOp call;
  if (wrapper && !wrapper.isExternal())
    call = dyn_cast<func::CallOp>(&wrapper.getBody().front().front());
  func::FuncOp entry =
      call ? module->lookupSymbol<func::FuncOp>(call.getCallee()) : nullptr;
  if (!entry)
    return fail(programPath + " has no @" + kWrapperName +
                " calling the entry; --worker runs what dist-run wrote");

  std::vector<HostTensor> args, results;
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    FailureOr<HostTensor> local =
        describeType(type, entry.getLoc(), "argument " + Twine(i));
    if (failed(local))
      return 1;
    auto sharding = entry.getArgAttrOfType<ShardingAttr>(
        i, DistDialect::getPartitionedAsAttrName());
    if (!sharding || local->isScalar) {
      // Replicated: the whole global value.
      if (failed(readFile(dir + "/arg" + std::to_string(i) + ".bin",
                          local->data)))
        return 1;
      args.push_back(std::move(*local));
      continue;
    }
    Layout layout =
        layoutOf(sharding, module->lookupSymbol<MeshOp>(sharding.getMesh()));
    HostTensor global = *local;
    for (auto [d, axes] : llvm::enumerate(layout.dimAxes))
      global.shape[d] *= meshmath::groupSize(layout.meshShape, axes);
    global.data.resize(global.numElements() * global.elementBytes());
    if (failed(readFile(dir + "/arg" + std::to_string(i) + ".bin",
                        global.data)))
      return 1;
    meshmath::Shape coords = meshmath::delinearize(rank, layout.meshShape);
    meshmath::Shape offsets = meshmath::localOffsets(
        {global.shape.begin(), global.shape.end()}, layout.dimAxes,
        layout.meshShape, coords);
    extractBlock(global, *local, offsets);
    // A partial input: the first rank of each partial group holds the value,
    // the others the identity of the reduction (an average of copies is the
    // value, so every rank keeps it).
    if (!layout.partialAxes.empty() &&
        layout.partialKind != ReductionKind::avg &&
        meshmath::indexInGroup(coords, layout.meshShape, layout.partialAxes) !=
            0)
      for (int64_t e = 0, n = local->numElements(); e < n; ++e)
        local->set(e, identityOf(layout.partialKind, local->elementType));
    args.push_back(std::move(*local));
  }
  for (auto [i, type] : llvm::enumerate(wrapper.getResultTypes())) {
    FailureOr<HostTensor> result =
        describeType(type, entry.getLoc(), "result " + Twine(i));
    if (failed(result))
      return 1;
    results.push_back(std::move(*result));
  }
  std::string objectDump;
  if (keep && rank == 0)
    objectDump = dir + (serialWorker ? "/serial.o" : "/partitioned.rank0.o");
  if (failed(execute(*module, args, results, objectDump)))
    return fail("the program failed");
  if (!serialWorker && rank == corruptRank && !results.empty() &&
      results.front().numElements() > 0)
    results.front().set(0, results.front().get(0) + 1.0);
  for (auto [i, result] : llvm::enumerate(results))
    if (failed(writeFile(resultPath(dir, i, serialWorker ? -1 : rank),
                         result.data)))
      return 1;
  if (!serialWorker)
    dist_finalize();
  return 0;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

static LogicalResult generateInputs(func::FuncOp entry,
                                    std::vector<HostTensor> &inputs) {
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
    FailureOr<HostTensor> tensor =
        describeType(type, entry.getLoc(), "argument " + Twine(i));
    if (failed(tensor))
      return failure();
    if (files.count(i)) {
      if (failed(readFile(files[i], tensor->data)))
        return failure();
      inputs.push_back(std::move(*tensor));
      continue;
    }
    std::mt19937_64 generator(seed * 1000003ull + i);
    if (isa<FloatType>(tensor->elementType)) {
      std::uniform_real_distribution<double> values(-1.0, 1.0);
      for (int64_t e = 0, n = tensor->numElements(); e < n; ++e)
        tensor->set(e, values(generator));
    } else {
      auto range = entry.getArgAttrOfType<DenseI64ArrayAttr>(
          i, DistDialect::getInputRangeAttrName());
      if (!range) {
        emitError(entry.getLoc())
            << "integer argument " << i << " of @" << entry.getName()
            << " needs its values' range: add {"
            << DistDialect::getInputRangeAttrName()
            << " = array<i64: lo, hi>} or pass --input " << i << "=FILE";
        return failure();
      }
      std::uniform_int_distribution<int64_t> values(range[0], range[1] - 1);
      for (int64_t e = 0, n = tensor->numElements(); e < n; ++e)
        tensor->set(e, (double)values(generator));
    }
    inputs.push_back(std::move(*tensor));
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

/// Runs the serial program in a process of its own.
static LogicalResult launchSerial(StringRef self, StringRef dir) {
  SmallVector<std::string> argv = {self.str()};
  appendWorkerOptions(argv, dir);
  argv.push_back("--serial");
  return runChild(argv, std::nullopt, "the serial run");
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
  if (corruptRank >= 0)
    argv.push_back("--corrupt-rank=" + std::to_string(corruptRank));
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

namespace {
struct Comparison {
  double maxAbs = 0, maxRel = 0;
  int64_t mismatches = 0;
};
} // namespace

/// Whether `actual` matches `expected` within the tolerances; NaN matches
/// NaN (both runs computed an undefined value in the same place).
static bool withinTolerance(double expected, double actual) {
  if (std::isnan(expected) || std::isnan(actual))
    return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual))
    return expected == actual;
  return std::fabs(actual - expected) <=
         absTolerance + relTolerance * std::fabs(expected);
}

static void compare(const HostTensor &expected, const HostTensor &actual,
                    Comparison &cmp) {
  for (int64_t i = 0, n = expected.numElements(); i < n; ++i) {
    double e = expected.get(i), a = actual.get(i);
    double abs = std::fabs(a - e);
    double rel = abs / std::max(std::fabs(e), 1e-30);
    if (std::isnan(a) != std::isnan(e))
      abs = rel = INFINITY;
    else if (std::isnan(a) || a == e) // NaN in both; equal infinities
      abs = rel = 0;
    cmp.maxAbs = std::max(cmp.maxAbs, abs);
    if (abs > 0)
      cmp.maxRel = std::max(cmp.maxRel, rel);
    if (!withinTolerance(e, a))
      ++cmp.mismatches;
  }
}

/// Builds the global value of result `index` from every rank's local block.
/// Ranks that differ only along partial axes are reduced; ranks that differ
/// only in axes that neither split nor reduce the result hold copies: the copy
/// of replica 0 is the result, and every element of another copy that differs
/// from it is counted in `replicaMismatch`.
static LogicalResult assembleResult(StringRef dir, int64_t index,
                                    HostTensor &global, HostTensor local,
                                    const Layout &layout, int ranks,
                                    int64_t &replicaMismatch) {
  int64_t n = global.numElements();
  meshmath::AxisList usedAxes = layout.partialAxes;
  for (const meshmath::AxisList &axes : layout.dimAxes)
    usedAxes.insert(usedAxes.end(), axes.begin(), axes.end());
  meshmath::AxisList replicaAxes;
  for (int64_t a = 0; a < (int64_t)layout.meshShape.size(); ++a)
    if (!llvm::is_contained(usedAxes, a))
      replicaAxes.push_back(a);
  bool partial = !layout.partialAxes.empty();

  std::map<int64_t, std::vector<double>> replicas;
  for (int r = 0; r < ranks; ++r) {
    if (failed(readFile(resultPath(dir, index, r), local.data)))
      return failure();
    meshmath::Shape coords = meshmath::delinearize(r, layout.meshShape);
    std::vector<double> &target = replicas[meshmath::indexInGroup(
        coords, layout.meshShape, replicaAxes)];
    if (target.empty())
      target.assign(n, identityOf(layout.partialKind, global.elementType));
    meshmath::Shape offsets = meshmath::localOffsets(
        {global.shape.begin(), global.shape.end()}, layout.dimAxes,
        layout.meshShape, coords);
    forEachIndex(local.shape, [&](int64_t i, ArrayRef<int64_t> idx) {
      double &slot = target[positionIn(global.shape, offsets, idx)];
      slot = partial ? combine(layout.partialKind, slot, local.get(i))
                     : local.get(i);
    });
  }
  if (partial && layout.partialKind == ReductionKind::avg) {
    int64_t groupSize =
        meshmath::groupSize(layout.meshShape, layout.partialAxes);
    for (auto &[replica, values] : replicas)
      for (double &v : values)
        v /= groupSize;
  }
  std::vector<double> &result = replicas[0];
  for (int64_t i = 0; i < n; ++i)
    global.set(i, result[i]);
  for (auto &[replica, values] : replicas)
    for (int64_t i = 0; i < n; ++i)
      if (!withinTolerance(result[i], values[i]))
        ++replicaMismatch;
  return success();
}

static std::string describeLayout(ShardingAttr sharding) {
  if (!sharding)
    return "replicated";
  std::string text;
  llvm::raw_string_ostream os(text);
  Attribute(sharding).print(os);
  return text;
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
  func::FuncOp entry = findEntry(*original);
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

  // Inputs (global shapes), written for the ranks.
  std::vector<HostTensor> inputs;
  if (failed(generateInputs(entry, inputs)))
    return 1;
  for (auto [i, input] : llvm::enumerate(inputs))
    if (failed(writeFile((dir + "/arg" + Twine(i) + ".bin").str(),
                         input.data)))
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
  addRunWrapper(*partitioned, partEntry);
  if (failed(dumpModule(*partitioned, (dir + "/partitioned.mlir").str())))
    return 1;

  // The serial program, run in a process of its own.
  OwningOpRef<ModuleOp> serial = original->clone();
  if (failed(makeSerial(*serial)))
    return 1;
  auto serialEntry = serial->lookupSymbol<func::FuncOp>(entrySymbol);
  addRunWrapper(*serial, serialEntry);
  if (failed(dumpModule(*serial, (dir + "/serial.mlir").str())))
    return 1;
  std::vector<HostTensor> serialResults;
  for (auto [i, type] : llvm::enumerate(
           serial->lookupSymbol<func::FuncOp>(kWrapperName).getResultTypes())) {
    FailureOr<HostTensor> result =
        describeType(type, serialEntry.getLoc(), "result " + Twine(i));
    if (failed(result))
      return 1;
    serialResults.push_back(std::move(*result));
  }
  SmallVector<std::string> resultTypeNames;
  for (Type type : serialEntry.getResultTypes()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    resultTypeNames.push_back(text);
  }
  if (failed(launchSerial(self, dir)))
    return 1;
  for (auto [i, result] : llvm::enumerate(serialResults))
    if (failed(readFile(resultPath(dir, i, /*rank=*/-1), result.data)))
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
  llvm::outs() << "\n";
  llvm::outs().flush();
  if (failed(launchRanks(self, dir, ranks)))
    return 1;

  // Assemble, compare, report.
  int failures = 0;
  for (auto [i, expected] : llvm::enumerate(serialResults)) {
    FailureOr<HostTensor> localOrFailure = describeType(
        partitioned->lookupSymbol<func::FuncOp>(kWrapperName).getResultTypes()[i],
        partEntry.getLoc(), "result " + Twine(i));
    if (failed(localOrFailure))
      return 1;
    HostTensor &local = *localOrFailure;
    ShardingAttr sharding =
        i < partEntry.getNumResults()
            ? partEntry.getResultAttrOfType<ShardingAttr>(
                  i, DistDialect::getPartitionedAsAttrName())
            : ShardingAttr();
    Layout layout;
    if (sharding)
      layout = layoutOf(sharding,
                        partitioned->lookupSymbol<MeshOp>(sharding.getMesh()));
    else if (!meshes.empty())
      layout.meshShape.assign(meshes.front().getShape().begin(),
                              meshes.front().getShape().end());
    if (layout.dimAxes.empty())
      layout.dimAxes.resize(local.shape.size());
    if (layout.meshShape.empty())
      layout.meshShape = {ranks};
    HostTensor actual = expected;
    int64_t replicaMismatch = 0;
    if (failed(assembleResult(dir, i, actual, local, layout, ranks,
                              replicaMismatch)))
      return 1;
    Comparison cmp;
    compare(expected, actual, cmp);
    bool pass = cmp.mismatches == 0 && replicaMismatch == 0;
    failures += !pass;
    const std::string &typeText = resultTypeNames[i];
    llvm::outs() << llvm::formatv(
        "result #{0} {1} {2}: max abs err {3:e2}, max rel err {4:e2}", i,
        typeText, describeLayout(sharding), cmp.maxAbs, cmp.maxRel);
    if (cmp.mismatches)
      llvm::outs() << ", " << cmp.mismatches << " of "
                   << expected.numElements() << " elements differ";
    if (replicaMismatch)
      llvm::outs() << ", " << replicaMismatch
                   << " elements differ between replicas";
    llvm::outs() << (pass ? ": PASS\n" : ": FAIL\n");
  }
  llvm::outs() << (failures ? "FAIL" : "PASS") << ": "
               << serialResults.size() - failures << " of "
               << serialResults.size() << " result(s) match the serial run\n";
  if (keep)
    llvm::outs() << "dist-run: kept the intermediate files in " << dir << "\n";
  return failures ? 1 : 0;
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
