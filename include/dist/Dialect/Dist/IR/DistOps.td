//===- DistOps.td - dist dialect operations ----------------*- tablegen -*-===//

#ifndef DIST_DIALECT_DIST_IR_DISTOPS_TD
#define DIST_DIALECT_DIST_IR_DISTOPS_TD

include "dist/Dialect/Dist/IR/DistAttrs.td"
include "dist/Dialect/Dist/IR/DistTypes.td"
include "dist/Dialect/Dist/IR/CollectiveOpInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Dist_AxisArrayAttr : TypedArrayAttrBase<StrAttr, "mesh axis names">;

//===----------------------------------------------------------------------===//
// dist.mesh
//===----------------------------------------------------------------------===//

def Dist_MeshOp : Dist_Op<"mesh", [Symbol]> {
  let summary = "Declares a logical mesh of devices with named axes";
  let description = [{
    Declares a static n-dimensional mesh of devices. Each axis has a name and
    a size; the number of devices is the product of the sizes. Ranks are laid
    out row-major: on `[dp = 2, mp = 4]` the rank at coordinates `(i, j)` is
    `4 * i + j`, so ranks that differ only in `mp` are neighbours.

    A group of axes (`[mp]`, `[dp, mp]`) names the set of ranks that differ
    only in those coordinates. The collectives act on such groups; within a
    group, ranks are numbered by their coordinates along the group's axes in
    the order given (the first axis is the major one).

    ```mlir
    dist.mesh @mesh_2x4 [dp = 2, mp = 4]
    dist.mesh @mesh_8 [dp = 8]
    ```

    A mesh without axes (`[]`) is a single device. Axis names must be unique
    and every size at least 1.
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Dist_AxisArrayAttr:$axis_names,
    DenseI64ArrayAttr:$shape
  );
  let assemblyFormat = [{
    $sym_name custom<MeshAxes>($axis_names, $shape) attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getRank() { return getShape().size(); }
    /// Number of devices in the mesh.
    int64_t getNumDevices();
    /// Position of `axis` in the mesh, or std::nullopt if there is no such
    /// axis. (Names are compared as uniqued attributes, not as strings.)
    std::optional<int64_t> getAxisIndex(::mlir::StringAttr axis);
    /// Size of the axis named `axis`; the axis must exist.
    int64_t getAxisSize(::mlir::StringAttr axis);
    /// Maps axis names to positions, failing (with an error through
    /// `emitError`) on an unknown name.
    ::mlir::FailureOr<::llvm::SmallVector<int64_t>>
    getAxisIndices(::llvm::ArrayRef<::mlir::StringAttr> axes,
                   ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError);
    /// Product of the sizes of `axes` (names must exist).
    int64_t getGroupSize(::llvm::ArrayRef<::mlir::StringAttr> axes);
  }];
}

//===----------------------------------------------------------------------===//
// dist.annotate
//===----------------------------------------------------------------------===//

def Dist_AnnotateOp : Dist_Op<"annotate", [
    Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Pins the sharding of a tensor value";
  // `}~]` stands for `}]`, which would end the TableGen code block.
  let description = !subst("}~]", "}]", [{
    The result is the operand, laid out as `sharding` says. This is how a user
    constrains the sharding of a value in the middle of a global program;
    function arguments and results carry the same information in their
    `dist.sharding` attribute.

    Lifecycle:
    1. *User constraint*: written by the user (or imported from upstream's
       `shard.shard`) on the global program.
    2. *Completed*: `dist-propagate` gives every other value a sharding; the
       annotation stays and fixes the layout of its result, so the operand may
       differ and a reshard is needed between them.
    3. *Partitioned*: `dist-partition` replaces it with the collectives that
       take the operand's layout to the annotated one (none if equal).
    4. *Gone*: no `dist.annotate` may remain in a per-rank program.

    ```mlir
    %y = dist.annotate %x as <@mesh_2x4, [{dp}, {}~]> : tensor<8x16xf32>
    ```

    `comm = N` makes the collectives of that reshard use communicator N of
    their groups (dist-data-parallel spreads gradient reductions over
    several communicators this way).
  }]);
  let arguments = (ins AnyRankedTensor:$input, Dist_ShardingAttr:$sharding,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$comm);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `as` $sharding (`comm` `=` $comm^)? attr-dict `:` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// What every collective names: the group (a mesh and some of its axes), the
// communicator of that group, and (set by dist-partition) why it exists.
defvar Dist_GroupArgs = (ins
  FlatSymbolRefAttr:$mesh,
  Dist_AxisArrayAttr:$axes,
  DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "0">:$comm,
  OptionalAttr<Dist_OriginAttr>:$origin
);

// `on @mesh [axes]`, with `comm = N` when the communicator is not the first.
defvar Dist_GroupFormat =
    "`on` $mesh custom<AxisList>($axes) (`comm` `=` $comm^)?";

// `overrides` lists the CollectiveOpInterface methods whose default the op
// replaces.
class Dist_CollectiveOp<string mnemonic, list<Trait> traits = [],
                        list<string> overrides = []>
    : Dist_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<SymbolUserOpInterface>,
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
        DeclareOpInterfaceMethods<Dist_CollectiveOpInterface, overrides>])> {
  // getGroupSize(symbolTables) comes from CollectiveOpInterface.
  code commonExtraClassDeclaration = "";
  let extraClassDeclaration = commonExtraClassDeclaration;
  let hasVerifier = 1;
}

