//===- DistAttrs.td - dist dialect attributes --------------*- tablegen -*-===//

#ifndef DIST_DIALECT_DIST_IR_DISTATTRS_TD
#define DIST_DIALECT_DIST_IR_DISTATTRS_TD

include "dist/Dialect/Dist/IR/DistBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Dist_AxisListParameter : ArrayRefParameter<"::mlir::StringAttr",
    "list of mesh axis names">;

def Dist_DimShardingAttr : Dist_Attr<"DimSharding", "dim"> {
  let summary = "The mesh axes that split one tensor dimension";
  let description = [{
    The ordered list of mesh axes that split one dimension of a tensor. The
    first axis is the major one: with axes `{a, b}` of sizes 2 and 4, the
    dimension is cut into 8 blocks and the rank at coordinates `(i, j)` holds
    block `i * 4 + j`. An empty list means the dimension is not split.

    Inside `#dist.sharding` it is written as `{a, b}`; on its own as
    `#dist.dim<{a, b}>`.

    A split dim may hold extra rows around each block, for stencils (see
    docs/Design.md, "Halos"): with `k` blocks of `b` rows, the rank holding
    block `i` holds the global rows `[i*b - lo, i*b + b + hi + overlap)`,
    rows outside the dim being zeros.
    - `{a} halo [lo, hi]` (upstream `shard`'s `halo_sizes`): `b = n / k`;
      the first rank's `lo` rows and the last rank's `hi` rows are zeros.
    - `{a} overlap e`: `b = (n - e) / k`; each block also holds the next
      block's first `e` rows (the input of a convolution with a window of
      `e + 1`, or the zero-padded form of a dim with halos).

    **Constraints**
    - No axis appears twice.
    - A halo or overlap needs a split dim, is non-negative, and a dim has
      one or the other. Checked against the tensor: `k` divides `n` (halo)
      or `n - e` (overlap), and `lo`, `hi` are at most `b`.
  }];
  let parameters = (ins Dist_AxisListParameter:$axes,
                        DefaultValuedParameter<"int64_t", "0">:$haloLo,
                        DefaultValuedParameter<"int64_t", "0">:$haloHi,
                        DefaultValuedParameter<"int64_t", "0">:$overlap);
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<::mlir::StringAttr>":$axes), [{
      return $_get($_ctxt, axes, 0, 0, 0);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isSplit() const { return !getAxes().empty(); }
    /// True if the blocks hold extra rows (a halo or an overlap).
    bool hasHalo() const {
      return getHaloLo() != 0 || getHaloHi() != 0 || getOverlap() != 0;
    }
    /// The extra rows, as the planner and the runtime see them.
    ::meshmath::Halo getHalo() const {
      return {getHaloLo(), getHaloHi(), getOverlap()};
    }
    /// The same split with `halo`'s extra rows (none: a plain split).
    DimShardingAttr withHalo(const ::meshmath::Halo &halo) const {
      return get(getContext(), getAxes(), halo.lo, halo.hi, halo.overlap);
    }
    DimShardingAttr withoutHalo() const {
      return hasHalo() ? withHalo({}) : *this;
    }
    /// Parses/prints the `{a, b}` body shared with #dist.sharding.
    static ::mlir::FailureOr<DimShardingAttr> parseBody(::mlir::AsmParser &parser);
    void printBody(::mlir::AsmPrinter &printer) const;
  }];
}

