//===- DistGpuEmulateKernels.cpp - A GPU program's kernels on the host ----===//
//
// Without a GPU the lowering to the GPU can still be run end to end: the
// kernels become host functions called once per thread, in a loop nest where
// each launch was, and the rest of the program (device memory, the stream,
// cuBLAS, collectives) stays as it is for a driver whose device memory the
// host can address (the fake driver of test/Runtime).
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPUEMULATEKERNELS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The host function's trailing index arguments, after the kernel's
/// operands: block id, thread id, block size, grid size, x y z each.
enum IdArgument : unsigned {
  kBlockId = 0,
  kThreadId = 3,
  kBlockDim = 6,
  kGridDim = 9,
  kIdArguments = 12
};

constexpr StringLiteral kCheckOperand = "dist_cuda_check_kernel_operand";
constexpr StringLiteral kCountLaunch = "dist_cuda_emulated_launch";

unsigned dimensionIndex(gpu::Dimension dimension) {
  return static_cast<unsigned>(dimension);
}

struct DistGpuEmulateKernelsPass
    : public dist::impl::DistGpuEmulateKernelsBase<DistGpuEmulateKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    OpBuilder builder(module.getContext());

    // Kernels to host functions, named by their launches' references.
    llvm::StringMap<func::FuncOp> hostKernels;
    SmallVector<gpu::GPUModuleOp> gpuModules(
        module.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      if (failed(moveToHost(gpuModule, symbols, builder, hostKernels)))
        return signalPassFailure();

    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches)
      if (failed(emulateLaunch(launch, module, symbols, builder, hostKernels)))
        return signalPassFailure();

    for (gpu::GPUModuleOp gpuModule : gpuModules)
      gpuModule.erase();
  }

  static std::string referenceName(StringRef gpuModule, StringRef kernel) {
    return (gpuModule + "::" + kernel).str();
  }

  /// Makes a host function of each kernel of `gpuModule` and moves the
  /// module's other symbols (constants the kernels read) to the host module.
  LogicalResult moveToHost(gpu::GPUModuleOp gpuModule, SymbolTable &symbols,
                           OpBuilder &builder,
                           llvm::StringMap<func::FuncOp> &hostKernels) {
    ModuleOp module = getOperation();
    for (Operation &op :
         llvm::make_early_inc_range(gpuModule.getBody()->getOperations())) {
      if (auto kernel = dyn_cast<gpu::GPUFuncOp>(op)) {
        FailureOr<func::FuncOp> host =
            kernelToHost(kernel, gpuModule, symbols, builder);
        if (failed(host))
          return failure();
        hostKernels[referenceName(gpuModule.getName(), kernel.getName())] =
            *host;
        continue;
      }
      auto symbol = dyn_cast<SymbolOpInterface>(op);
      if (!symbol)
        return op.emitError("cannot emulate a GPU module holding '")
               << op.getName() << "' on the host: only kernels and symbols";
      // Kernel outlining copies the host's constants the kernels read: the
      // host keeps its own when it is the same.
      if (Operation *existing = symbols.lookup(symbol.getName())) {
        if (existing->getName() != op.getName() ||
            existing->getAttrDictionary() != op.getAttrDictionary())
          return op.emitError("cannot move '")
                 << symbol.getName()
                 << "' of the GPU module to the host: the host module has "
                    "another symbol of that name";
        continue;
      }
      op.moveBefore(module.getBody(), module.getBody()->end());
      symbols.insert(&op);
    }
    return success();
  }

  FailureOr<func::FuncOp> kernelToHost(gpu::GPUFuncOp kernel,
                                       gpu::GPUModuleOp gpuModule,
                                       SymbolTable &symbols,
                                       OpBuilder &builder) {
    if (!kernel.isKernel())
      return kernel.emitError("cannot emulate device function @")
             << kernel.getName()
             << " on the host: only kernels (functions launched from the "
                "host) are emulated";
    if (kernel.getNumWorkgroupAttributions() != 0 ||
        kernel.getNumPrivateAttributions() != 0)
      return kernel.emitError("cannot emulate kernel @")
             << kernel.getName()
             << " on the host: it has workgroup or private memory (threads "
                "run one after another)";
    std::string name =
        ("__dist_emulated_" + gpuModule.getName() + "_" + kernel.getName())
            .str();
    if (symbols.lookup(name))
      return kernel.emitError("cannot emulate kernel @")
             << kernel.getName() << " on the host: the host module already "
             << "has a symbol named '" << name << "'";

    WalkResult unsupported = kernel.walk([&](Operation *op) {
      if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp,
              gpu::GridDimOp, gpu::ReturnOp>(op) ||
          op == kernel.getOperation() ||
          op->getDialect() != kernel->getDialect())
        return WalkResult::advance();
      op->emitError("cannot emulate '")
          << op->getName() << "' in kernel @" << kernel.getName()
          << " on the host (threads run one after another, each to its end)";
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      return failure();

    MLIRContext *context = kernel.getContext();
    SmallVector<Type> inputs(kernel.getArgumentTypes());
    inputs.append(kIdArguments, builder.getIndexType());
    builder.setInsertionPointToEnd(getOperation().getBody());
    auto host = func::FuncOp::create(builder, kernel.getLoc(), name,
                                     FunctionType::get(context, inputs, {}));
    host.setPrivate();
    host.getBody().takeBody(kernel.getBody());
    Block &entry = host.getBody().front();
    SmallVector<Value> ids;
    for (unsigned i = 0; i < kIdArguments; ++i)
      ids.push_back(entry.addArgument(builder.getIndexType(), kernel.getLoc()));
    symbols.insert(host);

    host.walk([&](Operation *op) {
      Value replacement;
      if (auto id = dyn_cast<gpu::BlockIdOp>(op))
        replacement = ids[kBlockId + dimensionIndex(id.getDimension())];
      else if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
        replacement = ids[kThreadId + dimensionIndex(id.getDimension())];
      else if (auto size = dyn_cast<gpu::BlockDimOp>(op))
        replacement = ids[kBlockDim + dimensionIndex(size.getDimension())];
      else if (auto size = dyn_cast<gpu::GridDimOp>(op))
        replacement = ids[kGridDim + dimensionIndex(size.getDimension())];
      if (replacement) {
        op->getResult(0).replaceAllUsesWith(replacement);
        op->erase();
        return;
      }
      if (auto ret = dyn_cast<gpu::ReturnOp>(op)) {
        OpBuilder atReturn(ret);
        func::ReturnOp::create(atReturn, ret.getLoc(), ret.getOperands());
        ret.erase();
      }
    });
    return host;
  }

  /// Calls the runtime's check that each buffer operand of `launch` lies
  /// in device memory (on a GPU the kernel would fault on host memory).
  /// `kernelName` is the address of the kernel's name (for messages).
  LogicalResult checkOperandsOnDevice(gpu::LaunchFuncOp launch,
                                      ModuleOp module, SymbolTable &symbols,
                                      OpBuilder &builder, Value kernelName) {
    MLIRContext *context = module.getContext();
    Location loc = launch.getLoc();
    auto pointer = LLVM::LLVMPointerType::get(context);
    Type i64 = builder.getI64Type();
    bool declared = false;
    for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type)
        continue;
      Type element = type.getElementType();
      int64_t elementBytes = element.isIndex() ? 8
                             : element.isIntOrFloat()
                                 ? llvm::divideCeil(
                                       element.getIntOrFloatBitWidth(), 8)
                                 : 0;
      if (!elementBytes)
        continue;
      if (!declared) {
        if (failed(declareExternalFunction(
                builder, module, symbols, kCheckOperand,
                {pointer, i64, i64, pointer}, {}, StreamOrdering::NoSync)))
          return failure();
        declared = true;
      }
      // The elements span [offset, offset + sum (size - 1) stride] of the
      // aligned pointer; an empty buffer spans nothing.
      auto metadata =
          memref::ExtractStridedMetadataOp::create(builder, loc, operand);
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      Value span = one, empty = arith::ConstantIntOp::create(
                                    builder, loc, builder.getI1Type(), 0);
      for (auto [size, stride] :
           llvm::zip(metadata.getSizes(), metadata.getStrides())) {
        Value last = arith::SubIOp::create(builder, loc, size, one);
        span = arith::AddIOp::create(
            builder, loc, span,
            arith::MulIOp::create(builder, loc, last, stride));
        empty = arith::OrIOp::create(
            builder, loc, empty,
            arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                  size, zero));
      }
      Value width = arith::ConstantIndexOp::create(builder, loc, elementBytes);
      Value bytes = arith::SelectOp::create(
          builder, loc, empty, zero,
          arith::MulIOp::create(builder, loc, span, width));
      Value aligned = memref::ExtractAlignedPointerAsIndexOp::create(
          builder, loc, operand);
      Value start = arith::AddIOp::create(
          builder, loc, aligned,
          arith::MulIOp::create(builder, loc, metadata.getOffset(), width));
      auto asI64 = [&](Value value) -> Value {
        return arith::IndexCastOp::create(builder, loc, i64, value);
      };
      Value startPointer =
          LLVM::IntToPtrOp::create(builder, loc, pointer, asI64(start));
      Value operandIndex = arith::ConstantIntOp::create(builder, loc, i64,
                                                        int64_t(index));
      func::CallOp::create(builder, loc, kCheckOperand, TypeRange{},
                           ValueRange{startPointer, asI64(bytes), operandIndex,
                                      kernelName});
    }
    return success();
  }

  /// The address of a constant string naming the launched kernel
  /// ("module::kernel"), for the runtime's messages.
  Value nameOf(gpu::LaunchFuncOp launch, ModuleOp module,
               OpBuilder &builder) {
    SymbolRefAttr kernel = launch.getKernel();
    std::string text = referenceName(kernel.getRootReference(),
                                     kernel.getLeafReference());
    std::string symbol = "__dist_emulated_name_" +
                         kernel.getRootReference().str() + "_" +
                         kernel.getLeafReference().str();
    MLIRContext *context = module.getContext();
    if (!module.lookupSymbol(symbol)) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(module.getBody());
      text.push_back('\0');
      auto type = LLVM::LLVMArrayType::get(IntegerType::get(context, 8),
                                           text.size());
      LLVM::GlobalOp::create(builder, launch.getLoc(), type,
                             /*isConstant=*/true, LLVM::Linkage::Internal,
                             symbol, builder.getStringAttr(text));
    }
    return LLVM::AddressOfOp::create(builder, launch.getLoc(),
                                     LLVM::LLVMPointerType::get(context),
                                     symbol);
  }

  /// Replaces `launch` by the host's wait for its stream and a loop nest
  /// over blocks and threads calling the kernel's host function.
  LogicalResult emulateLaunch(gpu::LaunchFuncOp launch, ModuleOp module,
                              SymbolTable &symbols, OpBuilder &builder,
                              const llvm::StringMap<func::FuncOp> &hostKernels) {
    SymbolRefAttr kernelName = launch.getKernel();
    func::FuncOp host = hostKernels.lookup(referenceName(
        kernelName.getRootReference(), kernelName.getLeafReference()));
    if (!host)
      return launch.emitError("cannot emulate the launch of ")
             << kernelName << ": no such kernel in the module";
    if (launch.hasClusterSize())
      return launch.emitError("cannot emulate the launch of ")
             << kernelName << " on the host: it has cluster sizes";
    if (Value sharedMemory = launch.getDynamicSharedMemorySize()) {
      std::optional<int64_t> bytes = getConstantIntValue(sharedMemory);
      if (!bytes || *bytes != 0)
        return launch.emitError("cannot emulate the launch of ")
               << kernelName << " on the host: it has dynamic shared memory";
    }

    Location loc = launch.getLoc();
    builder.setInsertionPoint(launch);
    auto pointer = LLVM::LLVMPointerType::get(builder.getContext());
    if (Value token = launch.getAsyncToken()) {
      ValueRange dependencies = launch.getAsyncDependencies();
      Value ready = dependencies.size() == 1
                        ? dependencies.front()
                        : gpu::WaitOp::create(builder, loc, token.getType(),
                                              dependencies)
                              .getAsyncToken();
      // The work queued before the kernel is done when it runs.
      Value stream = UnrealizedConversionCastOp::create(
                         builder, loc, TypeRange{pointer}, ValueRange{ready})
                         .getResult(0);
      if (failed(declareExternalFunction(builder, module, symbols,
                                         "mgpuStreamSynchronize", {pointer},
                                         {}, StreamOrdering::NoSync)))
        return failure();
      func::CallOp::create(builder, loc, "mgpuStreamSynchronize", TypeRange{},
                           ValueRange{stream});
      token.replaceAllUsesWith(ready);
    } else if (!launch.getAsyncDependencies().empty()) {
      return launch.emitError("cannot emulate the launch of ")
             << kernelName
             << ": it waits for tokens but gives none (not a GPU program "
                "dist-gpu-streams made)";
    }

    // Counted as a launch (DIST_CUDA_PROFILE=1), then its operands checked.
    if (failed(declareExternalFunction(builder, module, symbols, kCountLaunch,
                                       {pointer}, {}, StreamOrdering::NoSync)))
      return failure();
    Value name = nameOf(launch, module, builder);
    func::CallOp::create(builder, loc, kCountLaunch, TypeRange{},
                         ValueRange{name});
    if (failed(checkOperandsOnDevice(launch, module, symbols, builder, name)))
      return failure();

    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    SmallVector<Value> lowerBounds(6, zero), steps(6, one);
    SmallVector<Value> upperBounds = {grid.z,  grid.y,  grid.x,
                                      block.z, block.y, block.x};
    SmallVector<Value> operands(launch.getKernelOperands());
    scf::buildLoopNest(
        builder, loc, lowerBounds, upperBounds, steps,
        [&](OpBuilder &body, Location bodyLoc, ValueRange ivs) {
          SmallVector<Value> arguments(operands);
          arguments.append({ivs[2], ivs[1], ivs[0], ivs[5], ivs[4], ivs[3],
                            block.x, block.y, block.z, grid.x, grid.y,
                            grid.z});
          func::CallOp::create(body, bodyLoc, host, arguments);
        });
    launch.erase();
    return success();
  }
};

} // namespace
