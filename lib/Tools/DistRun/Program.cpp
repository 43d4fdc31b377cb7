//===- Program.cpp - The programs dist-run builds and runs ----------------===//

#include "dist/Tools/DistRun/Program.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"
#include "dist/Dialect/Dist/IR/StepState.h"
#include "dist/Transforms/Passes.h"
#include "dist/Transforms/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::dist;
using hostdata::DType;

std::optional<DType> run::getHostType(Type type) {
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (type.isIndex())
    return DType::Index;
  if (type.isSignlessInteger(1))
    return DType::I1;
  if (type.isSignlessInteger(8))
    return DType::I8;
  if (type.isSignlessInteger(16))
    return DType::I16;
  if (type.isSignlessInteger(32))
    return DType::I32;
  if (type.isSignlessInteger(64))
    return DType::I64;
  return std::nullopt;
}

FailureOr<run::BoundaryType> run::describeBoundary(Type type, Location loc,
                                                   const Twine &what) {
  BoundaryType boundary;
  Type element = type;
  if (auto ranked = dyn_cast<RankedTensorType>(type)) {
    if (!ranked.hasStaticShape())
      return emitError(loc) << what << " has a dynamic shape " << type
                            << "; dist-run needs static shapes";
    if (ranked.getRank() > kMaxRank)
      return emitError(loc) << what << " has rank " << ranked.getRank()
                            << "; dist-run passes tensors of rank "
                            << kMaxRank << " at most";
    element = ranked.getElementType();
    boundary.shape.assign(ranked.getShape().begin(), ranked.getShape().end());
  } else if (auto memref = dyn_cast<MemRefType>(type)) {
    // The wrapper's result buffers.
    element = memref.getElementType();
    boundary.shape.assign(memref.getShape().begin(), memref.getShape().end());
  } else if (type.isIntOrIndexOrFloat()) {
    boundary.isScalar = true;
  } else {
    return emitError(loc) << what << " has type " << type
                          << "; dist-run supports ranked tensors and scalars";
  }
  std::optional<DType> dtype = getHostType(element);
  if (!dtype)
    return emitError(loc) << what << " has element type " << element
                          << "; dist-run supports f16, bf16, f32, f64, i1, "
                             "i8, i16, i32, i64 and index";
  boundary.dtype = *dtype;
  return boundary;
}

