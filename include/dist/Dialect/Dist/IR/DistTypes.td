//===- DistTypes.td - dist dialect types -------------------*- tablegen -*-===//

#ifndef DIST_DIALECT_DIST_IR_DISTTYPES_TD
#define DIST_DIALECT_DIST_IR_DISTTYPES_TD

include "dist/Dialect/Dist/IR/DistBase.td"

class Dist_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Dist_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Dist_TokenType : Dist_Type<"Token", "token"> {
  let summary = "A collective in flight";
  let description = [{
    The result of a collective started with `async`: the collective runs
    while the program goes on, and `dist.wait` on its token completes it.
    Every token is waited for exactly once, in the block that started the
    collective; until then its tensor results (or, on buffers, its buffers)
    must not be touched.

    ```mlir
    %r, %t = dist.all_reduce async %g on @mesh_4 [dp] sum : tensor<1024xf32>
    // ... compute that does not need %r ...
    %g2 = dist.wait %t, %r : tensor<1024xf32>
    ```
  }];
}

#endif // DIST_DIALECT_DIST_IR_DISTTYPES_TD
