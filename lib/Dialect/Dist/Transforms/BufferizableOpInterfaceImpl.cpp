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

/// In place (all_reduce, reduce, broadcast): the result is the operand's
/// buffer, updated; one-shot analysis copies the operand first when its old
/// value is read after the collective. Otherwise (all_gather,
/// reduce_scatter, all_to_all, permute): the operand's buffer is read and a
/// new one written.
template <typename TensorOp, typename BufferOp, bool InPlace>
struct CollectiveModel
    : public BufferizableOpInterface::ExternalModel<
          CollectiveModel<TensorOp, BufferOp, InPlace>, TensorOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return InPlace;
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &,
                                      const AnalysisState &) const {
    if (!InPlace)
      return {};
    return {{op->getResult(0), BufferRelation::Equivalent}};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return !InPlace; }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto tensorOp = cast<TensorOp>(op);
    FailureOr<Value> input =
        getBuffer(rewriter, tensorOp.getInput(), options, state);
    if (failed(input))
      return failure();
    // The buffer op takes the tensor op's attributes.
    if constexpr (InPlace) {
      BufferOp::create(rewriter, op->getLoc(), TypeRange{},
                       ValueRange{*input}, op->getAttrs());
      replaceOpWithBufferizedValues(rewriter, op, *input);
      return success();
    }
    auto resultType = cast<RankedTensorType>(tensorOp.getResult().getType());
    if (!resultType.hasStaticShape())
      return op->emitOpError()
             << "cannot bufferize a result of dynamic shape " << resultType;
    auto outputType = MemRefType::get(
        resultType.getShape(), resultType.getElementType(),
        MemRefLayoutAttrInterface(),
        cast<MemRefType>(input->getType()).getMemorySpace());
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

template <typename TensorOp, typename BufferOp>
using InPlaceModel = CollectiveModel<TensorOp, BufferOp, /*InPlace=*/true>;
template <typename TensorOp, typename BufferOp>
using OutOfPlaceModel = CollectiveModel<TensorOp, BufferOp, /*InPlace=*/false>;

} // namespace

void mlir::dist::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    AllReduceOp::attachInterface<
        InPlaceModel<AllReduceOp, BufferAllReduceOp>>(*ctx);
    ReduceOp::attachInterface<InPlaceModel<ReduceOp, BufferReduceOp>>(
        *ctx);
    BroadcastOp::attachInterface<
        InPlaceModel<BroadcastOp, BufferBroadcastOp>>(*ctx);
    AllGatherOp::attachInterface<
        OutOfPlaceModel<AllGatherOp, BufferAllGatherOp>>(*ctx);
    ReduceScatterOp::attachInterface<
        OutOfPlaceModel<ReduceScatterOp, BufferReduceScatterOp>>(
        *ctx);
    AllToAllOp::attachInterface<
        OutOfPlaceModel<AllToAllOp, BufferAllToAllOp>>(*ctx);
    PermuteOp::attachInterface<
        OutOfPlaceModel<PermuteOp, BufferPermuteOp>>(*ctx);
    ctx->loadDialect<memref::MemRefDialect>();
  });
}
