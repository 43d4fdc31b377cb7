//===- CollectiveOpInterface.td - What passes ask of a collective -*- tablegen -*-===//
//
// One interface that every collective (tensor and buffer forms) implements:
// passes (dist-verify, dist-comm-report, bufferization, dist-lower-to-runtime,
// the training and scheduling passes) ask it instead of listing op classes.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_DIALECT_DIST_IR_COLLECTIVEOPINTERFACE_TD
#define DIST_DIALECT_DIST_IR_COLLECTIVEOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def Dist_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::mlir::dist";
  let description = [{
    A collective acts on the group of ranks spanned by some axes of a mesh,
    on one communicator of that group (index `comm`). Its data are
    *inputs* (what each rank contributes) and *outputs* (what it gets):
    tensors in the tensor form, buffers in the buffer form, where in-place
    collectives (all_reduce, reduce, broadcast) have the same buffers as
    inputs and outputs. Several inputs of one element type form a *bucket*:
    one collective over all of them.

    The *payload* is what the cost formulas measure: the inputs, except for
    all_gather (its gathered outputs). `getBytesSentPerRank` gives the bytes
    each rank sends for one execution (see dist-comm-report).

    A collective started with `async` has a `!dist.token` result; its
    tensor results (or buffers) become usable at the `dist.wait` of the
    token.
  }];

  let methods = [
    InterfaceMethod<"The mesh the group is taken from.",
      "::mlir::FlatSymbolRefAttr", "getMeshAttr">,
    InterfaceMethod<"The mesh axes that span the group (major to minor).",
      "::mlir::ArrayAttr", "getAxes">,
    InterfaceMethod<[{
        The communicator index: collectives with different indices on the
        same group use different communicators and may be in flight at once.
      }], "uint64_t", "getComm">,
    InterfaceMethod<"The number of ranks in the group (the mesh must exist).",
      "int64_t", "getGroupSize",
      (ins "::mlir::SymbolTableCollection &":$symbolTables), [{}], [{
        return ::mlir::dist::detail::getCollectiveGroupSize($_op.getOperation(),
                                                            symbolTables);
      }]>,
    InterfaceMethod<"How values are combined, for reducing collectives.",
      "std::optional<::mlir::dist::ReductionKind>", "getReductionKind",
      (ins), [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<"The group index of the root, for rooted collectives.",
      "std::optional<int64_t>", "getRootIndex",
      (ins), [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        True when the outputs are the inputs, updated (all_reduce, reduce,
        broadcast).
      }], "bool", "isInPlace", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<"The data each rank contributes.",
      "::mlir::ValueRange", "getCollectiveInputs">,
    InterfaceMethod<[{
        The data each rank gets: tensor results, or output buffers (the
        inputs themselves for in-place buffer collectives).
      }], "::mlir::ValueRange", "getCollectiveOutputs">,
    InterfaceMethod<[{
        The dim along which each input is cut into group-size blocks, one per
        rank of the group (reduce_scatter, all_to_all), if any.
      }], "std::optional<int64_t>", "getInputBlockDim",
      (ins), [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        The dim along which each output is the concatenation of group-size
        blocks, one from each rank (all_gather, all_to_all), if any.
      }], "std::optional<int64_t>", "getOutputBlockDim",
      (ins), [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<"The `!dist.token` result of an async collective, or null.",
      "::mlir::Value", "getAsyncToken", (ins), [{}], [{
        return $_op.getToken();
      }]>,
    InterfaceMethod<[{
        The types the cost formulas measure: the inputs' types, or (for
        all_gather) the outputs'.
      }], "::llvm::SmallVector<::mlir::ShapedType>", "getPayloadTypes",
      (ins), [{}], [{
        ::llvm::SmallVector<::mlir::ShapedType> types;
        for (::mlir::Value value : $_op.getCollectiveInputs())
          types.push_back(::llvm::cast<::mlir::ShapedType>(value.getType()));
        return types;
      }]>,
    InterfaceMethod<[{
        Bytes each rank sends for one execution when the payload is
        `payloadBytes` over `groupSize` ranks (std::nullopt if that overflows
        64 bits). By default (g - 1) / g of the payload: each rank sends all
        but its own share (gather, scatter, exchange, and the tree/ring
        reduce and broadcast).
      }], "std::optional<int64_t>", "getBytesSentPerRank",
      (ins "int64_t":$payloadBytes, "int64_t":$groupSize), [{}], [{
        return ::mlir::dist::detail::scaleBytes(payloadBytes, groupSize - 1,
                                                groupSize);
      }]>,
  ];

  let extraClassDeclaration = [{
    /// True for the `dist.buffer.*` forms (their data are memrefs).
    bool isBufferForm() {
      return ::llvm::isa<::mlir::BaseMemRefType>(
          (*this)->getOperand(0).getType());
    }
    /// The element type shared by every input and output.
    ::mlir::Type getElementType() {
      return ::llvm::cast<::mlir::ShapedType>(
                 getCollectiveInputs().front().getType())
          .getElementType();
    }
    /// The axis names as attributes.
    ::llvm::SmallVector<::mlir::StringAttr> getAxisNames() {
      return ::llvm::to_vector(getAxes().getAsRange<::mlir::StringAttr>());
    }
    /// Elements of the payload (summed over a bucket); std::nullopt for a
    /// dynamic shape or a count over 2^63.
    std::optional<int64_t> getPayloadElements();
    /// Bytes of the payload; std::nullopt as for getPayloadElements.
    std::optional<int64_t> getPayloadBytes();
    /// The bytes of one element of the payload (complex: both parts; index:
    /// 8; i1: 1).
    int64_t getElementBytes();
  }];

  let verify = [{ return ::mlir::dist::detail::verifyCollectiveOp($_op); }];
}

#endif // DIST_DIALECT_DIST_IR_COLLECTIVEOPINTERFACE_TD
