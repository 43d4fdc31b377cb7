//===- Execution.cpp - JIT-compile a program and call it ------------------===//

#include "dist/Tools/DistRun/Execution.h"
#include "dist/Tools/DistRun/Program.h"
#include "dist/Transforms/Pipelines.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/MemRefUtils.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstring>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::run;

CompiledProgram::CompiledProgram() = default;
CompiledProgram::~CompiledProgram() = default;

/// The lowering of `compile` and `compileSharedObject`.
static LogicalResult lower(ModuleOp module, const CompileOptions &options,
                           std::string &error) {
  PassManager pm(module.getContext());
  if (options.gpu) {
    LowerToNVVMOptions lowering;
    lowering.emulateKernels = options.emulateGpuKernels;
    lowering.vectorizeMinThreads = options.gpuVectorizeMinThreads;
    lowering.blockReductionMinExtent = options.gpuBlockReductionMinExtent;
    lowering.blockReductionMinOutputs = options.gpuBlockReductionMinOutputs;
    lowering.updateInPlace = options.updateInPlace;
    buildLowerToNVVMPipeline(pm, lowering);
  } else {
    LowerToLLVMOptions lowering;
    lowering.blas = options.blas;
    lowering.runtimeVerification = options.runtimeVerification;
    lowering.fuseElementwise = options.fuseElementwise;
    lowering.vectorizableReductions = options.vectorizableReductions;
    lowering.approximateMath = options.approximateMath;
    lowering.updateInPlace = options.updateInPlace;
    buildLowerToLLVMPipeline(pm, lowering);
  }
  if (options.debugLines)
    pm.addPass(LLVM::createDIScopeForLLVMFuncOpPass());
  if (failed(pm.run(module))) {
    error = "lowering failed";
    return failure();
  }
  return success();
}

/// The host's target machine: without it LLVM's cost model knows no vector
/// registers and the loop vectorizer leaves every loop scalar.
/// With `portable`, code for another machine of this architecture: x86-64
/// with AVX2 (x86-64-v3), not this host's CPU and features.
static std::unique_ptr<llvm::TargetMachine>
createHostMachine(std::string &error, bool portable = false) {
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder) {
    error = "no target machine for this host: " +
            llvm::toString(machineBuilder.takeError());
    return nullptr;
  }
  if (portable && machineBuilder->getTargetTriple().getArch() ==
                      llvm::Triple::x86_64) {
    machineBuilder->setCPU("x86-64-v3");
    machineBuilder->getFeatures() = llvm::SubtargetFeatures();
  }
  machineBuilder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  machineBuilder->setRelocationModel(llvm::Reloc::PIC_);
  auto machine = machineBuilder->createTargetMachine();
  if (!machine) {
    error = "no target machine for this host: " +
            llvm::toString(machine.takeError());
    return nullptr;
  }
  return std::move(*machine);
}

FailureOr<std::unique_ptr<CompiledProgram>>
CompiledProgram::compile(ModuleOp module, const CompileOptions &options,
                         std::string &error) {
  // Read before lowering rewrites the wrapper.
  SmallVector<int64_t> resultsInArguments =
      getWrapperResultsInArguments(module);
  if (failed(lower(module, options, error)))
    return failure();
  std::unique_ptr<llvm::TargetMachine> machine = createHostMachine(error);
  if (!machine)
    return failure();
  auto transformer = makeOptimizingTransformer(/*optLevel=*/2,
                                               /*sizeLevel=*/0, machine.get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Default;
  engineOptions.enableObjectDump = !options.objectDump.empty();
  SmallVector<StringRef> libraries(options.sharedLibraries.begin(),
                                   options.sharedLibraries.end());
  engineOptions.sharedLibPaths = libraries;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine) {
    error = "JIT compilation failed: " + llvm::toString(engine.takeError());
    return failure();
  }
  if (!options.objectDump.empty())
    (*engine)->dumpToObjectFile(options.objectDump);
  std::unique_ptr<CompiledProgram> program(new CompiledProgram());
  // The entry is looked up once; every call goes through the pointer.
  auto entry =
      (*engine)->lookupPacked(std::string("_mlir_ciface_") + kWrapperName);
  if (!entry) {
    error = "no entry in the compiled program: " +
            llvm::toString(entry.takeError());
    return failure();
  }
  program->packedEntry = *entry;
  program->deviceBuffers = options.gpu;
  program->resultsInArguments.assign(resultsInArguments.begin(),
                                     resultsInArguments.end());
  program->engine = std::move(*engine);
  return program;
}


//===----------------------------------------------------------------------===//
// Ahead of time: a shared object for dist-step
//===----------------------------------------------------------------------===//