// A collective whose tensors reduce, broadcast or move elementwise, in place
// once bufferized: it takes a bucket (one or more tensors of one element
// type) and gives one result per input, of the input's type.
class Dist_BucketCollectiveOp<string mnemonic, list<string> overrides = []>
    : Dist_CollectiveOp<mnemonic, [AttrSizedResultSegments],
                        !listconcat(["isInPlace"], overrides)> {
  let results = (outs Variadic<AnyRankedTensor>:$results,
                      Optional<Dist_TokenType>:$token);
}

def Dist_AllReduceOp : Dist_BucketCollectiveOp<"all_reduce",
    ["getReductionKind", "getBytesSentPerRank"]> {
  let summary = "Reduces tensors over a group; every rank gets the result";
  let description = [{
    Every rank of each group (the ranks that differ only in `axes`) holds a
    tensor of the same type; afterwards every rank holds the elementwise
    `kind` reduction of all of them. `avg` is the sum divided by the group
    size (on integers, rounded toward zero).

    ```mlir
    // mesh [mp = 4]; rank r holds x_r.   After: every rank holds x_0+x_1+x_2+x_3.
    %s = dist.all_reduce %x on @mesh_4 [mp] sum : tensor<4x8xf32>
    ```

    Several tensors of one element type form a bucket, reduced by one
    collective (gradient fusion); `comm = N` picks the group's N-th
    communicator; `async` starts the reduction and returns a token that
    `dist.wait` completes:

    ```mlir
    %a, %b = dist.all_reduce %ga, %gb on @mesh_4 [dp] comm = 1 sum
        : tensor<64x64xf32>, tensor<64xf32>
    %r, %t = dist.all_reduce async %g on @mesh_4 [dp] sum : tensor<1024xf32>
    %g2 = dist.wait %t, %r : tensor<1024xf32>
    ```
    Paddle: `c_allreduce_sum` (and `_max`, `_min`, `_prod`), with `ring_id`.
  }];
  let arguments = !con((ins Variadic<AnyRankedTensor>:$inputs), Dist_GroupArgs,
                       (ins Dist_ReductionKind:$kind));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $inputs ",
    Dist_GroupFormat,
    " $kind attr-dict `:` custom<BucketTypes>(type($inputs), type($results))");
}

def Dist_ReduceOp : Dist_BucketCollectiveOp<"reduce",
    ["getReductionKind", "getRootIndex"]> {
  let summary = "Reduces tensors over a group onto one root rank";
  let description = [{
    Every rank of a group holds a tensor; afterwards rank `root` of the group
    (its index within the group) holds their `kind` reduction. What the other
    ranks' results hold is unspecified (backends may leave the input there).
    This is how a gradient reaches the rank that owns its parameter under
    ZeRO-style sharding, with half the traffic of an all-reduce. Takes a
    bucket, `comm` and `async` as `dist.all_reduce` does.

    ```mlir
    // mesh [dp = 4]; rank r holds g_r.   After: rank 2 holds g_0+g_1+g_2+g_3.
    %g = dist.reduce %x on @mesh_4 [dp] sum root = 2 : tensor<1024xf32>
    ```
    Paddle: `c_reduce_sum`.
  }];
  let arguments = !con((ins Variadic<AnyRankedTensor>:$inputs), Dist_GroupArgs,
      (ins Dist_ReductionKind:$kind,
           ConfinedAttr<I64Attr, [IntNonNegative]>:$root));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $inputs ",
    Dist_GroupFormat,
    " $kind `root` `=` $root attr-dict `:` "
    "custom<BucketTypes>(type($inputs), type($results))");
}