func::FuncOp run::findEntry(ModuleOp module, StringRef name) {
  if (!name.empty()) {
    auto fn = module.lookupSymbol<func::FuncOp>(name);
    if (!fn || fn.isExternal()) {
      emitError(module.getLoc())
          << "no function @" << name << " with a body in the module";
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

meshmath::Layout run::getBoundaryLayout(ModuleOp module, DictionaryAttr attrs,
                                        size_t rank) {
  auto sharding =
      attrs ? attrs.getAs<ShardingAttr>(DistDialect::getPartitionedAsAttrName())
            : ShardingAttr();
  if (MeshOp mesh = sharding ? module.lookupSymbol<MeshOp>(sharding.getMesh())
                             : MeshOp())
    return getLayout(sharding, mesh);
  meshmath::Layout layout;
  layout.dims.resize(rank);
  return layout;
}

SmallVector<int64_t> run::getResultsKeptInArguments(ModuleOp module,
                                                    func::FuncOp entry) {
  // The dialect verifies that no two results update one argument.
  SmallVector<int64_t> kept(entry.getNumResults(), -1);
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
    std::optional<unsigned> arg = getUpdatedArgument(entry, i);
    auto type = dyn_cast<RankedTensorType>(entry.getResultTypes()[i]);
    if (!arg || !type || entry.getArgumentTypes()[*arg] != type ||
        !(getBoundaryLayout(module, entry.getArgAttrDict(*arg),
                            type.getRank()) ==
          getBoundaryLayout(module, entry.getResultAttrDict(i),
                            type.getRank())))
      continue;
    kept[i] = *arg;
  }
  return kept;
}

void run::addRunWrapper(ModuleOp module, func::FuncOp entry) {
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  Location loc = entry.getLoc();
  unsigned numArgs = entry.getNumArguments();
  SmallVector<int64_t> inArguments = getResultsKeptInArguments(module, entry);
  // An argument that keeps a result is passed as its buffer: the wrapper
  // gives the entry a tensor of it (restrict: the only tensor of that
  // buffer, so the entry may update it in place) and writes the result into
  // it after the call.
  SmallVector<Type> argTypes(entry.getArgumentTypes());
  for (int64_t arg : inArguments)
    if (arg >= 0) {
      auto type = cast<RankedTensorType>(argTypes[arg]);
      argTypes[arg] = MemRefType::get(type.getShape(), type.getElementType());
    }
  SmallVector<MemRefType> outTypes;
  for (Type type : entry.getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    outTypes.push_back(tensor ? MemRefType::get(tensor.getShape(),
                                                tensor.getElementType())
                              : MemRefType::get({}, type));
    argTypes.push_back(outTypes.back());
  }
  auto wrapper = func::FuncOp::create(builder, loc, kWrapperName,
                                      builder.getFunctionType(argTypes, {}));
  wrapper->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  Block *body = wrapper.addEntryBlock();
  builder.setInsertionPointToStart(body);
  SmallVector<Value> operands(body->getArguments().take_front(numArgs));
  for (auto [i, operand] : llvm::enumerate(operands))
    if (isa<MemRefType>(operand.getType()))
      operand = bufferization::ToTensorOp::create(
          builder, loc, entry.getArgumentTypes()[i], operand,
          /*restrict=*/true, /*writable=*/true);
  auto call = func::CallOp::create(builder, loc, entry, operands);
  for (auto [i, value] : llvm::enumerate(call.getResults())) {
    bool kept = inArguments[i] >= 0;
    Value tensor = value;
    if (!isa<RankedTensorType>(value.getType()))
      tensor = tensor::FromElementsOp::create(
          builder, loc, RankedTensorType::get({}, value.getType()), value);
    auto copy = bufferization::MaterializeInDestinationOp::create(
        builder, loc, tensor,
        body->getArgument(kept ? inArguments[i] : numArgs + i));
    // The kept argument's buffer is also the entry's operand: not restrict.
    copy.setRestrict(!kept);
    copy.setWritable(true);
  }
  func::ReturnOp::create(builder, loc);
}

SmallVector<int64_t> run::getWrapperResultsInArguments(ModuleOp module) {
  func::FuncOp entry = getWrappedEntry(module);
  if (!entry)
    return {};
  SmallVector<int64_t> inArguments(entry.getNumResults(), -1);
  auto wrapper = module.lookupSymbol<func::FuncOp>(kWrapperName);
  wrapper.walk([&](bufferization::MaterializeInDestinationOp materialize) {
    auto dest = dyn_cast<BlockArgument>(materialize.getDest());
    auto result = dyn_cast<OpResult>(materialize.getSource());
    if (dest && result && isa<func::CallOp>(result.getOwner()) &&
        dest.getArgNumber() < entry.getNumArguments())
      inArguments[result.getResultNumber()] = dest.getArgNumber();
  });
  return inArguments;
}

func::CallOp run::getWrapperCall(ModuleOp module) {
  auto wrapper = module.lookupSymbol<func::FuncOp>(kWrapperName);
  if (!wrapper || wrapper.isExternal())
    return nullptr;
  auto calls = wrapper.getBody().front().getOps<func::CallOp>();
  return calls.empty() ? nullptr : *calls.begin();
}

func::FuncOp run::getWrappedEntry(ModuleOp module) {
  func::CallOp call = getWrapperCall(module);
  return call ? module.lookupSymbol<func::FuncOp>(call.getCallee()) : nullptr;
}

LogicalResult run::buildSerialProgram(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(createDistImportShard());
  pm.addPass(createDistStripAnnotations());
  return pm.run(module);
}

SmallVector<int64_t> run::getUpdatedArguments(func::FuncOp fn) {
  SmallVector<int64_t> updated;
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i) {
    std::optional<unsigned> arg = getUpdatedArgument(fn, i);
    updated.push_back(arg ? (int64_t)*arg : -1);
  }
  return updated;
}

LogicalResult run::writeModuleWithLocations(ModuleOp module, StringRef path) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &message);
  if (!file) {
    llvm::errs() << "dist-run: " << message << "\n";
    return failure();
  }
  module->print(file->os(), OpPrintingFlags().enableDebugInfo(
                                /*enable=*/true, /*prettyForm=*/false));
  file->keep();
  return success();
}