def Dist_ShardingAttr : Dist_Attr<"Sharding", "sharding"> {
  let summary = "How a tensor is laid out over a device mesh";
  // `}~]` stands for `}]`, which would end the TableGen code block.
  let description = !subst("}~]", "}]", [{
    Describes, for one tensor, the layout of its data over the mesh `@mesh`:

    * `dims`: one entry per tensor dimension, listing the mesh axes that split
      it (major to minor). A dimension with `{}` is whole on every rank.
    * `partial`: mesh axes over which the tensor is *partial*: the true value
      is the `kind` reduction (sum by default) of what the ranks along those
      axes hold. This is the state of a row-parallel matmul's output, or of a
      gradient before its all-reduce. Keeping it lets a reduction happen once
      and as late as possible.
    * `owner`: the tensor is *owned* along some mesh axes: within each group
      along them only the rank of index `owner` holds it (what the others
      hold is unspecified). This is ZeRO-style sharding in the seeds' style,
      each parameter's gradient, optimizer state and update on one rank of
      the sharding group: partial -> owned is a `dist.reduce` onto the owner,
      owned -> replicated a `dist.broadcast` from it, replicated -> owned
      costs nothing.
    * Mesh axes used nowhere replicate the tensor.

    ```mlir
    // Rows split over "dp", columns whole, replicated over "mp".
    #dist.sharding<@mesh_2x4, [{dp}, {}~]>
    // Replicated scalar.
    #dist.sharding<@mesh_2x4, []>
    // Columns split over "mp"; pending sum over "dp".
    #dist.sharding<@mesh_2x4, [{}, {mp}~], partial = sum{dp}>
    // Rows split over both axes: 8 blocks, rank (i, j) holds block 4*i + j.
    #dist.sharding<@mesh_2x4, [{dp, mp}, {}~]>
    // Held only by index 3 along "mp" (ranks 3 and 7); columns split over "dp".
    #dist.sharding<@mesh_2x4, [{}, {dp}~], owner = 3 {mp}>
    ```

    A dim of size `n` split `k` ways by its axes has blocks of
    `ceil(n / k)` on every rank; when `k` does not divide `n` the last blocks
    are partly or wholly padding, which the partitioner keeps out of results
    and reductions (see docs/Design.md, "Uneven splits").

    **Constraints**
    - Each mesh axis is used at most once over all dims and `partial`.
    - `partial` is empty when written without a kind; the kind is one of
      sum, max, min, prod, avg.
    - `owner` is non-negative and names at least one axis.
    - A sharding with halos or overlaps is neither partial nor owned.
    - Checked where the attribute is attached to a value (it has no access to
      the mesh on its own): `@mesh` names a `dist.mesh`, every axis exists in
      it, the number of dims equals the tensor's rank, and the owner is an
      index of its group.
  }]);
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    ArrayRefParameter<"DimShardingAttr", "per-dimension split axes">:$dims,
    Dist_AxisListParameter:$partialAxes,
    DefaultValuedParameter<"ReductionKind", "ReductionKind::sum">:$partialKind,
    Dist_AxisListParameter:$ownerAxes,
    DefaultValuedParameter<"int64_t", "0">:$owner
  );
  let builders = [
    AttrBuilderWithInferredContext<(ins
        "::mlir::FlatSymbolRefAttr":$mesh,
        "::llvm::ArrayRef<DimShardingAttr>":$dims,
        CArg<"::llvm::ArrayRef<::mlir::StringAttr>", "{}">:$partialAxes,
        CArg<"ReductionKind", "ReductionKind::sum">:$partialKind,
        CArg<"::llvm::ArrayRef<::mlir::StringAttr>", "{}">:$ownerAxes,
        CArg<"int64_t", "0">:$owner), [{
      return $_get(mesh.getContext(), mesh, dims, partialAxes, partialKind,
                   ownerAxes, owner);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getDims().size(); }
    bool isPartial() const { return !getPartialAxes().empty(); }
    bool isOwned() const { return !getOwnerAxes().empty(); }
    /// This sharding owned by index `owner` along `axes` (none if empty).
    ShardingAttr withOwner(::llvm::ArrayRef<::mlir::StringAttr> axes,
                           int64_t owner) const {
      return get(getMesh(), getDims(), getPartialAxes(), getPartialKind(),
                 axes, axes.empty() ? 0 : owner);
    }
    ShardingAttr withoutOwner() const { return withOwner({}, 0); }
    /// True if no dim is split, nothing is partial and nothing owned.
    bool isReplicated() const;
    /// True if some dim holds extra rows (a halo or an overlap).
    bool hasHalos() const;
    /// The same sharding with plain splits.
    ShardingAttr withoutHalos() const;
    /// The axes that split dim `dim` (empty if it is whole).
    ::llvm::ArrayRef<::mlir::StringAttr> getDimAxes(int64_t dim) const {
      return getDims()[dim].getAxes();
    }
    /// Builds a sharding from plain axis-name lists.
    static ShardingAttr get(::mlir::MLIRContext *context,
                            ::llvm::StringRef mesh,
                            ::llvm::ArrayRef<::llvm::SmallVector<::llvm::StringRef>> dims,
                            ::llvm::ArrayRef<::llvm::StringRef> partialAxes = {},
                            ReductionKind partialKind = ReductionKind::sum);
  }];
}

#endif // DIST_DIALECT_DIST_IR_DISTATTRS_TD
