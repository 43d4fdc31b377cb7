//===- BufferizableOpInterfaceImpl.cpp - Bufferizing dist ops -------------===//

#include "dist/Dialect/Dist/Transforms/BufferizableOpInterfaceImpl.h"
#include "dist/Dialect/Dist/IR/DistOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::dist;

namespace {

/// all_reduce, reduce, broadcast: the result is the operand's buffer, updated
/// in place. One-shot analysis copies the operand first when its old value is
/// read after the collective.
template <typename TensorOp, typename BufferOp>
struct InPlaceCollectiveModel
    : public BufferizableOpInterface::ExternalModel<
          InPlaceCollectiveModel<TensorOp, BufferOp>, TensorOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return true;
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &,
                                      const AnalysisState &) const {
    return {{op->getResult(0), BufferRelation::Equivalent}};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto tensorOp = cast<TensorOp>(op);
    FailureOr<Value> buffer =
        getBuffer(rewriter, tensorOp.getInput(), options, state);
    if (failed(buffer))
      return failure();
    // The buffer op takes the same attributes as the tensor op.
    auto bufferOp = BufferOp::create(rewriter, op->getLoc(), TypeRange{},
                                     ValueRange{*buffer}, op->getAttrs());
    (void)bufferOp;
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};

/// all_gather, reduce_scatter, all_to_all, permute: read the operand's
/// buffer and write a new one.
template <typename TensorOp, typename BufferOp>
struct OutOfPlaceCollectiveModel
    : public BufferizableOpInterface::ExternalModel<
          OutOfPlaceCollectiveModel<TensorOp, BufferOp>, TensorOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto tensorOp = cast<TensorOp>(op);
    FailureOr<Value> input =
        getBuffer(rewriter, tensorOp.getInput(), options, state);
    if (failed(input))
      return failure();
    auto resultType = cast<RankedTensorType>(tensorOp.getResult().getType());
    if (!resultType.hasStaticShape())
      return op->emitOpError()
             << "cannot bufferize a result of dynamic shape " << resultType;
    auto inputType = cast<MemRefType>(input->getType());
    auto outputType =
        MemRefType::get(resultType.getShape(), resultType.getElementType(),
                        MemRefLayoutAttrInterface(), inputType.getMemorySpace());
    FailureOr<Value> output =
        options.createAlloc(rewriter, op->getLoc(), outputType, ValueRange{});
    if (failed(output))
      return failure();
    BufferOp::create(rewriter, op->getLoc(), TypeRange{},
                     ValueRange{*input, *output}, op->getAttrs());
    replaceOpWithBufferizedValues(rewriter, op, *output);
    return success();
  }
};

} // namespace

void mlir::dist::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    AllReduceOp::attachInterface<
        InPlaceCollectiveModel<AllReduceOp, BufferAllReduceOp>>(*ctx);
    ReduceOp::attachInterface<InPlaceCollectiveModel<ReduceOp, BufferReduceOp>>(
        *ctx);
    BroadcastOp::attachInterface<
        InPlaceCollectiveModel<BroadcastOp, BufferBroadcastOp>>(*ctx);
    AllGatherOp::attachInterface<
        OutOfPlaceCollectiveModel<AllGatherOp, BufferAllGatherOp>>(*ctx);
    ReduceScatterOp::attachInterface<
        OutOfPlaceCollectiveModel<ReduceScatterOp, BufferReduceScatterOp>>(
        *ctx);
    AllToAllOp::attachInterface<
        OutOfPlaceCollectiveModel<AllToAllOp, BufferAllToAllOp>>(*ctx);
    PermuteOp::attachInterface<
        OutOfPlaceCollectiveModel<PermuteOp, BufferPermuteOp>>(*ctx);
    ctx->loadDialect<memref::MemRefDialect>();
  });
}