//===----------------------------------------------------------------------===//
// Widening
//===----------------------------------------------------------------------===//

static bool isNarrowFloat(Type type) {
  return type.isF16() || type.isBF16() || type.isF32();
}

/// Whether `type` is or holds a narrow float type.
static bool holdsNarrowFloat(Type type) {
  bool found = false;
  type.walk([&](Type inner) { found |= isNarrowFloat(inner); });
  return found;
}

/// What has no widened meaning, or an empty string.
static std::string findUnwidenable(ModuleOp module) {
  std::string reason;
  module.walk([&](Operation *op) {
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (fn && fn.isExternal() &&
        (llvm::any_of(fn.getArgumentTypes(), holdsNarrowFloat) ||
         llvm::any_of(fn.getResultTypes(), holdsNarrowFloat))) {
      reason = "the external function @" +
               SymbolTable::getSymbolName(op).getValue().str() +
               " takes or returns narrow floats";
      return WalkResult::interrupt();
    }
    bool narrow = llvm::any_of(op->getOperandTypes(), holdsNarrowFloat) ||
                  llvm::any_of(op->getResultTypes(), holdsNarrowFloat);
    if (narrow && op->getName().stripDialect().ends_with("bitcast")) {
      reason = "'" + op->getName().getStringRef().str() +
               "' reinterprets the bits of a float";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return reason;
}

FailureOr<bool> run::widenFloatsToF64(ModuleOp module, std::string &reason) {
  reason = findUnwidenable(module);
  if (!reason.empty())
    return failure();
  MLIRContext *context = module.getContext();
  // TOSA has no f64 (its accumulator types, for one): the reference runs the
  // linalg form of its ops.
  if (module
          .walk([](Operation *op) {
            return isa_and_nonnull<tosa::TosaDialect>(op->getDialect())
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted()) {
    PassManager pm(context);
    addTosaToLinalgPasses(pm);
    if (failed(pm.run(module))) {
      reason = "its TOSA ops do not lower to linalg";
      return failure();
    }
  }
  Type f64 = Float64Type::get(context);
  bool widened = false;
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](FloatType type) -> std::optional<Type> {
    if (!isNarrowFloat(type))
      return std::nullopt;
    widened = true;
    return f64;
  });
  replacer.addReplacement(
      [&](FloatAttr attr)
          -> std::optional<std::pair<Attribute, WalkResult>> {
        if (!isNarrowFloat(attr.getType()))
          return std::nullopt;
        return std::make_pair(FloatAttr::get(f64, attr.getValueAsDouble()),
                              WalkResult::skip());
      });
  replacer.addReplacement(
      [&](DenseElementsAttr attr)
          -> std::optional<std::pair<Attribute, WalkResult>> {
        Type element = attr.getElementType();
        if (!isNarrowFloat(element))
          return std::nullopt;
        auto type = cast<ShapedType>(attr.getType()).clone(f64);
        if (attr.isSplat())
          return std::make_pair(
              DenseElementsAttr::get(
                  type, APFloat(attr.getSplatValue<APFloat>()
                                    .convertToDouble())),
              WalkResult::skip());
        SmallVector<double> values;
        for (APFloat value : attr.getValues<APFloat>()) {
          bool lost;
          value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                        &lost);
          values.push_back(value.convertToDouble());
        }
        return std::make_pair(
            DenseElementsAttr::get(type, ArrayRef<double>(values)),
            WalkResult::skip());
      });
  bool resource = false;
  replacer.addReplacement(
      [&](DenseResourceElementsAttr attr) -> std::optional<Attribute> {
        if (isNarrowFloat(attr.getElementType()))
          resource = true;
        return std::nullopt;
      });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  if (resource) {
    reason = "a constant is a resource of narrow floats";
    return failure();
  }
  // Casts between float types that are both f64 now.
  module.walk([](Operation *op) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(op) ||
        op->getOperand(0).getType() != op->getResult(0).getType())
      return;
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
  });
  // A widened program that does not verify has no meaning: say why.
  std::string firstError;
  {
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
      if (firstError.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
        firstError = diag.str();
      return success();
    });
    if (failed(verify(module))) {
      reason = "the widened program does not verify (" + firstError + ")";
      return failure();
    }
  }
  return widened;
}
