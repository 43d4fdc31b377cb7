//===- DistBase.td - dist dialect definition ---------------*- tablegen -*-===//
//
// The dist dialect: device meshes, tensor shardings and the collectives that
// move data between the shards of a distributed (SPMD) program.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_DIALECT_DIST_IR_DISTBASE_TD
#define DIST_DIALECT_DIST_IR_DISTBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Dist_Dialect : Dialect {
  let name = "dist";
  let cppNamespace = "::mlir::dist";
  let summary = "Device meshes, shardings and collectives for SPMD training programs";
  let description = [{
    The `dist` dialect describes how a single-device program is spread over a
    logical mesh of devices, and holds the collectives of the per-rank (SPMD)
    program that results.

    * `dist.mesh` declares a named, static, n-dimensional mesh of devices with
      named axes (`dist.mesh @mesh_2x4 [dp = 2, mp = 4]`).
    * `#dist.sharding` says, for one tensor, which mesh axes split each of its
      dimensions, and over which axes the tensor is *partial*: every rank holds
      a summand (or max/min/product operand) of the true value, a reduction
      that is still pending.
    * `dist.annotate` and the `dist.sharding` argument/result attribute of
      functions are how a user pins shardings on a global program.
    * The collectives (`dist.all_reduce`, `dist.all_gather`,
      `dist.reduce_scatter`, `dist.all_to_all`, `dist.reduce`,
      `dist.broadcast`, `dist.permute`) operate on the local tensors of a
      partitioned program over the group of ranks spanned by some mesh axes.
    * `dist.process_index` tells a rank where it sits in the mesh.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();

    /// Name of the function argument/result attribute that holds a sharding.
    static constexpr ::llvm::StringLiteral getShardingAttrName() {
      return "dist.sharding";
    }
    /// Name of the op attribute that holds the completed sharding of each
    /// result (an array: a #dist.sharding per tensor result, unit otherwise).
    static constexpr ::llvm::StringLiteral getShardingsAttrName() {
      return "dist.shardings";
    }
    /// Name of the op attribute of a data-flow op (scf.while) that holds the
    /// completed layout of each edge that no result records (the edges of
    /// block arguments only): a #dist.sharding per tensor edge, unit
    /// otherwise, in the order DataFlowShardingOpInterface lists them.
    static constexpr ::llvm::StringLiteral getEdgeShardingsAttrName() {
      return "dist.edge_shardings";
    }
    /// Name of the argument/result attribute of a partitioned (per-rank)
    /// function: the local tensor is the shard of a global tensor laid out as
    /// the #dist.sharding says.
    static constexpr ::llvm::StringLiteral getPartitionedAsAttrName() {
      return "dist.partitioned_as";
    }
    /// Name of the argument/result attribute `array<i64: ...>` of a
    /// partitioned function that gives the global shape where
    /// `dist.partitioned_as` splits a dim into padded blocks (the local type
    /// times the group sizes is then larger than the global one).
    static constexpr ::llvm::StringLiteral getGlobalShapeAttrName() {
      return "dist.global_shape";
    }
    /// Name of the discardable attribute that tags an op with its role in a
    /// training step (forward, backward, optimizer, ...).
    static constexpr ::llvm::StringLiteral getRoleAttrName() {
      return "dist.role";
    }
    /// Name of the argument attribute `array<i64: lo, hi>` that bounds the
    /// values of an integer argument when test inputs are generated
    /// (dist-run): every element is drawn from [lo, hi).
    static constexpr ::llvm::StringLiteral getInputRangeAttrName() {
      return "dist.input_range";
    }
    /// Name of the argument attribute `<value> : f64` on a float argument:
    /// when test inputs are generated (dist-run), every element is this
    /// value (optimizer state starts at zero) instead of a random one.
    static constexpr ::llvm::StringLiteral getInputFillAttrName() {
      return "dist.input_fill";
    }
    /// Name of the argument attribute `<std> : f64` on a float argument: when
    /// test inputs are generated (dist-run), every element is drawn from a
    /// normal distribution with mean 0 and this standard deviation (initial
    /// weights, as GPT-2's N(0, 0.02)).
    static constexpr ::llvm::StringLiteral getInputNormalAttrName() {
      return "dist.input_normal";
    }
    /// Name of the unit argument attribute on optimizer state
    /// (`dist.state_of`): when test inputs are generated (dist-run, the
    /// PyTorch checks), it starts as a copy of its parameter, converted to
    /// its element type (the f32 master weights of a bf16 or fp16
    /// parameter). Packed state (`dist.state_pool`) marks such members
    /// `from_param`.
    static constexpr ::llvm::StringLiteral getInputFromParamAttrName() {
      return "dist.input_from_param";
    }
    /// Name of the module attribute `<seed> : i64`: the seed dist-run draws
    /// test inputs with when its --seed is not given (dist-gen --seed).
    static constexpr ::llvm::StringLiteral getInputSeedAttrName() {
      return "dist.input_seed";
    }
    /// Name of the result attribute `<argument index> : i64` of a function
    /// that computes one step of a loop (a training step): the result is the
    /// next value of that argument (a parameter, optimizer state). dist-run
    /// --steps feeds it back.
    static constexpr ::llvm::StringLiteral getUpdatesAttrName() {
      return "dist.updates";
    }
    /// Name of the argument/result attribute that names a value of a step
    /// function (a string): a result and an argument with the same name are
    /// the next and the current value of one piece of state, as with
    /// dist.updates.
    static constexpr ::llvm::StringLiteral getNameAttrName() {
      return "dist.name";
    }
    /// Name of the unit argument attribute of a training step that marks a
    /// trainable parameter.
    static constexpr ::llvm::StringLiteral getParamAttrName() {
      return "dist.param";
    }
    /// Name of the argument/result attribute `<argument index> : i64` that
    /// marks optimizer state (Adam's moments, a momentum buffer) of the
    /// parameter argument with that index.
    static constexpr ::llvm::StringLiteral getStateOfAttrName() {
      return "dist.state_of";
    }
    /// Name of the op attribute `<argument index> : i64` on a one-result op:
    /// its result is the gradient of the parameter argument with that index
    /// (the seeds' op_role_var).
    static constexpr ::llvm::StringLiteral getGradOfAttrName() {
      return "dist.grad_of";
    }
    /// Name of the unit op attribute on a linalg op that converts a float
    /// input to another float type (its body yields `arith.truncf` or
    /// `arith.extf` of the input): partial sums flow through it, each rank
    /// converting its own partial sum, so the reduction happens in the
    /// result type (mixed precision's bf16/fp16 gradient reduction; without
    /// it the partial sums are reduced before the conversion, exactly).
    static constexpr ::llvm::StringLiteral getRoundPartialsAttrName() {
      return "dist.round_partials";
    }
    /// Name of the argument attribute of a 2-D tensor argument that packs
    /// the optimizer state of parameters owned whole by single ranks
    /// (dist-sharding ownership=whole): row `owner` holds that rank's
    /// state, laid out split over the owners' axis. An array of
    /// dictionaries, one per packed tensor: `name` (its dist.name), `param`
    /// (its parameter's dist.name), `owner` (row), `offset` (column of its
    /// first element), `shape` (array<i64>, row-major from there), and
    /// optionally `fill` / `normal` (its dist.input_fill / input_normal).
    static constexpr ::llvm::StringLiteral getStatePoolAttrName() {
      return "dist.state_pool";
    }
    /// Name of the argument/result attribute `<argument index> : i64` that
    /// marks a gradient accumulator of the parameter argument with that
    /// index: the sum of its gradients over the micro-steps since the last
    /// update (dist-gradient-merge).
    static constexpr ::llvm::StringLiteral getGradAccumulatorOfAttrName() {
      return "dist.grad_accumulator_of";
    }
    /// Name of the unit attribute on a `memref.alloc` of bytes (i8) made by
    /// dist-place-buckets: the contiguous buffer a bucket collective reduces,
    /// whose members' buffers are views of their slots in it.
    static constexpr ::llvm::StringLiteral getBucketBufferAttrName() {
      return "dist.bucket_buffer";
    }
    /// Name of the op attribute `<n> : i64` (n >= 0) on a `dist.annotate`
    /// made by dist-sharding's stage 3 (the n-th fetch of a parameter in
    /// the function), which the partitioner copies onto the collectives the
    /// annotation becomes: fetches of one parameter for different uses or
    /// segments stay apart (CSE does not merge them), so each fetched copy
    /// is freed after the uses it serves.
    static constexpr ::llvm::StringLiteral getFetchAttrName() {
      return "dist.fetch";
    }
    /// Name of the op attribute `<k> : i64` (k >= 1) on an op whose one
    /// result is an i1 that is true on one call of the function in every k
    /// (dist-gradient-merge's update condition): the `then` region of an
    /// scf.if on it runs once every k calls, and dist-comm-report counts its
    /// collectives 1/k times per call. (On the condition rather than on the
    /// scf.if, which canonicalization rebuilds.)
    static constexpr ::llvm::StringLiteral getTrueOnceEveryAttrName() {
      return "dist.true_once_every";
    }
    /// Name of the attribute `<argument index> : i64` of a runtime
    /// function's declaration (dist-lower-to-runtime, dist-matmul-to-blas)
    /// that names its CUDA stream argument: the call's device work is
    /// ordered on that stream (null: the host waits for it).
    /// dist-gpu-streams passes the step's stream there. (On the function,
    /// not the argument: LLVM's translation warns about parameter
    /// attributes of dialects it cannot translate.)
    static constexpr ::llvm::StringLiteral getStreamArgumentAttrName() {
      return "dist.stream_argument";
    }
    /// Name of the unit attribute of a runtime function's declaration whose
    /// calls need no host synchronization with a GPU step's stream: it
    /// touches no buffer (dist_get_group), or orders its work on the stream
    /// its collective was started with (dist_wait).
    static constexpr ::llvm::StringLiteral getNoStreamSyncAttrName() {
      return "dist.no_stream_sync";
    }
  }];
}

