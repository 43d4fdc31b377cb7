//===- ShardingRuleInterface.td - Per-op sharding rules ----*- tablegen -*-===//

#ifndef DIST_INTERFACES_SHARDINGRULEINTERFACE_TD
#define DIST_INTERFACES_SHARDINGRULEINTERFACE_TD

include "mlir/IR/OpBase.td"

def Dist_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::mlir::dist";
  let description = [{
    Gives an op's sharding rule: the factors (independent index spaces) of
    its computation and which factor indexes each dim of each tensor operand
    and result (see dist/Interfaces/ShardingRule.h). Propagation and
    partitioning use nothing else about the op, so supporting a new op means
    attaching this interface to it, usually through an external model
    registered in `registerAllDistExtensions`.

    Example: `linalg.matmul` on 8x16 and 16x32 has the rule
    `([i, k], [k, j], [i, j]) -> ([i, j]) {i=8, j=32, k=16 sum}`: splitting
    `i` splits the rows of the first operand and of the result; splitting `k`
    splits the shared dim and leaves the result a partial sum.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the op's sharding rule, or failure if the op, as "
               "written, cannot be described (e.g. an unsupported form).",
      /*retTy=*/"::mlir::FailureOr<::mlir::dist::ShardingRule>",
      /*methodName=*/"getShardingRule",
      /*args=*/(ins)
    >,
    InterfaceMethod<
      /*desc=*/[{
        Gives the op's local (per-rank) form: `localOperands` are the
        operands already laid out as the rule needs, `localResultTypes` the
        local result types, `splits` the mesh axes of each factor, `mapping`
        the partitioner's global -> local value map. Returns the op itself
        when it was updated in place, or a new op built at `builder`'s
        insertion point (the partitioner then erases the original). On
        failure the model has emitted an error saying why.

        The default updates the op in place: it sets the operands and the
        result types, which is right for ops whose shapes come from their
        operands and result types only. Ops with static sizes in attributes
        (tensor.extract_slice) or that compute with global indices (linalg
        bodies reading linalg.index, tensor.gather of a split source)
        override it. Values the op's regions capture have already been
        replaced by their local values.
      }],
      /*retTy=*/"::mlir::FailureOr<::mlir::Operation *>",
      /*methodName=*/"buildLocalOp",
      /*args=*/(ins "::mlir::OpBuilder &":$builder,
                    "::mlir::IRMapping &":$mapping,
                    "::mlir::ValueRange":$localOperands,
                    "::mlir::TypeRange":$localResultTypes,
                    "const ::mlir::dist::FactorSplits &":$splits),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::mlir::dist::rewriteInPlace($_op.getOperation(), localOperands,
                                            localResultTypes);
      }]
    >,
  ];
}

#endif // DIST_INTERFACES_SHARDINGRULEINTERFACE_TD
