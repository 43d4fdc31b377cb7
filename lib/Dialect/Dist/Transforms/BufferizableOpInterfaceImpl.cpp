//===- BufferizableOpInterfaceImpl.cpp - Bufferizing dist ops -------------===//
//
// One model for every collective, driven by CollectiveOpInterface: an
// in-place collective (all_reduce, reduce, broadcast) updates the buffers of
// its inputs, one result per input; the others read their input's buffer and
// write a new one. An async collective keeps its token, and its dist.wait
// names every buffer the collective touches, so they stay allocated (and
// untouched) until the wait.
//
//===----------------------------------------------------------------------===//

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

/// The tensor op's attributes, for its buffer form (segment sizes belong to
/// the tensor form's results).
static SmallVector<NamedAttribute> getBufferFormAttrs(Operation *op) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs())
    if (attr.getName() != "resultSegmentSizes")
      attrs.push_back(attr);
  return attrs;
}

template <typename TensorOp, typename BufferOp>
struct CollectiveModel
    : public BufferizableOpInterface::ExternalModel<
          CollectiveModel<TensorOp, BufferOp>, TensorOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *op, OpOperand &,
                               const AnalysisState &) const {
    return cast<CollectiveOpInterface>(op).isInPlace();
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    if (!cast<CollectiveOpInterface>(op).isInPlace())
      return {};
    return {{op->getResult(operand.getOperandNumber()),
             BufferRelation::Equivalent}};
  }
  bool bufferizesToAllocation(Operation *op, Value) const {
    return !cast<CollectiveOpInterface>(op).isInPlace();
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto collective = cast<CollectiveOpInterface>(op);
    Value token = collective.getAsyncToken();
    SmallVector<Type> tokenTypes;
    if (token)
      tokenTypes.push_back(token.getType());
    SmallVector<Value> buffers;
    for (Value input : collective.getCollectiveInputs()) {
      FailureOr<Value> buffer = getBuffer(rewriter, input, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    SmallVector<Value> replacements;
    if (collective.isInPlace()) {
      replacements = buffers;
    } else {
      auto resultType = cast<RankedTensorType>(
          collective.getCollectiveOutputs().front().getType());
      if (!resultType.hasStaticShape())
        return op->emitOpError()
               << "cannot bufferize a result of dynamic shape " << resultType;
      auto outputType = MemRefType::get(
          resultType.getShape(), resultType.getElementType(),
          MemRefLayoutAttrInterface(),
          cast<MemRefType>(buffers.front().getType()).getMemorySpace());
      FailureOr<Value> output =
          options.createAlloc(rewriter, op->getLoc(), outputType, ValueRange{});
      if (failed(output))
        return failure();
      buffers.push_back(*output);
      replacements.push_back(*output);
    }
    auto bufferOp = BufferOp::create(rewriter, op->getLoc(), tokenTypes,
                                     buffers, getBufferFormAttrs(op));
    if (token)
      replacements.push_back(bufferOp.getToken());
    replaceOpWithBufferizedValues(rewriter, op, replacements);
    return success();
  }
};

/// A wait passes its tensors through; on buffers it names every buffer of
/// its (already bufferized) collective.
struct WaitModel
    : public BufferizableOpInterface::ExternalModel<WaitModel, WaitOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    // Operand 0 is the token; value i is operand i + 1 and result i.
    return {{op->getResult(operand.getOperandNumber() - 1),
             BufferRelation::Equivalent}};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto wait = cast<WaitOp>(op);
    SmallVector<Value> results;
    for (Value value : wait.getValues()) {
      FailureOr<Value> buffer = getBuffer(rewriter, value, options, state);
      if (failed(buffer))
        return failure();
      results.push_back(*buffer);
    }
    Operation *collective = wait.getToken().getDefiningOp();
    if (!collective)
      return op->emitOpError() << "takes a token that does not come straight "
                                  "from an async collective";
    WaitOp::create(rewriter, op->getLoc(), wait.getToken(),
                   collective->getOperands());
    replaceOpWithBufferizedValues(rewriter, op, results);
    return success();
  }
};

template <typename TensorOp, typename BufferOp>
void attach(MLIRContext *ctx) {
  TensorOp::template attachInterface<CollectiveModel<TensorOp, BufferOp>>(
      *ctx);
}

} // namespace

void mlir::dist::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    attach<AllReduceOp, BufferAllReduceOp>(ctx);
    attach<ReduceOp, BufferReduceOp>(ctx);
    attach<BroadcastOp, BufferBroadcastOp>(ctx);
    attach<AllGatherOp, BufferAllGatherOp>(ctx);
    attach<ReduceScatterOp, BufferReduceScatterOp>(ctx);
    attach<AllToAllOp, BufferAllToAllOp>(ctx);
    attach<PermuteOp, BufferPermuteOp>(ctx);
    WaitOp::attachInterface<WaitModel>(*ctx);
    ctx->loadDialect<memref::MemRefDialect>();
  });
}