class Dist_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dist_Dialect, mnemonic, traits>;

class Dist_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Dist_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Dist_ReductionSum  : I32EnumAttrCase<"sum", 0>;
def Dist_ReductionMax  : I32EnumAttrCase<"max", 1>;
def Dist_ReductionMin  : I32EnumAttrCase<"min", 2>;
def Dist_ReductionProd : I32EnumAttrCase<"prod", 3>;
def Dist_ReductionAvg  : I32EnumAttrCase<"avg", 4>;

def Dist_ReductionKind : I32EnumAttr<"ReductionKind",
    "how the values held by the ranks of a group are combined", [
      Dist_ReductionSum, Dist_ReductionMax, Dist_ReductionMin,
      Dist_ReductionProd, Dist_ReductionAvg]> {
  let cppNamespace = "::mlir::dist";
}

def Dist_RoleForward   : I32EnumAttrCase<"forward", 0>;
def Dist_RoleBackward  : I32EnumAttrCase<"backward", 1>;
def Dist_RoleOptimizer : I32EnumAttrCase<"optimizer", 2>;
def Dist_RoleLoss      : I32EnumAttrCase<"loss", 3>;
def Dist_RoleLRSched   : I32EnumAttrCase<"lr_sched", 4>;
def Dist_RoleDist      : I32EnumAttrCase<"dist", 5>;

