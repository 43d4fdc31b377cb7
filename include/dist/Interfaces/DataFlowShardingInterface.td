//===- DataFlowShardingInterface.td - Layouts across regions -*- tablegen -*-===//

#ifndef DIST_INTERFACES_DATAFLOWSHARDINGINTERFACE_TD
#define DIST_INTERFACES_DATAFLOWSHARDINGINTERFACE_TD

include "mlir/IR/OpBase.td"

def Dist_DataFlowShardingOpInterface : OpInterface<"DataFlowShardingOpInterface"> {
  let cppNamespace = "::mlir::dist";
  let description = [{
    An op through which values flow without being computed on: a region op
    whose operands become block arguments and whose terminators' operands
    become block arguments or results (scf.for, scf.if, scf.while), or a
    call whose operands and results cross a function boundary. The op lists
    its *edges* (see dist/Interfaces/DataFlowSharding.h): each edge is a set
    of values that share one layout. dist-propagate completes the layouts of
    each edge together and enters the op's regions; dist-partition reshards
    the values flowing into each edge to the edge's layout and gives the
    values it defines their local types, rewriting the op in place. Neither
    pass knows any such op by name, so supporting a new region op means
    attaching this interface to it (for a RegionBranchOpInterface op,
    `getRegionBranchEdges` does the work).

    Example: `%r = scf.for ... iter_args(%acc = %init)` with `scf.yield %next`
    has one edge: sources `%init` and `%next`, targets `%acc` and `%r`.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/[{
        Appends the op's edges to `edges`. `symbolTables` (may be null)
        caches symbol lookups for ops that refer to functions. Fails, with a
        located error, if the op's form is not supported (for example a
        region with several blocks).
      }],
      /*retTy=*/"::llvm::LogicalResult",
      /*methodName=*/"getDataFlowEdges",
      /*args=*/(ins "::mlir::SymbolTableCollection *":$symbolTables,
                    "::llvm::SmallVectorImpl<::mlir::dist::DataFlowEdge> &":$edges)
    >,
  ];
}

#endif // DIST_INTERFACES_DATAFLOWSHARDINGINTERFACE_TD