def Dist_BroadcastOp : Dist_BucketCollectiveOp<"broadcast", ["getRootIndex"]> {
  let summary = "Copies the tensors of one root rank to every rank of a group";
  let description = [{
    Afterwards every rank of a group holds what rank `root` of the group (its
    index within the group) held. Under ZeRO-style sharding the owner of a
    parameter broadcasts it before the segment that uses it. Takes a bucket,
    `comm` and `async` as `dist.all_reduce` does.

    ```mlir
    // mesh [dp = 4]; rank 1 holds w.   After: every rank holds w.
    %w = dist.broadcast %x on @mesh_4 [dp] root = 1 : tensor<1024xf32>
    ```
    Paddle: `c_broadcast`.
  }];
  let arguments = !con((ins Variadic<AnyRankedTensor>:$inputs), Dist_GroupArgs,
      (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$root));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $inputs ",
    Dist_GroupFormat,
    " `root` `=` $root attr-dict `:` "
    "custom<BucketTypes>(type($inputs), type($results))");
}

// One tensor in, one out, of other shapes.
class Dist_ReshapingCollectiveOp<string mnemonic, list<string> overrides = [],
                                 list<Trait> traits = []>
    : Dist_CollectiveOp<mnemonic, traits, overrides> {
  let results = (outs AnyRankedTensor:$result,
                      Optional<Dist_TokenType>:$token);
}

def Dist_AllGatherOp : Dist_ReshapingCollectiveOp<"all_gather",
    ["getOutputBlockDim", "getPayloadTypes"]> {
  let summary = "Concatenates the tensors of a group along one dimension";
  let description = [{
    Every rank of a group holds a block; afterwards every rank holds the
    concatenation of the group's blocks along `dim`, in group order. The
    result's `dim` is the operand's times the group size; the other dims are
    equal.

    ```mlir
    // mesh [mp = 4]; rank r holds block B_r (4x2).   After: every rank holds
    // [B_0 B_1 B_2 B_3] (4x8).
    %g = dist.all_gather %x on @mesh_4 [mp] dim = 1
        : tensor<4x2xf32> -> tensor<4x8xf32>
    ```
    Paddle: `c_allgather` (which always gathers dim 0).
  }];
  let arguments = !con((ins AnyRankedTensor:$input), Dist_GroupArgs,
      (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $input ",
    Dist_GroupFormat,
    " `dim` `=` $dim attr-dict `:` type($input) `->` type($result)");
}

def Dist_ReduceScatterOp : Dist_ReshapingCollectiveOp<"reduce_scatter",
    ["getReductionKind", "getInputBlockDim"]> {
  let summary = "Reduces over a group and leaves each rank one block of the result";
  let description = [{
    Every rank of a group holds a full tensor; the `kind` reduction of these
    tensors is cut into group-size blocks along `dim`, and rank `i` of the
    group gets block `i`. This is the cheapest way from a partial value to a
    split one: it moves half the bytes of an all-reduce followed by a slice.

    ```mlir
    // mesh [mp = 4]; rank r holds x_r (8x8).   After: rank r holds rows
    // [2r, 2r+2) of x_0+x_1+x_2+x_3 (2x8).
    %r = dist.reduce_scatter %x on @mesh_4 [mp] sum dim = 0
        : tensor<8x8xf32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input), Dist_GroupArgs,
      (ins Dist_ReductionKind:$kind,
           ConfinedAttr<I64Attr, [IntNonNegative]>:$dim));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $input ",
    Dist_GroupFormat,
    " $kind `dim` `=` $dim attr-dict `:` type($input) `->` type($result)");
}

def Dist_AllToAllOp : Dist_ReshapingCollectiveOp<"all_to_all",
    ["getInputBlockDim", "getOutputBlockDim"]> {
  let summary = "Exchanges blocks so that a split moves from one dimension to another";
  let description = [{
    Every rank of a group cuts its tensor into group-size blocks along
    `split_dim` and sends block `j` to rank `j` of the group; each rank then
    concatenates the blocks it received along `concat_dim`, in group order.
    The result's `split_dim` is divided by the group size and its
    `concat_dim` multiplied by it.

    ```mlir
    // mesh [mp = 2]; rank r holds rows block R_r (4x8), cut into column halves
    // R_r = [R_r0 R_r1]. After: rank c holds [R_0c; R_1c] (8x4).
    %t = dist.all_to_all %x on @mesh_2 [mp] split_dim = 1 concat_dim = 0
        : tensor<4x8xf32> -> tensor<8x4xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input), Dist_GroupArgs,
      (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$split_dim,
           ConfinedAttr<I64Attr, [IntNonNegative]>:$concat_dim));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $input ",
    Dist_GroupFormat,
    " `split_dim` `=` $split_dim `concat_dim` `=` $concat_dim attr-dict "
    "`:` type($input) `->` type($result)");
}

