//===- DistChunkCollectives.cpp - Large reduce-scatters in chunks --------===//
//
// A reduce_scatter of a fresh gradient needs the full gradient on every rank
// for a moment; cutting the producer and the collective into tiles along a
// dimension the collective leaves whole bounds that moment by a chunk.
//
//===----------------------------------------------------------------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Transforms/Passes.h"
#include "LoweringUtils.h"

#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "dist-chunk-collectives"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTCHUNKCOLLECTIVES
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistChunkCollectivesPass
    : public dist::impl::DistChunkCollectivesBase<DistChunkCollectivesPass> {
  using DistChunkCollectivesBase::DistChunkCollectivesBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    DistChunkCollectivesBase::getDependentDialects(registry);
    // Linalg ops are tiled through their TilingInterface models.
    linalg::registerTilingInterfaceExternalModels(registry);
  }

  LogicalResult initialize(MLIRContext *context) override {
    if (!(maxMB > 0))
      return emitError(UnknownLoc::get(context))
             << "dist-chunk-collectives: max-mb must be positive, got "
             << static_cast<double>(maxMB);
    return success();
  }

  void runOnOperation() override;
};

/// Records the ops a builder makes, to take them back when tiling fails.
struct CreatedOps : public OpBuilder::Listener {
  SmallVector<Operation *> ops;
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
  void eraseAll() {
    for (Operation *op : llvm::reverse(ops)) {
      op->dropAllUses();
      op->erase();
    }
    ops.clear();
  }
};

/// A collective worth chunking: its one input, the op that makes it, and the
/// dims along which input and output are sliced alike (largest first).
struct Candidate {
  CollectiveOpInterface collective;
  TilingInterface producer;
  SmallVector<int64_t> freeDims;
};
} // namespace

static std::optional<Candidate> matchCandidate(CollectiveOpInterface op,
                                               int64_t maxBytes) {
  if (op.getAsyncToken() || op->getNumOperands() != 1 ||
      op->getNumResults() != 1)
    return std::nullopt;
  auto inType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto outType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!inType || !outType || !inType.hasStaticShape() ||
      !outType.hasStaticShape() || inType.getRank() != outType.getRank())
    return std::nullopt;
  std::optional<int64_t> inBytes = getStaticBytes(inType);
  std::optional<int64_t> outBytes = getStaticBytes(outType);
  // A full-size output would keep the full size alive anyway.
  if (!inBytes || !outBytes || *inBytes <= maxBytes || *outBytes >= *inBytes)
    return std::nullopt;
  Value input = op->getOperand(0);
  auto producer = input.getDefiningOp<TilingInterface>();
  if (!producer || producer->getNumResults() != 1 || !input.hasOneUse() ||
      producer->getBlock() != op->getBlock())
    return std::nullopt;
  Candidate candidate{op, producer, {}};
  for (int64_t d = 0; d < inType.getRank(); ++d)
    if (d != op.getInputBlockDim() && d != op.getOutputBlockDim() &&
        inType.getDimSize(d) == outType.getDimSize(d) &&
        inType.getDimSize(d) > 1)
      candidate.freeDims.push_back(d);
  llvm::sort(candidate.freeDims, [&](int64_t a, int64_t b) {
    return inType.getDimSize(a) > inType.getDimSize(b) ||
           (inType.getDimSize(a) == inType.getDimSize(b) && a < b);
  });
  if (candidate.freeDims.empty())
    return std::nullopt;
  return candidate;
}

/// The number of chunks along a dim of `size`: the smallest divisor of size
/// whose chunks of `bytes / chunks` fit `maxBytes` (size when none does).
static int64_t chunkCount(int64_t size, int64_t bytes, int64_t maxBytes) {
  int64_t needed = llvm::divideCeil(bytes, maxBytes);
  for (int64_t k = needed; k < size; ++k)
    if (size % k == 0)
      return k;
  return size;
}

/// Makes the inits of `tiled` that slice a result of another tileable op
/// (the zero fill of an accumulator) per tile: the full-size init then never
/// exists.
static LogicalResult fuseInitProducers(OpBuilder &b, Operation *tiled,
                                       Operation *producer) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(tiled);
  if (!dps)
    return success();
  for (OpOperand &init : dps.getDpsInitsMutable()) {
    auto slice = init.get().getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !slice.hasUnitStride())
      continue;
    auto source = dyn_cast<OpResult>(slice.getSource());
    auto initProducer =
        source ? dyn_cast<TilingInterface>(source.getOwner()) : nullptr;
    // Made per tile, it is computed once in all, unless something else uses
    // it; then only one that reads no tensor but its init (a fill, shared
    // by CSE) is worth making again.
    auto onlyInitsProducer = [&] {
      return llvm::all_of(source.getUsers(), [&](Operation *user) {
        return user == producer || isa<tensor::ExtractSliceOp>(user);
      });
    };
    auto readsNoTensor = [&] {
      auto initDps = dyn_cast<DestinationStyleOpInterface>(*initProducer);
      return initDps && llvm::none_of(initDps.getDpsInputs(), [](Value v) {
               return isa<TensorType>(v.getType());
             });
    };
    if (!initProducer || initProducer->getNumResults() != 1 ||
        !(onlyInitsProducer() || readsNoTensor()))
      continue;
    b.setInsertionPoint(tiled);
    FailureOr<TilingResult> tile = initProducer.generateResultTileValue(
        b, source.getResultNumber(), slice.getMixedOffsets(),
        slice.getMixedSizes());
    if (failed(tile))
      return failure();
    init.set(tile->tiledValues.front());
  }
  return success();
}

