//===- DistGpuEmulateKernels.cpp - A GPU program's kernels on the host ----===//
//
// Without a GPU the lowering to the GPU can still be run end to end: the
// kernels become host functions called once per thread, in a loop nest where
// each launch was, and the rest of the program (device memory, the stream,
// cuBLAS, collectives) stays as it is for a driver whose device memory the
// host can address (the fake driver of test/Runtime). A kernel whose threads
// meet (a barrier, a block-wide reduction) at its top level becomes a host
// function per block instead: its threads run each stretch between two
// meetings one after another, so every thread has arrived when the next
// stretch starts.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

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

/// Whether the threads of a block meet at `op`: none goes on before all
/// have reached it.
bool isMeeting(Operation *op) {
  return isa<gpu::BarrierOp, gpu::AllReduceOp>(op);
}

/// Whether a thread's `value` is kept in a buffer across a meeting (a
/// scalar or vector that is not a constant); others are made again.
bool isKeptInBuffer(Value value) {
  return isa<IntegerType, FloatType, IndexType, VectorType>(value.getType()) &&
         !value.getDefiningOp()->hasTrait<OpTrait::ConstantLike>();
}

/// Replaces the GPU's id and size ops under `root` by `ids` (laid out as
/// the host function's trailing arguments).
void replaceIdOps(Operation *root, ArrayRef<Value> ids) {
  root->walk([&](Operation *op) {
    Value replacement;
    if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replacement = ids[kBlockId + dimensionIndex(id.getDimension())];
    else if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      replacement = ids[kThreadId + dimensionIndex(id.getDimension())];
    else if (auto size = dyn_cast<gpu::BlockDimOp>(op))
      replacement = ids[kBlockDim + dimensionIndex(size.getDimension())];
    else if (auto size = dyn_cast<gpu::GridDimOp>(op))
      replacement = ids[kGridDim + dimensionIndex(size.getDimension())];
    if (!replacement)
      return;
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  });
}