def Dist_Role : I32EnumAttr<"Role",
    "the part of a training step an op belongs to (Paddle's OpRole)", [
      Dist_RoleForward, Dist_RoleBackward, Dist_RoleOptimizer, Dist_RoleLoss,
      Dist_RoleLRSched, Dist_RoleDist]> {
  let cppNamespace = "::mlir::dist";
  let genSpecializedAttr = 0;
}

def Dist_RoleAttr : EnumAttr<Dist_Dialect, Dist_Role, "role"> {
  let assemblyFormat = "`<` $value `>`";
}

def Dist_OriginReshard : I32EnumAttrCase<"reshard", 0>;
def Dist_OriginPartial : I32EnumAttrCase<"partial", 1>;

def Dist_Origin : I32EnumAttr<"Origin",
    "why dist-partition made a collective", [
      Dist_OriginReshard, Dist_OriginPartial]> {
  let cppNamespace = "::mlir::dist";
  let genSpecializedAttr = 0;
}

def Dist_OriginAttr : EnumAttr<Dist_Dialect, Dist_Origin, "origin"> {
  let summary = "Why a collective exists";
  let description = [{
    Set by `dist-partition` on every collective it makes:
    * `partial`: the collective completes the pending reduction of a partial
      value (an all_reduce or reduce_scatter of a value whose producer left
      it partial). With `dist.role = #dist.role<backward>` these are the
      gradient reductions of a training step.
    * `reshard`: the collective changes how a value is laid out (gather,
      all_to_all) because a user needs another layout.
    The collective's location is the location of the value it reshards.
  }];
  let assemblyFormat = "`<` $value `>`";
}

#endif // DIST_DIALECT_DIST_IR_DISTBASE_TD
