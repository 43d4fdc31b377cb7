//===- Execution.cpp - JIT-compile a program and call it ------------------===//

#include "dist/Tools/DistRun/Execution.h"
#include "dist/Transforms/Pipelines.h"

#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/MemRefUtils.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Target/TargetMachine.h"

#include <cstring>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::run;

CompiledProgram::~CompiledProgram() = default;

FailureOr<std::unique_ptr<CompiledProgram>>
CompiledProgram::compile(ModuleOp module, const CompileOptions &options,
                         std::string &error) {
  PassManager pm(module.getContext());
  LowerToLLVMOptions lowering;
  lowering.blas = options.blas;
  lowering.runtimeVerification = options.runtimeVerification;
  lowering.fuseElementwise = options.fuseElementwise;
  lowering.vectorizableReductions = options.vectorizableReductions;
  lowering.approximateMath = options.approximateMath;
  buildLowerToLLVMPipeline(pm, lowering);
  if (options.debugLines)
    pm.addPass(LLVM::createDIScopeForLLVMFuncOpPass());
  if (failed(pm.run(module))) {
    error = "lowering failed";
    return failure();
  }
  ExecutionEngineOptions engineOptions;
  // The host's target machine: without it LLVM's cost model knows no vector
  // registers and the loop vectorizer leaves every loop scalar.
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder) {
    error = "no target machine for this host: " +
            llvm::toString(machineBuilder.takeError());
    return failure();
  }
  machineBuilder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  auto machine = machineBuilder->createTargetMachine();
  if (!machine) {
    error = "no target machine for this host: " +
            llvm::toString(machine.takeError());
    return failure();
  }
  auto transformer = makeOptimizingTransformer(/*optLevel=*/2,
                                               /*sizeLevel=*/0, machine->get());
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
  program->engine = std::move(*engine);
  return program;
}

namespace {
/// An owning memref descriptor of any rank and element width, with
/// identity strides: its data is the row-major array.
class Buffer {
public:
  virtual ~Buffer() = default;
  /// The StridedMemRefType that the C interface takes a pointer to.
  virtual void *descriptor() = 0;
  virtual char *data() = 0;
};

template <typename T, int Rank> class BufferOf : public Buffer {
public:
  explicit BufferOf(ArrayRef<int64_t> shape) : memref(shape) {}
  void *descriptor() override { return &*memref; }
  char *data() override { return reinterpret_cast<char *>(memref->data); }

private:
  OwningMemRef<T, Rank> memref;
};

template <typename T, int Rank = 0>
std::unique_ptr<Buffer> makeBufferOfRank(ArrayRef<int64_t> shape) {
  if constexpr (Rank > kMaxRank) {
    return nullptr;
  } else {
    if ((int)shape.size() == Rank)
      return std::make_unique<BufferOf<T, Rank>>(shape);
    return makeBufferOfRank<T, Rank + 1>(shape);
  }
}

/// A buffer of `array`'s shape whose elements are `array`'s bytes.
std::unique_ptr<Buffer> makeBuffer(const hostdata::HostArray &array) {
  ArrayRef<int64_t> shape(array.shape());
  switch (hostdata::byteWidth(array.dtype())) {
  case 1:
    return makeBufferOfRank<uint8_t>(shape);
  case 2:
    return makeBufferOfRank<uint16_t>(shape);
  case 4:
    return makeBufferOfRank<uint32_t>(shape);
  default:
    return makeBufferOfRank<uint64_t>(shape);
  }
}
} // namespace

LogicalResult CompiledProgram::call(ArrayRef<HostValue> args,
                                    MutableArrayRef<HostValue> results,
                                    std::string &error) {
  // invokePacked takes a pointer to each parameter of the C interface: a
  // scalar's value, or a pointer to a memref descriptor.
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<void *> descriptors;
  descriptors.reserve(args.size() + results.size());
  SmallVector<void *> packed;
  auto addBuffer = [&](const hostdata::HostArray &array) -> Buffer * {
    std::unique_ptr<Buffer> buffer = makeBuffer(array);
    if (!buffer) {
      error = "a tensor of rank " + std::to_string(array.shape().size()) +
              " (dist-run passes ranks up to " + std::to_string(kMaxRank) +
              ")";
      return nullptr;
    }
    descriptors.push_back(buffer->descriptor());
    packed.push_back(&descriptors.back());
    buffers.push_back(std::move(buffer));
    return buffers.back().get();
  };
  for (const HostValue &arg : args) {
    if (arg.isScalar) {
      packed.push_back(const_cast<char *>(arg.array.data()));
      continue;
    }
    Buffer *buffer = addBuffer(arg.array);
    if (!buffer)
      return failure();
    std::memcpy(buffer->data(), arg.array.data(), arg.array.numBytes());
  }
  size_t firstResult = buffers.size();
  for (HostValue &result : results)
    if (!addBuffer(result.array))
      return failure();
  if (llvm::Error callError = engine->invokePacked(
          std::string("_mlir_ciface_") + kWrapperName, packed)) {
    error = "call failed: " + llvm::toString(std::move(callError));
    return failure();
  }
  for (auto [i, result] : llvm::enumerate(results))
    std::memcpy(result.array.data(), buffers[firstResult + i]->data(),
                result.array.numBytes());
  return success();
}