struct DistGpuEmulateKernelsPass
    : public dist::impl::DistGpuEmulateKernelsBase<DistGpuEmulateKernelsPass> {
  /// The host functions that run a whole block (their kernels' threads
  /// meet).
  llvm::SmallPtrSet<Operation *, 8> blockKernels;

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

    bool meets = false;
    WalkResult unsupported = kernel.walk([&](Operation *op) {
      if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp,
              gpu::GridDimOp, gpu::ReturnOp>(op) ||
          op == kernel.getOperation() ||
          op->getDialect() != kernel->getDialect())
        return WalkResult::advance();
      // The threads of a block meet at the kernel's top level: the stretches
      // between meetings run thread by thread (see blockKernelToHost).
      if (isMeeting(op) && op->getParentOp() == kernel.getOperation()) {
        meets = true;
        return WalkResult::advance();
      }
      if (isa<gpu::YieldOp>(op) && isa<gpu::AllReduceOp>(op->getParentOp()))
        return WalkResult::advance();
      op->emitError("cannot emulate '")
          << op->getName() << "' in kernel @" << kernel.getName()
          << " on the host (threads run one after another, each to its "
             "end; only a barrier or a block-wide reduction at the kernel's "
             "top level is a point where they meet)";
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      return failure();
    if (meets)
      return blockKernelToHost(kernel, name, symbols, builder);

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

    replaceIdOps(host, ids);
    host.walk([&](gpu::ReturnOp ret) {
      OpBuilder atReturn(ret);
      func::ReturnOp::create(atReturn, ret.getLoc(), ret.getOperands());
      ret.erase();
    });
    return host;
  }

  /// The host function of a kernel whose threads meet at its top level
  /// (`gpu.barrier`, `gpu.all_reduce`). Called once per block, with a
  /// thread's arguments (the thread ids unused), it runs each stretch of
  /// the kernel between two meetings in a loop over the block's threads, so
  /// that all have arrived when the next stretch starts. A value that a
  /// later stretch (or a meeting) reads is kept per thread in a buffer
  /// (scalars and vectors) or made again from what is at hand there (a
  /// view); a block-wide reduction combines the threads' values in the
  /// order of their linear ids.
  FailureOr<func::FuncOp> blockKernelToHost(gpu::GPUFuncOp kernel,
                                            StringRef name,
                                            SymbolTable &symbols,
                                            OpBuilder &builder) {
    auto refuse = [&](Operation *at) {
      return at->emitError("cannot emulate kernel @")
             << kernel.getName() << " on the host: ";
    };
    if (!kernel.getBody().hasOneBlock())
      return refuse(kernel) << "its threads meet and its body has several "
                               "blocks";
    Block &body = kernel.getBody().front();

    // The stretches; a meeting belongs to the stretch after it (it reads
    // the values all threads made before it).
    SmallVector<SmallVector<Operation *>> stretches(1);
    SmallVector<Operation *> meetings;
    DenseMap<Operation *, unsigned> stretchOf;
    for (Operation &op : body.without_terminator()) {
      if (isMeeting(&op)) {
        meetings.push_back(&op);
        stretches.emplace_back();
        stretchOf[&op] = stretches.size() - 1;
        continue;
      }
      stretchOf[&op] = stretches.size() - 1;
      stretches.back().push_back(&op);
    }

    // The values kept across meetings: read in a later stretch, or needed
    // there to make again such a value that is not kept in a buffer.
    SetVector<Value> kept;
    SmallVector<std::pair<Value, unsigned>> worklist;
    auto neededIn = [&](Value value, unsigned stretch) {
      Operation *def = value.getDefiningOp();
      if (def && def->getBlock() == &body && !isMeeting(def) &&
          stretchOf.lookup(def) < stretch)
        worklist.push_back({value, stretch});
    };
    for (Operation &op : body.without_terminator())
      for (Value result : op.getResults())
        for (Operation *user : result.getUsers())
          if (Operation *top = body.findAncestorOpInBlock(*user);
              top && stretchOf.contains(top))
            neededIn(result, stretchOf.lookup(top));
    while (!worklist.empty()) {
      auto [value, stretch] = worklist.pop_back_val();
      if (!kept.insert(value) || isKeptInBuffer(value))
        continue;
      Operation *def = value.getDefiningOp();
      if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
        return refuse(def) << "a value of type " << value.getType()
                           << " crosses a meeting of its threads (only "
                              "scalars and vectors are kept, views made "
                              "again)";
      for (Value operand : def->getOperands())
        neededIn(operand, stretch);
    }

    MLIRContext *context = kernel.getContext();
    Location loc = kernel.getLoc();
    SmallVector<Type> inputs(kernel.getArgumentTypes());
    inputs.append(kIdArguments, builder.getIndexType());
    builder.setInsertionPointToEnd(getOperation().getBody());
    auto host = func::FuncOp::create(builder, loc, name,
                                     FunctionType::get(context, inputs, {}));
    host.setPrivate();
    Block *entry = host.addEntryBlock();
    symbols.insert(host);
    blockKernels.insert(host.getOperation());
    SmallVector<Value> ids(entry->getArguments().take_back(kIdArguments));

    // Values every thread sees alike: the kernel's arguments and the
    // meetings' results.
    IRMapping uniform;
    uniform.map(body.getArguments(),
                entry->getArguments().take_front(body.getNumArguments()));
    OpBuilder top = OpBuilder::atBlockBegin(entry);
    Value threads = arith::MulIOp::create(
        top, loc,
        arith::MulIOp::create(top, loc, ids[kBlockDim], ids[kBlockDim + 1]),
        ids[kBlockDim + 2]);
    DenseMap<Value, Value> buffers;
    for (Value value : kept)
      if (isKeptInBuffer(value))
        buffers[value] = memref::AllocaOp::create(
            top, loc, MemRefType::get({ShapedType::kDynamic}, value.getType()),
            ValueRange{threads});

    // Maps `value` (made before the current stretch) to its value in the
    // thread `linear`: loaded from its buffer, or made again.
    std::function<void(Value, OpBuilder &, IRMapping &, Value)> recall =
        [&](Value value, OpBuilder &at, IRMapping &mapping, Value linear) {
          if (mapping.contains(value))
            return;
          if (Value buffer = buffers.lookup(value)) {
            mapping.map(value, memref::LoadOp::create(at, loc, buffer,
                                                      ValueRange{linear}));
            return;
          }
          Operation *def = value.getDefiningOp();
          for (Value operand : def->getOperands())
            recall(operand, at, mapping, linear);
          at.clone(*def, mapping);
        };

    Value zero = arith::ConstantIndexOp::create(top, loc, 0);
    Value one = arith::ConstantIndexOp::create(top, loc, 1);
    for (unsigned index = 0; index < stretches.size(); ++index) {
      ArrayRef<Operation *> stretch = stretches[index];
      if (!stretch.empty()) {
        SmallVector<Value> lowerBounds(3, zero), steps(3, one);
        SmallVector<Value> upperBounds = {ids[kBlockDim + 2],
                                          ids[kBlockDim + 1], ids[kBlockDim]};
        scf::LoopNest nest = scf::buildLoopNest(
            top, loc, lowerBounds, upperBounds, steps,
            [&](OpBuilder &at, Location, ValueRange ivs) {
              // Thread (x, y, z) is number (z * ny + y) * nx + x.
              Value zy = arith::AddIOp::create(
                  at, loc,
                  arith::MulIOp::create(at, loc, ivs[0], ids[kBlockDim + 1]),
                  ivs[1]);
              Value linear = arith::AddIOp::create(
                  at, loc, arith::MulIOp::create(at, loc, zy, ids[kBlockDim]),
                  ivs[2]);
              IRMapping mapping = uniform;
              auto fetch = [&](Value value) {
                if (value.getParentBlock() == &body)
                  recall(value, at, mapping, linear);
              };
              for (Operation *op : stretch) {
                llvm::for_each(op->getOperands(), fetch);
                visitUsedValuesDefinedAbove(
                    op->getRegions(),
                    [&](OpOperand *use) { fetch(use->get()); });
                at.clone(*op, mapping);
                for (Value result : op->getResults())
                  if (Value buffer = buffers.lookup(result))
                    memref::StoreOp::create(at, loc, mapping.lookup(result),
                                            buffer, ValueRange{linear});
              }
            });
        SmallVector<Value> threadIds(ids);
        for (unsigned dim = 0; dim < 3; ++dim)
          threadIds[kThreadId + dim] = nest.loops[2 - dim].getInductionVar();
        replaceIdOps(nest.loops.front(), threadIds);
      }
      if (index == meetings.size())
        break;
      auto reduction = dyn_cast<gpu::AllReduceOp>(meetings[index]);
      if (!reduction)
        continue; // a barrier: the loop above was it
      FailureOr<Value> combined =
          combineThreads(reduction, kernel, top, uniform, buffers, threads);
      if (failed(combined))
        return failure();
      uniform.map(reduction.getResult(), *combined);
    }
    func::ReturnOp::create(top, loc);
    return host;
  }

  /// The result of the block-wide reduction `reduction`: its operand in
  /// every thread of the block combined in the order of their linear ids.
  FailureOr<Value> combineThreads(gpu::AllReduceOp reduction,
                                  gpu::GPUFuncOp kernel, OpBuilder &top,
                                  const IRMapping &uniform,
                                  const DenseMap<Value, Value> &buffers,
                                  Value threads) {
    Location loc = reduction.getLoc();
    Value operand = reduction.getValue();
    Value buffer = buffers.lookup(operand);
    auto valueOf = [&](OpBuilder &at, Value thread) -> Value {
      if (buffer)
        return memref::LoadOp::create(at, loc, buffer, ValueRange{thread});
      return uniform.lookup(operand);
    };
    // The combining region is isolated from above: only its arguments.
    Region &region = reduction.getBody();
    if (!reduction.getOp() && !region.hasOneBlock())
      return reduction.emitError("cannot emulate kernel @")
             << kernel.getName()
             << " on the host: a block-wide reduction whose combining region "
                "has several blocks";
    Value zero = arith::ConstantIndexOp::create(top, loc, 0);
    Value one = arith::ConstantIndexOp::create(top, loc, 1);
    auto loop = scf::ForOp::create(
        top, loc, one, threads, one, ValueRange{valueOf(top, zero)},
        [&](OpBuilder &at, Location, Value thread, ValueRange accumulated) {
          Value next = valueOf(at, thread);
          Value result;
          if (std::optional<gpu::AllReduceOperation> kind =
                  reduction.getOp()) {
            result = vector::makeArithReduction(
                at, loc, gpu::convertReductionKind(*kind), accumulated[0],
                next);
          } else {
            IRMapping mapping;
            Block &combiner = region.front();
            mapping.map(combiner.getArgument(0), accumulated[0]);
            mapping.map(combiner.getArgument(1), next);
            for (Operation &op : combiner.without_terminator())
              at.clone(op, mapping);
            result = mapping.lookupOrDefault(
                combiner.getTerminator()->getOperand(0));
          }
          scf::YieldOp::create(at, loc, result);
        });
    return loop.getResult(0);
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
    // A block's function runs its threads itself: the loops cover the grid.
    bool perBlock = blockKernels.contains(host.getOperation());
    if (perBlock)
      upperBounds.resize(3);
    scf::buildLoopNest(
        builder, loc, ArrayRef(lowerBounds).take_front(upperBounds.size()),
        upperBounds, ArrayRef(steps).take_front(upperBounds.size()),
        [&](OpBuilder &body, Location bodyLoc, ValueRange ivs) {
          SmallVector<Value> arguments(operands);
          arguments.append({ivs[2], ivs[1], ivs[0]});
          if (perBlock)
            arguments.append({zero, zero, zero});
          else
            arguments.append({ivs[5], ivs[4], ivs[3]});
          arguments.append(
              {block.x, block.y, block.z, grid.x, grid.y, grid.z});
          func::CallOp::create(body, bodyLoc, host, arguments);
        });
    launch.erase();
    return success();
  }
};

} // namespace