/// `dist_step_packed(void **args)`: loads parameter i of the wrapper's C
/// interface from the address in args[i] (a memref's descriptor pointer, or
/// a scalar) and calls it, as the ExecutionEngine's packed functions do.
/// `dist_step_results_in_arguments`: `resultsInArguments`, then -2.
static LogicalResult addPackedEntry(ModuleOp module,
                                    ArrayRef<int64_t> resultsInArguments,
                                    std::string &error) {
  std::string cifaceName = std::string("_mlir_ciface_") + kWrapperName;
  auto ciface = module.lookupSymbol<LLVM::LLVMFuncOp>(cifaceName);
  if (!ciface) {
    error = "the lowered program has no " + cifaceName;
    return failure();
  }
  MLIRContext *context = module.getContext();
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  Location loc = module.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto voidType = LLVM::LLVMVoidType::get(context);
  auto packed = LLVM::LLVMFuncOp::create(
      builder, loc, "dist_step_packed",
      LLVM::LLVMFunctionType::get(voidType, {ptr}));
  Block *body = packed.addEntryBlock(builder);
  builder.setInsertionPointToStart(body);
  SmallVector<Value> operands;
  for (auto [i, type] :
       llvm::enumerate(ciface.getFunctionType().getParams())) {
    Value slot = LLVM::GEPOp::create(builder, loc, ptr, ptr,
                                     body->getArgument(0),
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    Value address = LLVM::LoadOp::create(builder, loc, ptr, slot);
    operands.push_back(LLVM::LoadOp::create(builder, loc, type, address));
  }
  LLVM::CallOp::create(builder, loc, ciface, operands);
  LLVM::ReturnOp::create(builder, loc, ValueRange{});

  builder.setInsertionPointToEnd(module.getBody());
  SmallVector<int64_t> table(resultsInArguments.begin(),
                             resultsInArguments.end());
  table.push_back(-2);
  auto i64 = builder.getI64Type();
  auto arrayType = LLVM::LLVMArrayType::get(i64, table.size());
  LLVM::GlobalOp::create(
      builder, loc, arrayType, /*isConstant=*/true, LLVM::Linkage::External,
      "dist_step_results_in_arguments",
      DenseElementsAttr::get(
          RankedTensorType::get({(int64_t)table.size()}, i64),
          ArrayRef<int64_t>(table)));
  return success();
}

LogicalResult run::compileSharedObject(ModuleOp module,
                                       const CompileOptions &options,
                                       StringRef path, StringRef linker,
                                       ArrayRef<std::string> libraries,
                                       std::string &error) {
  SmallVector<int64_t> resultsInArguments =
      getWrapperResultsInArguments(module);
  if (failed(lower(module, options, error)) ||
      failed(addPackedEntry(module, resultsInArguments, error)))
    return failure();
  std::unique_ptr<llvm::TargetMachine> machine =
      createHostMachine(error, /*portable=*/true);
  if (!machine)
    return failure();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return failure();
  }
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());
  auto transformer =
      makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0, machine.get());
  if (llvm::Error failure = transformer(llvmModule.get())) {
    error = "optimization failed: " + llvm::toString(std::move(failure));
    return mlir::failure();
  }
  std::string object = (path + ".o").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(object, ec, llvm::sys::fs::OF_None);
    if (ec) {
      error = "cannot write " + object + ": " + ec.message();
      return failure();
    }
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, out, nullptr,
                                     llvm::CodeGenFileType::ObjectFile)) {
      error = "this target cannot emit object files";
      return failure();
    }
    codegen.run(*llvmModule);
  }
  // Linked against the libraries the JIT would load: found in lib/ next to
  // the shared object (scripts/device_bundle.sh puts them there for another
  // machine), else where they are on this one.
  // --as-needed: a library the step does not call is not needed where it
  // runs (mlir_c_runner_utils, whose dependencies include libMLIR).
  SmallVector<std::string> argv = {linker.str(), "-shared", "-o", path.str(),
                                   object, "-Wl,-rpath,$ORIGIN/lib",
                                   "-Wl,--as-needed", "-lm"};
  for (const std::string &library : libraries)
    argv.push_back("-Wl,-rpath," +
                   llvm::sys::path::parent_path(library).str());
  argv.append(libraries.begin(), libraries.end());
  SmallVector<StringRef> args(argv.begin(), argv.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0,
                                         &message);
  llvm::sys::fs::remove(object);
  if (status != 0) {
    error = "linking " + path.str() + " with " + linker.str() + " failed" +
            (message.empty() ? "" : ": " + message);
    return failure();
  }
  return success();
}