def Dist_PermuteOp : Dist_ReshapingCollectiveOp<"permute",
    ["getBytesSentPerRank"], [AllTypesMatch<["input", "result"]>]> {
  let summary = "Sends each rank's tensor to another rank of its group";
  let description = [{
    Point-to-point exchange within each group: for every pair `s -> t`, rank
    `t` of the group receives what rank `s` holds. Sources are distinct and
    targets are distinct; a rank that is no pair's target receives zeros.
    This covers send/recv (one pair), shifts and rotations (halo exchange,
    pipeline stages). The result has the operand's type.

    ```mlir
    // mesh [pp = 4], rotate by one: rank r receives what rank r-1 held.
    %y = dist.permute %x on @mesh_4 [pp] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0]
        : tensor<16xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input), Dist_GroupArgs,
      (ins DenseI64ArrayAttr:$pairs));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $input ",
    Dist_GroupFormat,
    " `pairs` `=` custom<PermutePairs>($pairs) attr-dict `:` type($input)");
  let extraClassDeclaration = commonExtraClassDeclaration # [{
    /// The (source, target) pairs, decoded from the flat `pairs` array.
    ::llvm::SmallVector<std::pair<int64_t, int64_t>> getSourceTargetPairs();
  }];
}

//===----------------------------------------------------------------------===//
// Collectives on buffers
//===----------------------------------------------------------------------===//

// The bufferized forms of the collectives (produced by one-shot bufferization
// of the tensor forms, consumed by dist-lower-to-runtime). all_reduce, reduce
// and broadcast work in place on their buffers; the others read `input` and
// write `output`, which must not overlap. An async one returns a token; its
// buffers must not be touched until `dist.wait`.
class Dist_BufferCollectiveOp<string mnemonic, list<string> overrides = []>
    : Dist_CollectiveOp<"buffer." # mnemonic, [], overrides> {
  let results = (outs Optional<Dist_TokenType>:$token);
}

class Dist_BufferBucketCollectiveOp<string mnemonic,
                                    list<string> overrides = []>
    : Dist_BufferCollectiveOp<mnemonic, !listconcat(["isInPlace"], overrides)>;

def Dist_BufferAllReduceOp : Dist_BufferBucketCollectiveOp<"all_reduce",
    ["getReductionKind", "getBytesSentPerRank"]> {
  let summary = "all_reduce on buffers, in place";
  let description = [{
    The bufferized `dist.all_reduce`: afterwards each buffer holds the
    reduction over the group.

    ```mlir
    dist.buffer.all_reduce %buf on @mesh_4 [mp] sum : memref<4x8xf32>
    %t = dist.buffer.all_reduce async %a, %b on @mesh_4 [dp] sum
        : memref<64xf32>, memref<8x8xf32>
    dist.wait %t, %a, %b : memref<64xf32>, memref<8x8xf32>
    ```
  }];
  let arguments = !con((ins Variadic<AnyStridedMemRef>:$buffers),
                       Dist_GroupArgs, (ins Dist_ReductionKind:$kind));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $buffers ",
    Dist_GroupFormat,
    " $kind attr-dict `:` type($buffers)");
}

def Dist_BufferReduceOp : Dist_BufferBucketCollectiveOp<"reduce",
    ["getReductionKind", "getRootIndex"]> {
  let summary = "reduce on buffers, in place";
  let description = [{
    The bufferized `dist.reduce`: afterwards each buffer on rank `root` of the
    group holds the reduction; on the other ranks it keeps its input.

    ```mlir
    dist.buffer.reduce %buf on @mesh_4 [dp] sum root = 2 : memref<1024xf32>
    ```
  }];
  let arguments = !con((ins Variadic<AnyStridedMemRef>:$buffers),
      Dist_GroupArgs,
      (ins Dist_ReductionKind:$kind,
           ConfinedAttr<I64Attr, [IntNonNegative]>:$root));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $buffers ",
    Dist_GroupFormat,
    " $kind `root` `=` $root attr-dict `:` type($buffers)");
}

def Dist_BufferBroadcastOp : Dist_BufferBucketCollectiveOp<"broadcast",
    ["getRootIndex"]> {
  let summary = "broadcast on buffers, in place";
  let description = [{
    The bufferized `dist.broadcast`: afterwards each buffer holds what it held
    on rank `root` of the group.

    ```mlir
    dist.buffer.broadcast %buf on @mesh_4 [dp] root = 1 : memref<1024xf32>
    ```
  }];
  let arguments = !con((ins Variadic<AnyStridedMemRef>:$buffers),
      Dist_GroupArgs, (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$root));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $buffers ",
    Dist_GroupFormat,
    " `root` `=` $root attr-dict `:` type($buffers)");
}

def Dist_BufferAllGatherOp : Dist_BufferCollectiveOp<"all_gather",
    ["getOutputBlockDim", "getPayloadTypes"]> {
  let summary = "all_gather from one buffer into another";
  let description = [{
    The bufferized `dist.all_gather`; the types obey the same rules.

    ```mlir
    dist.buffer.all_gather %in into %out on @mesh_4 [mp] dim = 1
        : memref<4x2xf32>, memref<4x8xf32>
    ```
  }];
  let arguments = !con((ins AnyStridedMemRef:$input, AnyStridedMemRef:$output),
      Dist_GroupArgs, (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $input `into` $output ",
    Dist_GroupFormat,
    " `dim` `=` $dim attr-dict `:` type($input) `,` "
    "type($output)");
}

def Dist_BufferReduceScatterOp : Dist_BufferCollectiveOp<"reduce_scatter",
    ["getReductionKind", "getInputBlockDim"]> {
  let summary = "reduce_scatter from one buffer into another";
  let description = [{
    The bufferized `dist.reduce_scatter`; the types obey the same rules.

    ```mlir
    dist.buffer.reduce_scatter %in into %out on @mesh_4 [mp] sum dim = 0
        : memref<8x8xf32>, memref<2x8xf32>
    ```
  }];
  let arguments = !con((ins AnyStridedMemRef:$input, AnyStridedMemRef:$output),
      Dist_GroupArgs,
      (ins Dist_ReductionKind:$kind,
           ConfinedAttr<I64Attr, [IntNonNegative]>:$dim));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $input `into` $output ",
    Dist_GroupFormat,
    " $kind `dim` `=` $dim attr-dict `:` type($input) `,` "
    "type($output)");
}

def Dist_BufferAllToAllOp : Dist_BufferCollectiveOp<"all_to_all",
    ["getInputBlockDim", "getOutputBlockDim"]> {
  let summary = "all_to_all from one buffer into another";
  let description = [{
    The bufferized `dist.all_to_all`; the types obey the same rules.

    ```mlir
    dist.buffer.all_to_all %in into %out on @mesh_2 [mp] split_dim = 1
        concat_dim = 0 : memref<4x8xf32>, memref<8x4xf32>
    ```
  }];
  let arguments = !con((ins AnyStridedMemRef:$input, AnyStridedMemRef:$output),
      Dist_GroupArgs,
      (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$split_dim,
           ConfinedAttr<I64Attr, [IntNonNegative]>:$concat_dim));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $input `into` $output ",
    Dist_GroupFormat,
    " `split_dim` `=` $split_dim `concat_dim` `=` "
    "$concat_dim attr-dict `:` type($input) `,` type($output)");
}

def Dist_BufferPermuteOp : Dist_BufferCollectiveOp<"permute",
    ["getBytesSentPerRank"]> {
  let summary = "permute from one buffer into another";
  let description = [{
    The bufferized `dist.permute`; `output` has the type of `input`.

    ```mlir
    dist.buffer.permute %in into %out on @mesh_4 [pp] pairs = [0 -> 1, 1 -> 0]
        : memref<16xf32>, memref<16xf32>
    ```
  }];
  let arguments = !con((ins AnyStridedMemRef:$input, AnyStridedMemRef:$output),
      Dist_GroupArgs, (ins DenseI64ArrayAttr:$pairs));
  let assemblyFormat = !strconcat("custom<Async>(type($token)) $input `into` $output ",
    Dist_GroupFormat,
    " `pairs` `=` custom<PermutePairs>($pairs) attr-dict "
    "`:` type($input) `,` type($output)");
  let extraClassDeclaration = commonExtraClassDeclaration # [{
    ::llvm::SmallVector<std::pair<int64_t, int64_t>> getSourceTargetPairs();
  }];
}

//===----------------------------------------------------------------------===//
// dist.wait
//===----------------------------------------------------------------------===//

def Dist_WaitOp : Dist_Op<"wait", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Completes a collective started with `async`";
  let description = [{
    Waits until the collective that produced `token` is complete. On tensors
    it takes the collective's results and returns them, now usable (the
    collective's results have no other user). On buffers it takes every
    buffer of the collective (inputs and outputs) and returns nothing; until
    the wait, no op may touch them (checked by
    `dist-verify{phase=partitioned}`), and the buffers stay allocated.

    ```mlir
    %r, %t = dist.all_gather async %x on @mesh_4 [mp] dim = 0
        : tensor<2x8xf32> -> tensor<8x8xf32>
    %y = dist.wait %t, %r : tensor<8x8xf32>

    %t2 = dist.buffer.all_reduce async %buf on @mesh_4 [dp] sum : memref<16xf32>
    dist.wait %t2, %buf : memref<16xf32>
    ```

    Each token is waited for exactly once, later in the block that started
    the collective (the collective's verifier checks this).
  }];
  let arguments = (ins Dist_TokenType:$token, Variadic<AnyType>:$values);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $token (`,` $values^ `:` custom<WaitTypes>(type($values), type($results)))?
    attr-dict
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$token, "::mlir::ValueRange":$values)>
  ];
  let extraClassDeclaration = [{
    /// The collective that produced the token, or null (a block argument).
    CollectiveOpInterface getCollective();
  }];
}

//===----------------------------------------------------------------------===//
// Process position
//===----------------------------------------------------------------------===//

def Dist_ProgressOp : Dist_Op<"progress", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Lets the collectives in flight progress";
  let description = [{
    Moves the calling rank's async collectives forward without waiting for
    any (lowered to the runtime's `dist_progress`). Backends such as MPI
    advance a started collective only inside their calls, so a long run of
    compute between a start and its wait would otherwise leave it idle;
    `dist-schedule{progress=true}` puts one before each linalg op that runs
    while collectives are in flight.

    ```mlir
    %r, %t = dist.all_reduce async %g on @mesh_4 [dp] sum : tensor<1024xf32>
    dist.progress
    %y = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    %s = dist.wait %t, %r : tensor<1024xf32>
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Dist_ProcessIndexOp : Dist_Op<"process_index", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The calling rank's index within the group of some mesh axes";
  let description = [{
    Returns the index of the calling rank within its group along `axes`
    (major to minor, as the collectives number groups). With one axis this is
    the rank's coordinate on that axis; with all the mesh's axes, in order, it
    is the rank's linear index in the mesh.

    ```mlir
    // mesh [dp = 2, mp = 4], on rank 6 = (1, 2):
    %j = dist.process_index on @mesh_2x4 [mp] : index      // 2
    %i = dist.process_index on @mesh_2x4 [dp] : index      // 1
    %r = dist.process_index on @mesh_2x4 [dp, mp] : index  // 6
    %t = dist.process_index on @mesh_2x4 [mp, dp] : index  // 2 * 2 + 1 = 5
    ```
    A partitioned program uses it to compute which slice of a replicated
    tensor is its own.
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, Dist_AxisArrayAttr:$axes);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    `on` $mesh custom<AxisList>($axes) attr-dict `:` type($result)
  }];
}

#endif // DIST_DIALECT_DIST_IR_DISTOPS_TD