/// Tiles of `candidate`'s producer along `dim` and the collective of each;
/// null values when the producer cannot be tiled so (nothing is left made).
static SmallVector<Value> makeChunks(const Candidate &candidate, int64_t dim,
                                     int64_t chunks) {
  Operation *op = candidate.collective;
  auto inType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t chunkSize = inType.getDimSize(dim) / chunks;
  CreatedOps created;
  OpBuilder b(op->getContext(), &created);
  SmallVector<Value> outputs;
  for (int64_t i = 0; i < chunks; ++i) {
    SmallVector<OpFoldResult> offsets(inType.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : inType.getShape())
      sizes.push_back(b.getIndexAttr(size));
    offsets[dim] = b.getIndexAttr(i * chunkSize);
    sizes[dim] = b.getIndexAttr(chunkSize);
    // Each chunk where the producer was, its collective right after it:
    // what the producer reads need not live on to where the collective was.
    b.setInsertionPoint(candidate.producer);
    TilingInterface producer = candidate.producer;
    FailureOr<TilingResult> tile =
        producer.generateResultTileValue(b, 0, offsets, sizes);
    if (failed(tile) || tile->tiledValues.size() != 1 ||
        llvm::any_of(tile->tiledOps, [&](Operation *tiled) {
          return failed(fuseInitProducers(b, tiled, candidate.producer));
        })) {
      created.eraseAll();
      return {};
    }
    SmallVector<int64_t> shape(outType.getShape());
    shape[dim] = chunkSize;
    b.setInsertionPoint(candidate.producer);
    OperationState state(op->getLoc(), op->getName());
    state.addOperands(tile->tiledValues.front());
    state.addTypes(RankedTensorType::get(shape, outType.getElementType(),
                                         outType.getEncoding()));
    state.addAttributes(op->getAttrs());
    outputs.push_back(b.create(state)->getResult(0));
  }
  return outputs;
}

void DistChunkCollectivesPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto maxBytes = std::max<int64_t>(
      (int64_t)(static_cast<double>(maxMB) * 1024 * 1024), 1);
  SmallVector<Candidate> candidates;
  WalkResult walk = module.walk([&](CollectiveOpInterface op) {
    if (op.isBufferForm()) {
      op.emitOpError() << "is a collective on buffers; dist-chunk-collectives "
                          "works on tensors (run it before bufferization)";
      return WalkResult::interrupt();
    }
    if (std::optional<Candidate> candidate = matchCandidate(op, maxBytes))
      candidates.push_back(std::move(*candidate));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return signalPassFailure();

  IRRewriter rewriter(&getContext());
  for (const Candidate &candidate : candidates) {
    Operation *op = candidate.collective;
    auto inType = cast<RankedTensorType>(op->getOperand(0).getType());
    int64_t inBytes = *getStaticBytes(inType);
    for (int64_t dim : candidate.freeDims) {
      int64_t chunks = chunkCount(inType.getDimSize(dim), inBytes, maxBytes);
      SmallVector<Value> outputs = makeChunks(candidate, dim, chunks);
      if (outputs.empty())
        continue;
      // The chunks' outputs come together where the output is first used,
      // so that each chunk's wait (dist-make-async) can go there too.
      Operation *firstUser = findFirstUserInBlock(op);
      rewriter.setInsertionPoint(firstUser ? firstUser
                                           : op->getBlock()->getTerminator());
      auto outType = cast<RankedTensorType>(op->getResult(0).getType());
      Value whole = tensor::EmptyOp::create(rewriter, op->getLoc(),
                                            outType.getShape(),
                                            outType.getElementType(),
                                            outType.getEncoding());
      for (auto [i, chunk] : llvm::enumerate(outputs)) {
        auto chunkType = cast<RankedTensorType>(chunk.getType());
        SmallVector<OpFoldResult> offsets(outType.getRank(),
                                          rewriter.getIndexAttr(0));
        offsets[dim] = rewriter.getIndexAttr(i * chunkType.getDimSize(dim));
        SmallVector<OpFoldResult> sizes, strides(outType.getRank(),
                                                 rewriter.getIndexAttr(1));
        for (int64_t size : chunkType.getShape())
          sizes.push_back(rewriter.getIndexAttr(size));
        whole = tensor::InsertSliceOp::create(rewriter, op->getLoc(), chunk,
                                              whole, offsets, sizes, strides);
      }
      rewriter.replaceOp(op, whole);
      ++numChunked;
      numChunks += chunks;
      break;
    }
  }

  // Slices of empty tensors (the per-chunk inits) become smaller empties;
  // the whole producers and inits, now dead, go.
  RewritePatternSet patterns(&getContext());
  tensor::populateFoldTensorEmptyPatterns(patterns);
  if (failed(applyPatternsGreedily(module, std::move(patterns))))
    return signalPassFailure();
}
