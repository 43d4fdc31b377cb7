//===- Passes.td - dist passes ------------------------------*- tablegen -*-===//

#ifndef DIST_TRANSFORMS_PASSES_TD
#define DIST_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DistVerify : Pass<"dist-verify", "::mlir::ModuleOp"> {
  let summary = "Checks that a module is a well-formed program of one phase";
  // `}~]` stands for `}]`, which would end the TableGen code block.
  let description = !subst("}~]", "}]", [{
    Op verifiers check each op on its own; this pass checks what holds for a
    whole program at a phase boundary of the dist pipeline. Every pipeline
    phase ends with it.

    * `phase=global` (a single-device program with sharding annotations):
      no collectives and no `dist.process_index`, which only have a meaning
      in a per-rank program; at least one `dist.mesh` if anything is
      annotated (checked by the op verifiers).
    * `phase=partitioned` (a per-rank SPMD program): no `dist.annotate`
      remains, and no function argument or result has a `dist.sharding`
      (dist-partition renames them `dist.partitioned_as`). `dist-lower-to-llvm`
      runs this check first.

    In either phase, the markings of a training step hold together: every
    `dist.grad_of` and `dist.state_of` names a `dist.param` argument, a state
    result updates state of the same parameter, and a result that updates a
    parameter has that parameter's gradient (`dist.grad_of`) in the function.

    With `summary=true` it reports, as a remark on the module, what the
    program holds: `dist-verify: global program: 1 mesh, 0 annotations,
    1 sharded function boundary value, 0 collectives`.

    Example: the global program below passes `phase=global`; with a
    `dist.all_reduce` in it, it fails with
    `'dist.all_reduce' op is a collective in a global program`.

    ```mlir
    dist.mesh @mesh_4 [mp = 4]
    func.func @f(%x: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}~]>})
        -> tensor<8x8xf32> {
      return %x : tensor<8x8xf32>
    }
    ```
  }]);
  let options = [
    Option<"phase", "phase", "std::string", /*default=*/"\"global\"",
           "Which phase to check: global or partitioned">,
    // Pass statistics are compiled out of release builds of LLVM (Debian's
    // included), so the counts are reported as a remark instead.
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Report what the module holds (meshes, annotations, sharded "
           "function boundaries, collectives) as a remark on the module">
  ];
}

def DistPropagate : Pass<"dist-propagate", "::mlir::ModuleOp"> {
  let summary = "Completes a sharding for every tensor value from the user's annotations";
  // `}~]` stands for `}]`, which would end the TableGen code block.
  let description = !subst("}~]", "}]", [{
    Starts from the shardings the user gave (`dist.sharding` on function
    arguments and results, `dist.annotate`) and derives one for every tensor
    value of each function, forward and backward through every op that has a
    sharding rule (`ShardingRuleOpInterface`), to a fixed point.

    For each op, the mesh axes of each factor (loop) are chosen among the
    layouts its operands and results already have: a user's layout wins, then
    the layout of the bigger tensor (changing it would move more bytes); a
    compatible, more split layout extends the choice; an axis splits at most
    one factor, and a factor only as far as its size divides. Split reduction
    factors make the results *partial*, and partial inputs flow through ops
    that are linear in them (matmul, add, mul, transpose, ...) so that a
    reduction happens once, as late as possible.

    Propagation sees through structured control flow: each value a
    `scf.for` carries (init, iter arg, yielded value, result) and each
    `scf.if` result with the values its branches yield share one layout; a
    loop may carry a partial accumulator, so gradients summed over
    micro-batches are reduced once, after the loop. Across calls, each
    function has one layout per argument and result: callees are completed
    before their callers (the call graph must be acyclic), and a call's
    results take its callee's result layouts.

    Updates only ever add axes (to the minor end of a dim, or to the partial
    axes), so each value changes at most a few times: the pass is linear in
    the program size, deterministic, and terminates. Values that stay
    unknown are replicated.

    Result: every op with tensor results carries `dist.shardings` (one entry
    per result; `unit` for non-tensors), every tensor argument and result of
    an annotated function carries `dist.sharding`. Ops on tensors without a
    rule compute replicated values. A function without any annotation is left
    alone.

    Example (Megatron MLP, column- then row-parallel):
    ```mlir
    dist.mesh @mesh_4 [mp = 4]
    func.func @mlp(%x: tensor<8x16xf32>,
        %w1: tensor<16x32xf32> {dist.sharding = #dist.sharding<@mesh_4, [{}, {mp}~]>},
        %w2: tensor<32x16xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}~]>},
        %h0: tensor<8x32xf32>, %o0: tensor<8x16xf32>) -> tensor<8x16xf32> {
      %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>)
                         outs(%h0 : tensor<8x32xf32>) -> tensor<8x32xf32>
      %o = linalg.matmul ins(%h, %w2 : tensor<8x32xf32>, tensor<32x16xf32>)
                         outs(%o0 : tensor<8x16xf32>) -> tensor<8x16xf32>
      return %o : tensor<8x16xf32>
    }
    ```
    becomes, in part:
    ```mlir
    %h = linalg.matmul {dist.shardings = [#dist.sharding<@mesh_4, [{}, {mp}~]>]} ...
    %o = linalg.matmul {dist.shardings = [#dist.sharding<@mesh_4, [{}, {}~], partial = sum{mp}>]} ...
    ```
    and the function result is declared replicated, so the partitioner reduces
    `%o` once, at the return.
  }]);
  let dependentDialects = ["::mlir::dist::DistDialect"];
}

def DistPartition : Pass<"dist-partition", "::mlir::ModuleOp"> {
  let summary = "Rewrites a completed global program into one SPMD per-rank program";
  // `}~]` stands for `}]`, which would end the TableGen code block.
  let description = !subst("}~]", "}]", [{
    Takes a program completed by `dist-propagate` (every op with tensor
    results carries `dist.shardings`) and rewrites each annotated function
    into the program one rank runs: local tensor types, local ops, and
    collectives wherever the layout a producer made differs from the one a
    consumer needs.

    * Each op with a sharding rule computes its part locally: the factor
      assignment is re-derived from the recorded shardings, every operand is
      resharded to the layout the op needs, and the op is rebuilt on local
      types. An op without a rule gets whole (replicated) operands.
    * Resharding follows a plan that is correct for every pair of layouts
      on meshes of any rank: partial -> reduced (`dist.all_reduce`, or
      `dist.reduce_scatter` when the target splits a dim by that axis),
      split moved to another dim (`dist.all_to_all`), split -> whole
      (`dist.all_gather`), whole -> split (a local `tensor.extract_slice`
      at an offset from `dist.process_index`), whole -> partial (a local
      mask, `arith.select` on the group index).
    * `dist.annotate` becomes the reshard to its layout; `func.return`
      reshards each result to its declared layout.
    * `scf.for` and `scf.if` are rebuilt with local types: inits and yielded
      values are resharded to the recorded layout of the carried value or
      result, and the bodies are partitioned like the function body.
    * `func.call` reshards its operands to the callee's argument layouts and
      returns the callee's local result types (one layout per callee).
    * Function arguments and results get local types; their `dist.sharding`
      becomes `dist.partitioned_as` (the global layout of the local shard).
      A declaration with boundary shardings gets its local signature the
      same way. A partitioned function used as a value (`func.constant`) is
      reported: indirect calls cannot follow its new type.

    Example: the Megatron MLP of `dist-propagate` (with zero-filled
    accumulators) becomes
    ```mlir
    func.func @mlp(%x: tensor<8x16xf32> {dist.partitioned_as = ...},
                   %w1: tensor<16x8xf32> {...}, %w2: tensor<8x16xf32> {...}) {
      %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x8xf32>) ...
      %o = linalg.matmul ins(%h, %w2 : tensor<8x8xf32>, tensor<8x16xf32>) ...
      %r = dist.all_reduce %o on @mesh_4 [mp] sum : tensor<8x16xf32>
      return %r : tensor<8x16xf32>
    }
    ```
    with exactly one collective.

    Errors: a layout change between meshes, a split of a dynamic dim where
    its local size is needed, and an op with regions but no sharding rule
    (other than `scf.for` and `scf.if`) are reported on the op (with both
    layouts where a reshard fails); no wrong program is ever produced.
  }]);
  let dependentDialects = [
    "::mlir::dist::DistDialect", "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect", "::mlir::scf::SCFDialect"
  ];
}

def DistImportShard : Pass<"dist-import-shard", "::mlir::ModuleOp"> {
  let summary = "Converts upstream `shard` dialect annotations into dist";
  // `}~]` stands for `}]`, which would end the TableGen code block.
  let description = !subst("}~]", "}]", [{
    Lets users of upstream MLIR's `shard` dialect switch to dist without
    rewriting their programs:

    * `shard.grid @g(shape = 2x4)` becomes `dist.mesh @g [a0 = 2, a1 = 4]`
      (grid axes are unnamed upstream; axis `i` is named `a<i>`).
    * `shard.shard %x to %s` (with or without `annotate_for_users`) becomes
      `dist.annotate %x as <@g, ...>`: the annotated result has that layout
      and dist reshards the value where its producer's layout differs, which
      is what the pair of result- and user-side annotations means upstream.
      Annotations of function arguments written in the body, as upstream's
      own tests do, become annotations of those arguments.
    * `shard.sharding` ops (`split_axes = [[0], [1, 2]]`) are folded into
      the annotations and erased.

    Example:
    ```mlir
    shard.grid @grid_4(shape = 4)
    func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
      %s = shard.sharding @grid_4 split_axes = [[0]] : !shard.sharding
      %y = shard.shard %x to %s annotate_for_users : tensor<8x8xf32>
      return %y : tensor<8x8xf32>
    }
    ```
    becomes
    ```mlir
    dist.mesh @grid_4 [a0 = 4]
    func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
      %y = dist.annotate %x as <@grid_4, [{a0}, {}~]> : tensor<8x8xf32>
      return %y : tensor<8x8xf32>
    }
    ```

    Programs that upstream has already partitioned (`shard-partition`) are
    imported too, so that dist can lower and run them: on tensors,
    `shard.all_reduce`, `reduce`, `broadcast`, `all_gather`,
    `reduce_scatter` and `all_to_all` become the dist collective of the same
    name on the axes `a<i>` (a root's multi-index becomes its index in the
    group, major to minor); `shard.all_slice` becomes the rank's block
    (`dist.process_index` and a `tensor.extract_slice`, no communication);
    `shard.process_multi_index` one `dist.process_index` per axis and
    `shard.process_linear_index` one over every axis. `halo_sizes` become
    halos of the split dims (`{a0} halo [lo, hi]`, upstream's meaning), and
    `shard.update_halo` a halo exchange: two `dist.permute`s per split dim,
    the first and last ranks keeping the destination's rows at the ends.

    Rejected with an error naming the op: dynamic grid shapes, dynamic halo
    sizes and explicit shard offsets (uneven shards), non-empty split
    sub-arrays past the tensor's dims, shardings that are not a
    `shard.sharding` op, collectives on memrefs, with a dynamic root, a
    reduction dist does not have (bitwise, generic) or a change of element
    type, and every other `shard` op (gather, scatter, send, recv, shift,
    ...).
  }]);
  let dependentDialects = ["::mlir::dist::DistDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DistCommReport : Pass<"dist-comm-report", "::mlir::ModuleOp"> {
  let summary = "Reports the bytes every collective of a partitioned program moves";
  let description = [{
    For a partitioned (per-rank) program, emits one remark per collective
    with its group (mesh axes and number of ranks), the elements and bytes of
    the local tensor, and the bytes each rank sends for one execution; then a
    remark on the module with the totals, overall and per group of mesh axes.
    This is the measure the benchmarks compare against the analytical
    minimum.

    Bytes each rank sends, for a tensor of B bytes (the operand; for
    all_gather the result) over a group of G ranks, with the
    bandwidth-optimal algorithms (ring / recursive halving):
    all_reduce 2(G-1)/G B; all_gather, reduce_scatter, all_to_all,
    reduce and broadcast (G-1)/G B (reduce moves half the bytes of an
    all_reduce); permute B (every source sends its tensor).

    ```mlir
    %r = dist.all_reduce %x on @mesh_4 [mp] sum : tensor<8x16xf32>
    // remark: dist.all_reduce over [mp] (4 ranks): 128 x f32 = 512 B;
    //         each rank sends 768 B
    // remark: dist-comm-report: 1 collective; each rank sends 768 B;
    //         [mp]: 1 collective, 768 B
    ```

    A collective inside `scf.for` loops counts once per iteration: its bytes
    are multiplied by the loops' constant trip counts (unknown if a trip
    count is not constant). A collective in the `then` region of an `scf.if`
    whose condition is marked `dist.true_once_every = k` (the update of
    `dist-gradient-merge`) runs on one call in k: the totals are then over a
    window of calls in which every collective runs a whole number of times
    ("each rank sends 3072 B per 4 calls (768.00 B per call)"; JSON:
    `calls`, and `every` per collective). With `json=<file>`, the same report is written as
    JSON (`-` for stdout). Collectives with dynamic shapes or unknown trip
    counts are counted with unknown bytes and reported as such.
  }];
  let options = [
    Option<"jsonFile", "json", "std::string", /*default=*/"\"\"",
           "Also write the report as JSON to this file ('-' for stdout)">
  ];
}

def DistPrintShardingRules : Pass<"dist-print-sharding-rules"> {
  let summary = "Reports the sharding rule of every op, as remarks";
  let description = [{
    For every op nested in the root that has a sharding rule (through
    `ShardingRuleOpInterface`), emits a remark with the rule: one factor list
    per operand and result (`_` for a dim no factor indexes), then each
    factor's size and, for reductions, the combiner (`sum`, `max`, ...);
    `whole` marks a factor that must not be split. Ops on tensors without a
    rule get a remark saying so (`scf.for` and `scf.if` need none: their
    results share the layouts of what they yield). Rules that do not match
    their op (wrong number of dims, a dim that is no multiple of its
    factor's size) are errors.

    This is the tool to check a rule written for a new op.

    ```mlir
    %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>)
                       outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
    // remark: sharding rule: ([i, k], [k, j], [i, j]) -> ([i, j])
    //         {i=8, j=32, k=16 sum}
    ```
  }];
}

def DistMakeAsync : Pass<"dist-make-async", "::mlir::ModuleOp"> {
  let summary = "Turns blocking collectives into async start/wait pairs";
  let description = [{
    Every blocking collective on tensors becomes an `async` collective and a
    `dist.wait`, so that the compute between the two overlaps the
    communication. Where the wait goes:

    * `wait=first-use` (default): just before the first op of the block that
      uses one of the collective's results (or an op that holds such a use in
      its regions), or before the block's terminator; compute that does not
      need the result runs while the collective is in flight.
    * `wait=immediate`: right after the collective (no overlap; a scheduling
      pass moves it later).

    Collectives already async are left as they are; a blocking collective on
    buffers is an error (the pass runs before bufferization). Blocking remains the default of the pipelines:
    `dist-auto-partition{async-collectives=true}` runs this pass after
    partitioning.

    Before:
    ```mlir
    %g = dist.all_reduce %x on @mesh_4 [dp] sum : tensor<64xf32>
    %y = arith.mulf %a, %a : tensor<64xf32>
    %z = arith.addf %g, %y : tensor<64xf32>
    ```
    After (`wait=first-use`):
    ```mlir
    %g, %t = dist.all_reduce async %x on @mesh_4 [dp] sum : tensor<64xf32>
    %y = arith.mulf %a, %a : tensor<64xf32>
    %gw = dist.wait %t, %g : tensor<64xf32>
    %z = arith.addf %gw, %y : tensor<64xf32>
    ```
  }];
  let options = [
    Option<"wait", "wait", "std::string", /*default=*/"\"first-use\"",
           "Where the wait goes: first-use or immediate">
  ];
  let statistics = [
    Statistic<"numMadeAsync", "made-async", "Collectives made async">
  ];
  let dependentDialects = ["::mlir::dist::DistDialect"];
}

def DistLowerToRuntime : Pass<"dist-lower-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lowers bufferized collectives to calls into dist's runtime";
  let description = [{
    Runs after bufferization (which turns every tensor collective into its
    `dist.buffer.*` form) and after buffer deallocation. Each buffer
    collective becomes a call into the runtime's C ABI
    (`include/dist/Runtime/DistRuntime.h`): `dist_get_group` with the mesh
    shape and the group's axis positions (constant globals; the runtime
    caches the communicator), then the collective on the buffer's data
    pointer. `dist.process_index` becomes `dist_group_index` of its group.

    `dist.buffer.permute` becomes `dist_send_recv`: the pass builds, per
    group index, the index it sends to and the one it receives from (-1:
    none) as constant tables, and the rank reads its own two entries. When
    some rank receives nothing, its output is filled with zeros first.

    all_reduce, reduce and broadcast run in place on their buffer. A buffer
    that is not contiguous (a strided view) is copied into a temporary
    contiguous one, and back when the collective writes it; the temporary is
    freed right after. A bucket (several buffers) is reduced as one
    contiguous buffer: the one `dist-place-buckets` made, with only its
    unplaced members copied in and back, or else a temporary that every
    member is copied into and back from. Elements must be f32, f64, f16, bf16, i32, i64 or
    index; shapes must be static. A collective over a group of one device
    (an axis of size 1) makes no call: in place it is nothing, otherwise a
    `memref.copy` of its input to its output.

    Every collective takes a stream last: null here (the CPU backends take
    no other); the declarations say how a GPU step orders the calls
    (`dist.stream_argument` naming a collective's stream argument,
    `dist.no_stream_sync`
    on `dist_get_group`, `dist_group_index`, `dist_wait` and
    `dist_progress`), which `dist-gpu-streams` reads.

    ```mlir
    dist.buffer.all_reduce %buf on @mesh_4 [mp] sum : memref<4x8xf32>
    // becomes
    %group = func.call @dist_get_group(%mesh_shape, %c1_i32, %axes, %c1_i32,
                                       %c0_i32)
        : (!llvm.ptr, i32, !llvm.ptr, i32, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    func.call @dist_all_reduce(%group, %data, %c32_i64, %c0_i32, %c0_i32,
                               %null)
        : (!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr) -> ()
    ```
    The module then needs the usual conversions to LLVM (see
    `dist-lower-to-llvm`) and linking with `libdist_runtime`.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::linalg::LinalgDialect"
  ];
}

def DistDecomposeAggregates : Pass<"dist-decompose-aggregates"> {
  let summary = "Decomposes softmax, tensor.gather and scf.index_switch for the lowering";
  let description = [{
    Ops such as `linalg.softmax` have no loop form of their own, and
    `tensor.gather` has no bufferization; this pass replaces every op
    implementing linalg's `AggregatedOpInterface` with the ops it stands for
    (reductions, elementwise ops), and every `tensor.gather` with a
    `linalg.generic` over its result that extracts the indices and then the
    source element, so that the rest of the lowering sees only structured
    ops. Every `scf.index_switch` becomes a chain of `scf.if` (one per case,
    the default last): MLIR 22's one-shot bufferization of `scf.index_switch`
    lets an op write in place into a buffer that a case yields although the
    buffer is read later. It runs first in `dist-lower-to-llvm`.

    ```mlir
    %s = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>)
        outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
    // becomes a max reduction, a subtract-exp, a sum reduction and a divide.
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def DistMatmulToBlas : Pass<"dist-matmul-to-blas", "::mlir::ModuleOp"> {
  let summary = "Calls cblas_sgemm/cblas_dgemm for linalg.matmul on buffers";
  let description = [{
    Replaces `linalg.matmul` on memrefs of f32 (f64) whose rows are
    contiguous (unit innermost stride) by a call to `cblas_sgemm`
    (`cblas_dgemm`) in row-major order with beta = 1, which is what
    linalg.matmul computes (C += A * B); where C was just zero-filled (a
    `linalg.fill` of 0 of the same buffer, with only pure ops and
    allocations in between), beta = 0 and the fill is erased, so C is
    neither cleared nor read. The program must be linked with a CBLAS
    (OpenBLAS).

    Other contractions on buffers go to the same calls: any linalg op whose
    body is a multiply-accumulate and whose loops are one m, one n and one
    k loop plus any number of batch loops (`linalg.batch_matmul`, matmuls
    with transposed maps, attention's "biad,bjad->baij" as a
    `linalg.generic`), with static sizes and strides, where each operand
    has a contiguous dim among its two matrix dims: one call per batch
    element (in `scf.for` loops over the batch dims), operands read
    transposed (`CblasTrans`) where their contiguous dim is the other one,
    and a column-major result computed as C^T = B^T A^T. Contractions with
    other element types, dynamic shapes or strides, or no contiguous dim
    are left for the loop lowering.

    ```mlir
    linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>)
                  outs(%c : memref<64x16xf32>)
    // becomes
    func.call @cblas_sgemm(%row_major, %no_trans, %no_trans, %m, %n, %k,
        %one, %a_ptr, %lda, %b_ptr, %ldb, %one, %c_ptr, %ldc) : (...) -> ()
    ```

    With `library=cublas` (in `dist-lower-to-nvvm`) the calls go to
    `dist_cublas_sgemm`/`dist_cublas_dgemm` instead: the same CBLAS
    signature on device buffers, provided by `libdist_cuda_runtime.so` over
    cuBLAS. Contractions of bf16 or f16 inputs into an f32 or equal output
    then call `dist_cublas_gemm_ex` (f32 scalars, then the input and
    output types as dist_dtype_t): cublasGemmEx accumulating in f32. Such
    a product into a zero-filled f32 buffer that the next op touching
    memory only rounds (`arith.truncf` to the inputs' type) writes the
    rounded buffer directly: the f32 buffer and the rounding copy go. Each
    cuBLAS call takes a CUDA stream last (`dist.stream_argument` on the
    declaration):
    null here, where the host waits for the device around the product;
    `dist-gpu-streams` passes the step's stream.
  }];
  let options = [
    Option<"library", "library", "std::string", /*default=*/"\"cblas\"",
           "Who computes the products: cblas (the host's CBLAS, "
           "cblas_?gemm) or cublas (dist's CUDA runtime over cuBLAS, "
           "dist_cublas_?gemm, on device buffers)">
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def DistVectorizeMatmul : Pass<"dist-vectorize-matmul", "::mlir::func::FuncOp"> {
  let summary = "Tiles linalg.matmul/batch_matmul on tensors into register "
                "tiles and vectorizes them (outer products)";
  let description = [{
    The CPU code path for matmuls that do not go to a BLAS. Each
    `linalg.matmul` and `linalg.batch_matmul` on static tensors (default
    indexing maps) is tiled by `scf.for` into tiles of `tile-m` x `tile-n`
    (batch 1, reduction 1), each tile becomes a `vector.contract`, the
    accumulator tile's read and write are hoisted out of the reduction loop
    (it stays in registers), and the contraction becomes outer products
    (one broadcast row of B times one column of A per step: FMAs on
    `tile-n`-wide vectors). A tile size that does not divide its dimension
    is lowered to the largest one that does, so every tile is full.
    Dynamic shapes, user-defined maps, unsigned casts, inputs of another
    kind than the result or wider than it, and dead matmuls are left to the
    loop lowering.

    ```mlir
    %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                       outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    // becomes
    scf.for %i = %c0 to %c64 step %c8 iter_args(...) {
      scf.for %j = %c0 to %c64 step %c32 iter_args(...) {
        %acc0 = vector.transfer_read %c[%i, %j] ... : vector<8x32xf32>
        %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc1 = %acc0) {
          %col = vector.transfer_read %a[%i, %k] ... : vector<8x1xf32>
          %row = vector.transfer_read %b[%k, %j] ... : vector<1x32xf32>
          ... vector.fma per row of the tile ...
        }
        vector.transfer_write %acc, ...[%i, %j]
    ```

    With `skip-blas-types`, `linalg.matmul`s whose three types are all f32
    or all f64 are left for `dist-matmul-to-blas`.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", /*default=*/"8",
           "Rows of the accumulator tile (at most)">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"32",
           "Columns of the accumulator tile (at most; a multiple of the "
           "vector width is best)">,
    Option<"skipBlasTypes", "skip-blas-types", "bool", /*default=*/"false",
           "Leave all-f32 and all-f64 linalg.matmul for dist-matmul-to-blas">
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect",
    "::mlir::ub::UBDialect"
  ];
}

def DistStripAnnotations : Pass<"dist-strip-annotations", "::mlir::ModuleOp"> {
  let summary = "Removes every sharding annotation: the serial program";
  // `}~]` stands for `}]`, which would end the TableGen code block.
  let description = !subst("}~]", "}]", [{
    Turns an annotated global program into the single-device program it
    describes, which computes the same values: every `dist.annotate` is
    replaced by its operand, `dist.sharding` on function arguments and
    results and `dist.shardings` on ops are removed, and the `dist.mesh`
    ops, which nothing refers to any more, are erased. What does not
    describe a layout stays: `dist.role`, `dist.input_range`,
    `dist.updates` and `dist.name`. `dist-run` builds its serial program with this pass
    (after `dist-import-shard`).

    ```mlir
    dist.mesh @mesh_4 [mp = 4]
    func.func @f(%x: tensor<8x8xf32> {dist.sharding = #dist.sharding<@mesh_4, [{mp}, {}~]>})
        -> tensor<8x8xf32> {
      %y = dist.annotate %x as <@mesh_4, [{}, {mp}~]> : tensor<8x8xf32>
      return %y : tensor<8x8xf32>
    }
    ```
    becomes
    ```mlir
    func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
      return %x : tensor<8x8xf32>
    }
    ```

    Preconditions: a global program. Collectives, `dist.process_index`,
    `dist.partitioned_as` boundaries (a per-rank program has no serial
    form) and upstream `shard` ops (run `dist-import-shard` first) are
    reported with an error naming the op or the boundary, and the pass fails.
    With `summary`, the number of annotations and boundary shardings removed
    is reported as a remark on the module.
  }]);
  let options = [
    // Pass statistics are compiled out of release builds of LLVM, so the
    // counts are reported as a remark instead (as dist-verify does).
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Report the number of annotations, boundary shardings and meshes "
           "removed as a remark on the module">
  ];
}

def DistDataParallel : Pass<"dist-data-parallel", "::mlir::ModuleOp"> {
  let summary = "Makes a training step data parallel over a mesh axis";
  // `}~]` stands for `}]`, which would end the TableGen code block.
  let description = !subst("}~]", "}]", [{
    Annotates a global training step (one whose arguments are marked
    `dist.param`, see [Dialect.md]) so that partitioning makes it data
    parallel over mesh axis `axis`, computing what the serial step computes
    on the global batch:

    * every batch argument (a tensor argument of rank 1 or more that is
      neither a parameter, nor optimizer state, nor updated by a result) is
      split along its first dimension over `axis` (added to the axes already
      splitting it); rank-0 tensors and scalars stay replicated;
    * parameters, optimizer state and every other piece of state stay
      replicated over `axis` (their other axes, a Megatron split, are kept);
    * every gradient (the result of an op marked `dist.grad_of`) is pinned
      by a `dist.annotate` to its parameter's layout, right where backward
      makes it: partitioning reduces it there, once (the seeds' allreduce per
      gradient), instead of wherever its users happen to need it, and
      clipping, the optimizer update and returned gradients all read the
      reduced value. The update of a parameter depends on its own gradient
      only (the global norm of clipping on all of them).
    * with `num-comms=K`, the i-th gradient's reduction uses communicator
      `i mod K` of the group (the seeds' `nrings`), round-robin in the order
      backward makes the gradients.

    The loss-gradient scaling stays exact: the serial step averages over its
    global batch, so each rank's partial gradient already carries the factor
    1/B of the global batch and the sum over ranks is the serial gradient
    (scaled before the sum, so nothing grows past the values of one rank in
    bf16).

    ```mlir
    dist.mesh @mesh [dp = 4]
    func.func @train_step(%w: tensor<8x4xf32> {dist.param, dist.name = "w"},
                          %x: tensor<16x8xf32>, ...) -> (tensor<8x4xf32> {dist.name = "w"}, ...) {
      ...
      %g = linalg.matmul {dist.grad_of = 0 : i64} ...
      %w2 = linalg.generic ... ins(%w, %g ...)
    ```
    becomes (with `axis=dp num-comms=2`)
    ```mlir
    func.func @train_step(%w: tensor<8x4xf32> {..., dist.sharding = #dist.sharding<@mesh, [{}, {}~]>},
                          %x: tensor<16x8xf32> {dist.sharding = #dist.sharding<@mesh, [{dp}, {}~]>}, ...)
      %g = linalg.matmul {dist.grad_of = 0 : i64} ...
      %g_1 = dist.annotate %g as <@mesh, [{}, {}~]> : tensor<8x4xf32>
      %w2 = linalg.generic ... ins(%w, %g_1 ...)
    ```

    Errors (located): no mesh or several and no `mesh` option, an axis not
    on the mesh, `num-comms` < 1, no training step, a step without
    gradients, a batch argument whose first dimension the axis does not
    divide or which is split over the axis along another dimension, a
    parameter or state already split over the axis, a per-rank program.
  }]);
  let options = [
    Option<"axis", "axis", "std::string", /*default=*/"\"dp\"",
           "The mesh axis to split the batch over">,
    Option<"meshName", "mesh", "std::string", /*default=*/"\"\"",
           "The mesh (default: the module's only dist.mesh)">,
    Option<"numComms", "num-comms", "int64_t", /*default=*/"1",
           "Spread gradient reductions round-robin over this many "
           "communicators of the group">
  ];
}

def DistGradientMerge : Pass<"dist-gradient-merge", "::mlir::ModuleOp"> {
  let summary = "Accumulates gradients over k micro-steps, updates once per k";
  let description = [{
    Rewrites a global training step (arguments marked `dist.param`, ops
    marked `dist.grad_of`) into one micro-step of gradient merge (the seeds'
    GradientMergeOptimizer): called k times, it trains like one step on the
    k micro-batches together.

    * Every gradient is added into an accumulator right where backward makes
      it. The accumulators are new state: an argument and a result per
      gradient, named `<parameter>.grad_accumulator`, marked
      `dist.grad_accumulator_of = <parameter>` and starting at zero
      (`dist.input_fill`).
    * A micro-step counter (`gradient_merge.micro_step`, a `tensor<i64>`
      starting at 0) counts the calls.
    * Everything that reads a gradient (clipping, the optimizer update,
      returned gradients) and every result that updates an argument
      (parameters, optimizer state, Adam's step) moves into an `scf.if`
      taken on every k-th call (its condition marked
      `dist.true_once_every = k`), where it reads
      the merged gradient: the accumulator times 1/k (`avg=true`: the mean
      over the micro-batches, so k micro-steps equal one step on the k times
      larger batch) or times 1 (`avg=false`: the sum). The merged gradient
      now carries `dist.grad_of`, so `dist-data-parallel`, run after this
      pass, reduces it there: once per k micro-steps, and
      `dist-comm-report` counts it so. The update resets the accumulators to
      zero. On the other calls the state comes out unchanged and a returned
      gradient is zero.
    * What only the update reads (the learning-rate schedule) moves into the
      `scf.if` too. The loss is computed on every call.

    ```mlir
    func.func @train_step(%w: tensor<8x4xf32> {dist.param, dist.name = "w"}, %x: ...)
        -> (tensor<8x4xf32> {dist.name = "w"}, tensor<f32> {dist.name = "loss"}) {
      ...
      %g = linalg.matmul {dist.grad_of = 0 : i64} ...
      %w2 = linalg.generic ... ins(%w, %g ...)
      return %w2, %loss
    ```
    becomes (`k=4`)
    ```mlir
    func.func @train_step(%w: ..., %x: ...,
        %acc: tensor<8x4xf32> {dist.grad_accumulator_of = 0 : i64, dist.input_fill = 0.0 : f64,
                               dist.name = "w.grad_accumulator"},
        %count: tensor<i64> {dist.input_range = array<i64: 0, 1>, dist.name = "gradient_merge.micro_step"})
        -> (..., tensor<8x4xf32> {...}, tensor<i64> {...}) {
      %g = linalg.matmul ...
      %sum = arith.addf %acc, %g : tensor<8x4xf32>
      ...
      %next = arith.addi %count, %one : tensor<i64>
      %update = arith.cmpi eq, %rem, %c0 {dist.true_once_every = 4 : i64} : i64
      %r:2 = scf.if %update -> (tensor<8x4xf32>, tensor<8x4xf32>) {
        %merged = arith.mulf %sum, %quarter {dist.grad_of = 0 : i64} : tensor<8x4xf32>
        %w2 = linalg.generic ... ins(%w, %merged ...)
        scf.yield %w2, %zeros
      } else {
        scf.yield %w, %sum
      }
      return %r#0, %loss, %r#1, %next
    ```

    Errors (located): `k` < 1, no training step, a step without gradients,
    two gradients of one parameter, a gradient inside a region or of no
    float tensor, a step in several blocks, a step already merged, a
    per-rank program.
  }];
  let options = [
    Option<"steps", "k", "int64_t", /*default=*/"4",
           "Micro-steps per update">,
    Option<"average", "avg", "bool", /*default=*/"true",
           "Merge by the mean of the micro-steps' gradients (else the sum)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DistLocalSGD : Pass<"dist-local-sgd", "::mlir::ModuleOp"> {
  let summary = "Local updates; parameters averaged every k steps (LocalSGD)";
  let description = [{
    Turns the per-rank program of a data-parallel training step (made by
    `dist-data-parallel` and partitioning) into LocalSGD, the seeds'
    algorithm:

    * The gradient reductions over `axis` (the `dist.all_reduce` ops of
      results of ops marked `dist.grad_of`) go: each rank steps on its own
      batch. A rank's partial gradient is its share of the sum over the
      axis, so it is scaled by the axis size (its own estimate of the sum:
      the mean gradient over its batch). Reductions over further axes (a
      Megatron axis) stay.
    * Every updated parameter gets a snapshot, new state named
      `<parameter>.local_sgd_snapshot` (in the parameter's layout), and a
      step counter `local_sgd.step` counts the calls. The first call takes
      the snapshots from the parameters it gets.
    * On every k-th call (an `scf.if` whose condition is marked
      `dist.true_once_every = k`), after the local update: `delta =
      snapshot - param`, all-reduced (sum) over the axis in one bucket and
      divided by its size, `param = snapshot - delta`, `snapshot = param`.
      Optimizer state stays local.

    With k = 1 and plain SGD this is data parallelism (the average of the
    local updates is the update with the averaged gradient). Run it before
    `dist-fuse-gradients` and `dist-make-async`, e.g. `dist-run
    --per-rank-passes=dist-local-sgd{k=4}` (with `--no-compare` for k > 1,
    where the ranks' parameters differ from the serial step between
    averagings by design).

    Errors (located): `k` < 1, a global program, no training step, no
    gradient reduction over the axis, an async or non-sum reduction, a
    parameter that is no float tensor.
  }];
  let options = [
    Option<"steps", "k", "int64_t", /*default=*/"4",
           "Local steps between parameter averagings">,
    Option<"axis", "axis", "std::string", /*default=*/"\"dp\"",
           "The data-parallel mesh axis">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::dist::DistDialect"];
}

def DistSharding : Pass<"dist-sharding", "::mlir::ModuleOp"> {
  let summary = "Splits a data-parallel step's state across its ranks (ZeRO stages 1-3)";
  // `}~]` stands for `}]`, which would end the TableGen code block.
  let description = !subst("}~]", "}]", [{
    ZeRO-style sharding of a global training step that `dist-data-parallel`
    made data parallel over `axis`, in the ZeRO/FSDP style: every parameter
    is cut evenly across the axis's group along its first dimension that the
    group divides (after the axes already splitting it, a Megatron split, so
    the block is minor to them). Stages as in the ZeRO paper:

    * stage 1: the optimizer state shaped like its parameter (`dist.state_of`)
      is split; the update of each parameter is pinned split where it leaves
      the step, so every rank updates only its block and partitioning
      gathers the updated parameter (`all_gather`) into its replicated
      result. Gradients are still all-reduced.
    * stage 2 (default): also each gradient, pinned split where backward
      makes it, so partitioning reduces it with `reduce_scatter` (half the
      bytes of an `all_reduce`, and only a block of it is kept).
    * stage 3: also the parameter, split between steps (argument and
      result), gathered by a `dist.annotate` just before each use outside
      the update (so each gathered copy lives from its use's gather to the
      use).

    A parameter whose dims the group divides nowhere stays whole, as in data
    parallelism (`print-layout` lists them). Global-norm clipping stays
    exact: its sum over split gradients is partial and partitioning
    all-reduces that scalar. Partitioning and `dist-run` then work as for
    data parallelism; the state arguments are allocated as their blocks.

    ```mlir
    dist.mesh @mesh [dp = 2]
    func.func @step(%w: tensor<4x2xf32> {dist.param, dist.name = "w", dist.sharding = #dist.sharding<@mesh, [{}, {}~]>},
                    %m: tensor<4x2xf32> {dist.state_of = 0 : i64, dist.name = "w.momentum", ...}, %x: ...) -> (...) {
      %g = linalg.matmul {dist.grad_of = 0 : i64} ...
      %g_1 = dist.annotate %g as <@mesh, [{}, {}~]> : tensor<4x2xf32>
      ...
      return %w2, %m2 ...
    ```
    becomes (`stage=2`)
    ```mlir
    func.func @step(%w: tensor<4x2xf32> {..., dist.sharding = #dist.sharding<@mesh, [{}, {}~]>},
                    %m: tensor<4x2xf32> {..., dist.sharding = #dist.sharding<@mesh, [{dp}, {}~]>}, %x: ...)
        -> (tensor<4x2xf32> {dist.name = "w", dist.sharding = #dist.sharding<@mesh, [{}, {}~]>},
            tensor<4x2xf32> {dist.name = "w.momentum", dist.sharding = #dist.sharding<@mesh, [{dp}, {}~]>}) {
      %g = linalg.matmul {dist.grad_of = 0 : i64} ...
      %g_1 = dist.annotate %g as <@mesh, [{dp}, {}~]> : tensor<4x2xf32>
      ...
      %w3 = dist.annotate %w2 as <@mesh, [{dp}, {}~]> : tensor<4x2xf32>
      return %w3, %m2 ...
    ```

    `ownership=whole` is the seeds' style instead: every parameter, with its
    gradient and optimizer state, is owned whole by one rank of the group
    (`owner = i {axis}` in its layout), owners chosen so that each rank's
    parameter bytes are balanced (largest first, each to the least loaded
    rank). Partitioning then reduces each gradient onto its owner
    (`dist.reduce`, stage 2; stage 1 all-reduces it), the owner's update is
    broadcast from it (`dist.broadcast`, stages 1 and 2), and in stage 3
    the parameter stays owned between steps and is broadcast before each
    use. Ops computing on owned values run where they are: only the owner's
    results mean anything. Clipping's sum over gradients of different
    owners becomes one partial sum, all-reduced once.

    ```mlir
    // stage=2 ownership=whole, 2 ranks: w (32 B) owned by rank 0, b by rank 1.
    %g_1 = dist.annotate %g as <@mesh, [{}, {}~], owner = 0 {dp}> : tensor<4x2xf32>
    // partitions to
    %r = dist.reduce %g on @mesh [dp] sum root = 0 : tensor<4x2xf32>
    ```

    Segments (stage 3, as the seeds' `segment_broadcast_MB` and
    `segment_anchors`): by default each use outside the update gathers its
    parameter just before it. With `segment-mb=M` the step is cut, in the
    order in which parameters are first used, into segments of at most M MB
    of parameters (a larger parameter gets a segment of its own); with
    `segment-anchors=a,b` a segment also starts at the first use of each
    named parameter. All parameters a segment uses are gathered (or
    broadcast) together at its start, one copy for all their uses in it.

    With an outer data-parallel axis (hybrid), run `dist-data-parallel` on
    both axes first: the gradients are then reduce-scattered (or reduced to
    their owners) over `axis` and all-reduced over the other. Options:
    `axis`, `stage`, `ownership`, `segment-mb`, `segment-anchors`, `mesh`,
    `print-layout` (prints each rank's
    bytes of parameters, gradients and optimizer state, the parameters left
    whole, and with `ownership=whole` each rank's parameters).

    Errors (located): no mesh or several and no `mesh` option, an axis not
    on the mesh, a stage other than 1, 2 or 3, an ownership other than
    split or whole, a negative segment size, segment options below stage 3,
    an anchor that names no parameter, no training step, a
    per-rank program, a step whose batch is not split over the axis or whose
    gradients are not pinned (run `dist-data-parallel` first), a step
    without gradients, a parameter already laid out over the axis.
  }]);
  let options = [
    Option<"axis", "axis", "std::string", /*default=*/"\"dp\"",
           "The data-parallel mesh axis whose group shares the state">,
    Option<"stage", "stage", "int64_t", /*default=*/"2",
           "1: optimizer state; 2: and gradients; 3: and parameters">,
    Option<"segmentMB", "segment-mb", "double", /*default=*/"0",
           "Stage 3: cut the step into segments of at most this many MB of "
           "parameters (in order of first use), each gathered at its "
           "segment's start (0: each use gathers its own, just before it)">,
    ListOption<"segmentAnchors", "segment-anchors", "std::string",
               "Stage 3: parameters (dist.name) whose first use starts a new "
               "segment">,
    Option<"ownership", "ownership", "std::string", /*default=*/"\"split\"",
           "split: every tensor split evenly across the group (ZeRO/FSDP); "
           "whole: every tensor owned whole by one rank, balanced by bytes">,
    Option<"packState", "pack-state", "bool", /*default=*/"true",
           "ownership=whole: pack the owned optimizer state of each element "
           "type into one argument with a row per rank, split over the axis, "
           "so that each rank allocates only the state it owns">,
    Option<"meshName", "mesh", "std::string", /*default=*/"\"\"",
           "The mesh (default: the module's only dist.mesh)">,
    Option<"printLayoutOption", "print-layout", "bool", /*default=*/"false",
           "Print each rank's bytes of parameters, gradients and state">
  ];
  let dependentDialects = ["::mlir::dist::DistDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DistMemoryReport : Pass<"dist-memory-report", "::mlir::ModuleOp"> {
  let summary = "Reports the peak bytes a bufferized program keeps live per rank";
  let description = [{
    A static estimate of the memory of a bufferized (per-rank or serial)
    program, as one remark per function: the peak of the bytes live, and
    what they are at that point: parameters, gradients, optimizer state,
    activations and communication buffers.

    * Arguments are live for the whole call: `dist.param` ones are
      parameters, `dist.state_of` optimizer state, `dist.grad_accumulator_of`
      gradients, the rest (the batch) activations.
    * Every allocation (an op with an `Allocate` effect on its result) is
      live from where it is made to the op that frees it (or the end), in
      program order; both branches of an `scf.if` count, so the figure is
      an upper bound there. A buffer returned as a result that updates an
      argument counts as that argument's kind, and so does the input of
      the collective that fills it (an updated block gathered into the
      next parameter); a buffer that an op marked
      `dist.grad_of` writes into is a gradient; the fresh output of a
      collective is a gradient (block) when the collective reads a
      gradient, a communication buffer otherwise; everything else is an
      activation. Views count as their buffer.
    * Allocations of dynamic size are not counted (the remark says how
      many).

    `dist-lower-to-llvm{memory-report=true}` runs it right after
    bufferization and deallocation, so `dist-run` programs can be measured
    as they run (`dist-run --keep` keeps `partitioned.mlir`).

    ```
    remark: dist-memory-report: peak 1152 B live per rank: parameters 256 B,
      gradients 192 B, optimizer state 64 B, activations 512 B,
      communication buffers 128 B; model states at their peak 576 B:
      parameters 256 B, gradients 256 B, optimizer state 64 B
    ```

    The remark also gives the model states at their own peak (ZeRO's
    model states: parameters, gradients and optimizer state, without
    activations and communication buffers), the figure that the ZeRO
    paper's formulas give per stage. `list-peak=true` attaches a note for
    each buffer live at the peak (arguments at the function, allocations at
    the op that makes them), with its kind and bytes.

    Errors (located): a function that takes tensors (not bufferized).
  }];
  let options = [
    Option<"listPeak", "list-peak", "bool", /*default=*/"false",
           "Attach a note for each buffer live at the peak (its kind and "
           "bytes, at the op that allocates it)">,
  ];
}

def DistChunkCollectives
    : Pass<"dist-chunk-collectives", "::mlir::ModuleOp"> {
  let summary = "Splits a large reduce-scatter, and the op that makes its "
                "input, into chunks so that the full input never exists";
  let description = [{
    Under `dist-sharding{stage=2}` (and 3) every rank computes the full
    gradient of a weight (its share of the batch) and reduce-scatters it at
    once: the full-size gradient lives, on every rank, between the matmul
    that makes it and the collective. ZeRO's formulas leave it out; ZeRO's
    implementation bounds it by its reduce bucket. This pass bounds it by
    `max-mb`: a collective on tensors of the per-rank program

    * with one input, made by an op that implements `TilingInterface`
      (a linalg op) whose one result has no other use,
    * whose input is larger than `max-mb` MB and whose output is smaller than
      its input (a reduce_scatter: chunking a collective whose output is full
      size would save nothing),

    becomes `k` chunks along a dimension that the collective does not cut
    into blocks (`getInputBlockDim` / `getOutputBlockDim`), the largest such
    dimension: each chunk is a tile of the producer (its zero-filled init
    made per chunk too, through `TilingInterface`), the collective on that
    tile, and the chunk's output inserted into the output before its first
    use. `k` is the smallest divisor of the dimension that makes each chunk
    at most `max-mb` MB (or every slice, when none does). The same elements
    are reduced over the same ranks and the bytes sent are the same; there
    are `k` collectives instead of one. Collectives that are async already,
    and those whose producer cannot be tiled along a free dimension, are left
    as they are.

    Run it on the per-rank program, after partitioning and before
    `dist-make-async` (`dist-run --per-rank-passes=dist-chunk-collectives,...`).

    Before (`max-mb=0.5`, a 1 MB gradient):
    ```mlir
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
    %g = linalg.matmul ins(%xt, %dy : tensor<256x64xf32>, tensor<64x1024xf32>) outs(%z : tensor<256x1024xf32>) -> tensor<256x1024xf32>
    %s = dist.reduce_scatter %g on @mesh [dp] sum dim = 0 : tensor<256x1024xf32> -> tensor<64x1024xf32>
    ```
    After:
    ```mlir
    %dy0 = tensor.extract_slice %dy[0, 0] [64, 512] [1, 1]
    %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<256x512xf32>)
    %g0 = linalg.matmul ins(%xt, %dy0 : ...) outs(%z0 : tensor<256x512xf32>)
    %s0 = dist.reduce_scatter %g0 on @mesh [dp] sum dim = 0 : tensor<256x512xf32> -> tensor<64x512xf32>
    ... the same for columns 512..1023 ...
    %o = tensor.empty() : tensor<64x1024xf32>
    %o0 = tensor.insert_slice %s0 into %o[0, 0] [64, 512] [1, 1]
    %s = tensor.insert_slice %s1 into %o0[0, 512] [64, 512] [1, 1]
    ```
  }];
  let options = [
    Option<"maxMB", "max-mb", "double", /*default=*/"4.0",
           "Largest input of a collective, in MB, left whole">
  ];
  let statistics = [
    Statistic<"numChunked", "chunked", "Collectives split into chunks">,
    Statistic<"numChunks", "chunks", "Chunks made">
  ];
  let dependentDialects = ["::mlir::dist::DistDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DistHoistUpdates : Pass<"dist-hoist-updates", "::mlir::ModuleOp"> {
  let summary = "Moves each optimizer update up to where its gradient is "
                "ready, so that the gradient dies there";
  let description = [{
    A training step runs forward, backward, then the optimizer: every
    gradient lives from the op that makes it to the end of the step. This
    pass moves the optimizer's ops (`dist.role` optimizer and lr_sched, and
    unmarked ops free of memory effects such as the owners' rank tests; a
    collective among them moves too, alike on every rank) each to just after
    the last op it needs: the ops that define the values it uses (also inside
    its regions) and every earlier op that reads a function argument it
    reads, so that an update still follows the other reads of the parameter
    and state it updates and can be made in place. Forward and backward ops
    stay where they are. Each parameter's update then runs as soon as its
    gradient (reduced, reduce-scattered or reduced to its owner) and the
    other reads of the parameter are done, and its gradient is freed there:
    PyTorch's optimizer in backward (post-accumulate-grad hooks), as a
    reordering. What needs every gradient (global-norm clipping, fp16's
    found-inf check) still waits for all of them. Only the order of ops
    changes, so the step computes what it did.

    The cost: an update needs its reduced gradient, so with
    `dist-make-async` the wait of its collective comes right away instead of
    at the end of backward. Run it on the per-rank program, before
    `dist-make-async`.

    Before (w's update after an unrelated backward op):
    ```mlir
    %g = dist.all_reduce %gw on @mesh [dp] sum {dist.role = #dist.role<backward>} : tensor<8xf32>
    %dx = arith.mulf %y, %y {dist.role = #dist.role<backward>} : tensor<8xf32>
    %w2 = arith.subf %w, %g {dist.role = #dist.role<optimizer>} : tensor<8xf32>
    ```
    After: `%w2` right after `%g`, before `%dx`.
  }];
  let dependentDialects = ["::mlir::dist::DistDialect"];
}

def DistSchedule : Pass<"dist-schedule", "::mlir::ModuleOp"> {
  let summary = "Starts async collectives early and waits late, to overlap them with compute";
  let description = [{
    Schedules the async collectives of a per-rank program on tensors (made by
    `dist-make-async`), within each block:

    * every start moves up to just after the last op it needs: the ops that
      define its operands, the previous start (collectives start in their
      original order, so every rank issues them in the same order), and any
      op with side effects other than waits and async starts (a blocking
      collective, a call);
    * every wait moves down to just before the first op that uses one of its
      results (or the block's terminator);
    * bounds (0: none): with `max-in-flight=N` at most N collectives are
      outstanding when one starts, and with `max-mb-in-flight=M` the payloads
      (as dist-comm-report measures them) of the outstanding collectives
      and the starting one take at most M MB
      (unless it is the only one): before a start that would exceed a
      bound, the oldest outstanding collectives are waited for.

    * with `progress=true`, a `dist.progress` goes before each linalg op
      that runs while a collective of its block is in flight, so that
      backends that advance collectives only inside their calls (MPI) move
      them forward during compute.

    Gradient buckets then start while backward still runs, and under
    `dist-sharding{stage=3}` the gathers of parameters start at the top of
    the step (prefetch) instead of just before their use; the bounds keep
    their memory in check. Only the place of starts and waits changes, so a
    scheduled program computes exactly what the unscheduled one does.

    Before (after `dist-make-async`):
    ```mlir
    %a = arith.mulf %x, %x : tensor<64xf32>
    %g, %t = dist.all_gather async %w on @mesh_4 [dp] dim = 0 : tensor<16xf32> -> tensor<64xf32>
    %gw = dist.wait %t, %g : tensor<64xf32>
    %b = arith.addf %a, %gw : tensor<64xf32>
    ```
    After:
    ```mlir
    %g, %t = dist.all_gather async %w on @mesh_4 [dp] dim = 0 : tensor<16xf32> -> tensor<64xf32>
    %a = arith.mulf %x, %x : tensor<64xf32>
    %gw = dist.wait %t, %g : tensor<64xf32>
    %b = arith.addf %a, %gw : tensor<64xf32>
    ```

    Errors: a negative bound; a collective on buffers (the pass runs before
    bufferization).
  }];
  let options = [
    Option<"maxInFlight", "max-in-flight", "int64_t", /*default=*/"0",
           "At most this many collectives outstanding when one starts (0: no bound)">,
    Option<"maxMBInFlight", "max-mb-in-flight", "double", /*default=*/"0",
           "At most this many MB of payloads in flight (0: no bound)">,
    Option<"progress", "progress", "bool", /*default=*/"false",
           "Put a dist.progress before each linalg op that runs while "
           "collectives of its block are in flight">
  ];
  let statistics = [
    Statistic<"numStartsHoisted", "starts-hoisted", "Starts moved earlier">,
    Statistic<"numWaitsSunk", "waits-sunk", "Waits moved to their first use">,
    Statistic<"numProgressCalls", "progress-calls",
              "dist.progress ops put before linalg ops">,
    Statistic<"numWaitsForBound", "waits-for-bound",
              "Waits moved before a start to respect a bound">
  ];
  let dependentDialects = ["::mlir::dist::DistDialect"];
}

def DistFuseElementwise : Pass<"dist-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "Fuses chains of elementwise linalg.generic ops on tensors";
  let description = [{
    A training step from `dist-gen` computes its math as many small
    elementwise `linalg.generic` ops, each a pass over memory with a buffer
    of its own once bufferized. This pass (in `dist-lower-to-llvm`, before
    bufferization) fuses a producer into its consumer when both are
    elementwise (every loop parallel) and the consumer is the producer's only
    user, so a chain becomes one loop nest whose intermediate values stay in
    registers. Contractions and reductions take no producers (the BLAS
    patterns must still recognize them), and a producer with several users
    is not computed twice. Numbers do not change: the fused body performs the
    same scalar operations, roundings to narrow types included.

    ```mlir
    %s = linalg.generic {...} ins(%a, %b : ...) outs(%e : ...) { addf }
    %r = linalg.generic {...} ins(%s, %c : ...) outs(%e2 : ...) { mulf }
    ```
    becomes one `linalg.generic` on `%a, %b, %c` whose body is the `addf`
    then the `mulf`.

    With `multi-result` (what `dist-lower-to-nvvm` sets: each loop nest is a
    kernel launch there) a producer with other users fuses too, into an
    elementwise consumer that reads it element for element when its other
    users come after the consumer: the fused op also yields the producer's
    result for them (upstream's preserved producer results), so it is
    still computed once. Adam's two moment updates and the parameter
    update that reads them become one loop nest with three results.

    With `recompute` (also set by `dist-lower-to-nvvm`) a producer with
    several users is computed in each of them when that is cheaper than
    storing it: an elementwise generic with one result, at most 16 ops and
    a body that does not read its init,
    every user a linalg op that takes producers (not a contraction) and
    reads it element for element (no broadcast), and
    no more bytes an element read through its full-size inputs than it
    writes (broadcast inputs, a row's statistic, are not counted). Each
    user then reads the producer's inputs instead of its result, and the
    result is never stored: softmax's exp(x - max), which its row sum and
    its division both read, and a layernorm's centered input. The values
    are the same (the producer's body, roundings included, runs in each).
    A shared producer that `multi-result` can fuse keeps being computed
    once (that pattern goes first).
  }];
  let options = [
    Option<"multiResult", "multi-result", "bool", /*default=*/"false",
           "Also fuse a producer with other users into an elementwise "
           "consumer, the fused op yielding the producer's result for them">,
    Option<"recompute", "recompute", "bool", /*default=*/"false",
           "Compute a short elementwise producer with several users in each "
           "of them when it reads no more bytes an element than it writes">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def DistPrivatizeInits : Pass<"dist-privatize-inits", "::mlir::ModuleOp"> {
  let summary = "Gives each destination-passing op its own empty or "
                "zero-filled init tensor";
  let description = [{
    CSE leaves one `tensor.empty` (and one zero `linalg.fill` of it) as the
    init of many ops: every weight gradient starts from the same zeros, every
    optimizer update writes into the same empty tensor. One-shot
    bufferization then chains those unrelated results through one buffer: it
    copies the shared zeros into a fresh buffer for every user but one, and
    that one writes in place into memory that an unrelated result (a
    gradient) also lived in, which keeps the gradient out of its bucket's
    buffer (`dist-place-buckets`). This pass (in `dist-lower-to-llvm`, just
    before bufferization) clones the `tensor.empty`, or the `tensor.empty`
    and `linalg.fill`, for every destination (`outs`) use but one; uses as
    an input are left alone. Nothing is computed twice that was not copied
    before (a fill instead of a copy of zeros).

    ```mlir
    %e = tensor.empty() : tensor<16x16xf32>
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
    %g1 = linalg.matmul ins(%a, %b : ...) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
    %g2 = linalg.matmul ins(%c, %d : ...) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
    ```
    gets a second `tensor.empty` and `linalg.fill` right before `%g2`, which
    reads that one.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DistUpdateInPlace : Pass<"dist-update-in-place", "::mlir::ModuleOp"> {
  let summary = "Writes each result that is the next value of an argument "
                "into that argument's buffer";
  let description = [{
    A training step returns the next parameters and optimizer state beside
    the current ones (`dist.updates = I`, or a result and an argument with
    one `dist.name`). Bufferized as is, every next value gets a fresh buffer:
    the step holds two copies of its state at the end, and a driver copies
    the results back into the arguments' buffers. This pass (in
    `dist-lower-to-llvm{update-in-place=true}`, before bufferization) returns
    each such result through a `bufferization.materialize_in_destination`
    into its argument, when the two have one tensor type; empty-tensor
    elimination then lets the op that makes the value (an Adam update, say)
    write it straight into the argument's buffer, element by element, where
    one-shot bufferization finds no later reader of the old value (the op
    itself may read the old value only with its output's indexing map).
    `dist-update-in-place-buffers` then drops these results from the
    bufferized function (and lets a buffer that is only copied into its
    argument be the argument): the caller finds the next value in the
    argument's buffer (`docs/Passes.md`, "dist-update-in-place-buffers").

    ```mlir
    func.func @step(%w: tensor<8xf32>, %g: tensor<8xf32>)
        -> (tensor<8xf32> {dist.updates = 0 : i64}) {
      %next = arith.subf %w, %g : tensor<8xf32>
      return %next : tensor<8xf32>
    }
    ```
    becomes
    ```mlir
    func.func @step(%w: tensor<8xf32>, %g: tensor<8xf32>)
        -> (tensor<8xf32> {dist.updates = 0 : i64}) {
      %next = arith.subf %w, %g : tensor<8xf32>
      %0 = bufferization.materialize_in_destination %next in %w
          : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      return %0 : tensor<8xf32>
    }
    ```
    A scalar next value is left alone, and so is one that itself, or another
    result, may share the argument's buffer (the argument returned
    unchanged, a view of it, a loop that may yield it): the materialization
    must write the argument in place.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def DistUpdateInPlaceBuffers
    : Pass<"dist-update-in-place-buffers", "::mlir::ModuleOp"> {
  let summary = "Makes buffers copied into an argument the argument itself, "
                "and drops results that are the buffer of the argument they "
                "update";
  let description = [{
    The bufferized half of `dist-update-in-place` (in
    `dist-lower-to-llvm{update-in-place=true}`, between one-shot
    bufferization and deallocation), in each function with one return:

    * A fresh buffer (`memref.alloc` in the function's body) whose only
      remaining use is a `memref.copy` into an argument's buffer becomes the
      argument's buffer, when nothing reads or writes the argument (or a
      value that may share its buffer: a view, an scf.if yielding it)
      between the allocation and the copy: the op that fills
      the buffer (a collective gathering the next parameter, an update that
      one-shot bufferization kept out of place) then writes the argument,
      and the copy and the allocation go.
    * A result that is exactly (up to `memref.cast`) the buffer of the
      argument it updates (`dist.updates`, or the argument of its
      `dist.name`) is removed from the function and its return; every
      `func.call` of the function reads it from the call's operand instead.
      Returned, the deallocation pipeline would clone it (a public
      function's results belong to its caller).
    * Copies of a buffer onto itself (what materializing a value in place
      leaves) are erased.

    ```
    func.func @step(%w: memref<8xf32>, %g: memref<8xf32>)
        -> (memref<8xf32> {dist.updates = 0 : i64}) {
      %next = memref.alloc() : memref<8xf32>
      dist.buffer_all_gather ...  // fills %next
      memref.copy %next, %w : memref<8xf32> to memref<8xf32>
      return %w : memref<8xf32>
    }
    ```
    becomes
    ```mlir
    func.func @step(%w: memref<8xf32>, %g: memref<8xf32>) {
      dist.buffer_all_gather ...  // fills %w
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def DistDeallocAfterLastUse
    : Pass<"dist-dealloc-after-last-use", "::mlir::ModuleOp"> {
  let summary = "Frees each buffer right after its last use instead of at "
                "the end of its block";
  let description = [{
    MLIR's ownership-based deallocation frees a buffer at the end of the
    block that allocates it, so a training step holds every activation and
    every full gradient until it returns: its peak is the sum of all its
    buffers. This pass (in `dist-lower-to-llvm`, after the deallocation
    pipeline) moves each `memref.dealloc` of a `memref.alloc` of the same
    block to just after the last op of that block that uses the buffer or a
    view of it (an op whose region uses it counts as a use; a wait of an
    async collective names every buffer the collective touches, so it is
    the last use of those). A buffer that may escape through anything but a
    view (yielded from a region, returned, passed to an op that returns a
    buffer) keeps its dealloc where it is.

    ```mlir
    %a = memref.alloc() : memref<8xf32>
    linalg.fill ins(%c : f32) outs(%a : memref<8xf32>)
    linalg.add ins(%a, %a : memref<8xf32>, memref<8xf32>) outs(%out : memref<8xf32>)
    %b = memref.alloc() : memref<8xf32>
    ...
    memref.dealloc %a : memref<8xf32>
    ```
    frees `%a` right after the `linalg.add`, before `%b` is made (so a
    reallocation can reuse its memory).
  }];
}

def DistFoldTransposes : Pass<"dist-fold-transposes", "::mlir::ModuleOp"> {
  let summary = "Folds 2-D transposes on tensors into the matmuls that read "
                "them";
  let description = [{
    A backward pass multiplies by transposed activations and weights
    (`dW = X^T dY`, `dX = dY W^T`); `dist-gen` and most frontends write a
    `linalg.transpose` (a copy through memory) and then a `linalg.matmul`.
    A BLAS reads either operand transposed for free, so this pass (in
    `dist-lower-to-llvm` when BLAS is on, before bufferization) rewrites a
    `linalg.matmul` on tensors (one float element type, no indexing maps of
    its own) whose operand is a `[1, 0]` transpose into a `linalg.generic`
    contraction that reads the transpose's input through a swapped map;
    `dist-matmul-to-blas` makes it one gemm with a transpose flag. A
    transpose left without users disappears. Numbers do not change (the same
    products and sums). Other ops that read a transpose are left alone.

    ```mlir
    %t = linalg.transpose ins(%x : tensor<512x256xf32>)
        outs(%e : tensor<256x512xf32>) permutation = [1, 0]
    %dw = linalg.matmul ins(%t, %dy : tensor<256x512xf32>, tensor<512x64xf32>)
        outs(%zero : tensor<256x64xf32>) -> tensor<256x64xf32>
    ```
    becomes a `linalg.generic` on `%x, %dy` with maps `(m, n, k) -> (k, m)`,
    `(m, n, k) -> (k, n)`, `(m, n, k) -> (m, n)` whose body is
    `%out + %x * %dy`.

    With `mixed-precision` (what `dist-lower-to-nvvm` sets: cuBLAS takes
    bf16 and f16 products) a matmul of 16-bit float inputs into a wider
    float output folds too, its body extending both inputs
    (`arith.extf`, as the matmul's `cast_signed` does). Off, such a matmul
    stays for `dist-vectorize-matmul` (a CBLAS has no 16-bit products).
  }];
  let options = [
    Option<"mixedPrecision", "mixed-precision", "bool", /*default=*/"false",
           "Also fold matmuls of narrower float inputs into a wider float "
           "output (for cuBLAS)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def DistApproximateMath : Pass<"dist-approximate-math", "::mlir::ModuleOp"> {
  let summary = "Replaces exp, log, tanh and erf on scalars and vectors by "
                "polynomial approximations";
  let description = [{
    `math.exp`, `log`, `tanh` and `erf` lower to one libm call per element,
    and a loop with a call in it stays scalar: softmax, cross-entropy and
    GELU spend their time there. This pass (in `dist-lower-to-llvm`, on the
    bodies of linalg ops just before they become loops) rewrites `exp`,
    `expm1`, `log`, `log1p`, `log2`, `tanh` and `erf` on f32 scalars and
    vectors into upstream MLIR's polynomial approximations (plain `arith`
    that LLVM vectorizes; errors of a few ulp, well inside the tolerances a
    training step is judged by); on bf16 and f16 they are computed in f32 and
    rounded back. f64 keeps libm. Ops on tensors are left to
    `convert-elementwise-to-linalg`.

    ```mlir
    %e = math.exp %x : f32
    ```
    becomes a range reduction by `ln 2`, a polynomial and an exponent
    insertion (`arith.mulf`, `math.fma`, `arith.fptosi`, `arith.bitcast`, ...).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def DistVectorizableReductions
    : Pass<"dist-vectorizable-reductions", "::mlir::ModuleOp"> {
  let summary = "Reorders and flags linalg reductions so that LLVM vectorizes "
                "them";
  let description = [{
    `convert-linalg-to-loops` keeps a `linalg.generic`'s loop order and
    LLVM's loop vectorizer works on the innermost loop only. A reduction whose
    innermost loop strides through memory (a bias gradient, summing the rows
    of an activation: `out[j] += in[i][j]` with `j` outer) stays scalar and
    misses the cache, and a floating-point sum along a contiguous row
    vectorizes only when its adds may be reassociated. For every
    `linalg.generic` with a reduction loop (on tensors or buffers), this pass
    (in `dist-lower-to-llvm`, just before the loops are made)
    - moves the loop that walks the largest input's innermost dim innermost
      (the other loops keep their order; every indexing map must be a
      projected permutation), and
    - marks the op that combines each reduced output with its running value
      (`arith.addf`, `mulf`, `maximumf`, `minimumf`, `maxnumf`, `minnumf`)
      `fastmath<reassoc>`.
    The sums are then formed in another order (partial sums per vector lane),
    a difference of rounding only, as in any vectorized BLAS or PyTorch
    reduction. Elementwise ops, named ops and contractions that went to BLAS
    are left alone.

    ```mlir
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                     affine_map<(d0, d1) -> (d0)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : tensor<512x1024xf32>) outs(%zero : tensor<1024xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
    ```
    becomes the same sum with `iterator_types = ["reduction", "parallel"]`,
    maps `(d0, d1) -> (d0, d1)` and `(d0, d1) -> (d1)`, and
    `arith.addf %x, %acc fastmath<reassoc>`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def DistPlaceBuckets : Pass<"dist-place-buckets", "::mlir::ModuleOp"> {
  let summary = "Makes gradients in the memory of the bucket that reduces them";
  let description = [{
    Runs on buffers, after bufferization and buffer deallocation (in
    `dist-lower-to-llvm`, before `dist-lower-to-runtime`). The runtime
    reduces a bucket (an in-place collective of several buffers, from
    `dist-fuse-gradients`) as one contiguous buffer. For each bucket this
    pass allocates that buffer (bytes, 64-byte aligned, marked
    `dist.bucket_buffer`) where the first placeable member was allocated and
    turns every placeable member into a `memref.view` of its slot, so the op
    that computes a gradient writes it straight into the bucket and the
    lowering copies nothing for it (the seeds' `coalesce_tensor`). A member
    is placeable when its buffer is a static, identity-layout `memref.alloc`
    in the collective's block that is freed there by one `memref.dealloc`
    after the collective (after its `dist.wait` when async) and that no op
    aliases, returns, yields or passes to a call. The others (a gradient
    buffer that bufferization reuses for an updated parameter that the step
    returns, say) keep their memory and are copied into their slots and back;
    `dist-comm-report` on the buffers counts only those copies. The bucket
    buffer is freed where the last placed member was. With `summary` (or
    `dist-lower-to-llvm{report-buckets}`), each bucket is reported as a remark.

    ```mlir
    %g0 = memref.alloc() : memref<64x64xf32>
    linalg.matmul ins(...) outs(%g0 : memref<64x64xf32>)
    %g1 = memref.alloc() : memref<64xf32>
    ...
    dist.buffer.all_reduce %g0, %g1 on @mesh [dp] sum : memref<64x64xf32>, memref<64xf32>
    ...
    memref.dealloc %g0 : memref<64x64xf32>
    memref.dealloc %g1 : memref<64xf32>
    ```
    becomes
    ```mlir
    %bucket = memref.alloc() {alignment = 64 : i64, dist.bucket_buffer} : memref<16640xi8>
    %g0 = memref.view %bucket[%c0][] : memref<16640xi8> to memref<64x64xf32>
    linalg.matmul ins(...) outs(%g0 : memref<64x64xf32>)
    %g1 = memref.view %bucket[%c16384][] : memref<16640xi8> to memref<64xf32>
    ...
    dist.buffer.all_reduce %g0, %g1 on @mesh [dp] sum : memref<64x64xf32>, memref<64xf32>
    ...
    memref.dealloc %bucket : memref<16640xi8>
    ```

    Errors: a bucket still on tensors; a bucket buffer of dynamic shape.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
  let options = [
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Report each bucket (members placed, bytes still copied) as a "
           "remark">
  ];
}

def DistFuseGradients : Pass<"dist-fuse-gradients", "::mlir::ModuleOp"> {
  let summary = "Packs gradient reductions into buckets capped in size";
  let description = [{
    In a per-rank program, packs the `dist.all_reduce` ops of gradients (of
    the results of ops marked `dist.grad_of`) into buckets: one collective
    per bucket, with the bucket's tensors as its operands (the seeds' fused
    allreduce over coalesced gradient buffers). Only reductions of one
    group, communicator, kind and element type share a bucket. Buckets are
    filled in the order backward makes the gradients and hold at most
    `bucket-mb` megabytes (2^20 bytes); a gradient larger than that gets a
    bucket of its own. Each bucket's collective goes where its last
    gradient's reduction was, so the first bucket can start while backward
    still computes the others (with `dist-make-async`). A gradient joins a
    bucket only if every user of the bucket's earlier gradients comes after
    it, so nothing waits longer than its data needs.

    ```mlir
    %g1 = linalg.matmul {dist.grad_of = 1 : i64} ...
    %r1 = dist.all_reduce %g1 on @mesh [dp] sum : tensor<64x64xf32>
    %g0 = linalg.matmul {dist.grad_of = 0 : i64} ...
    %r0 = dist.all_reduce %g0 on @mesh [dp] sum : tensor<64xf32>
    ```
    becomes
    ```mlir
    %g1 = linalg.matmul {dist.grad_of = 1 : i64} ...
    %g0 = linalg.matmul {dist.grad_of = 0 : i64} ...
    %r1, %r0 = dist.all_reduce %g1, %g0 on @mesh [dp] sum
        : tensor<64x64xf32>, tensor<64xf32>
    ```

    The runtime reduces a bucket as one contiguous buffer: after
    bufferization, `dist-place-buckets` makes the gradients in that buffer's
    memory where it can; the lowering copies the others into it and back,
    and `dist-comm-report` counts those bytes.
    With `summary`, the buckets (their tensors and bytes) are reported as
    remarks. Errors: `bucket-mb` <= 0, a module without gradients.
  }];
  let options = [
    Option<"bucketMB", "bucket-mb", "double", /*default=*/"32",
           "Largest bucket in megabytes (2^20 bytes)">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Report each bucket as a remark">
  ];
}

def DistGpuReductionsInside : Pass<"dist-gpu-reductions-inside"> {
  let summary = "Puts each linalg op's reduction loops inside its parallel "
                "loops, so that the loop nest is one kernel";
  let description = [{
    Runs in `dist-lower-to-nvvm` on buffers, before
    `convert-linalg-to-parallel-loops`. That lowering makes loops in the
    order of an op's iteration dimensions, a parallel loop for each run of
    parallel dimensions and a sequential one for each reduction: a bias
    gradient (a column sum, `["reduction", "parallel"]`) became a host loop
    over the rows around a kernel over the columns, one launch per row (in
    a GPT block, 29 host loops and 656 launches a step beyond its 203
    kernels). Each `linalg.generic` (a named op is generalized first) with
    a reduction dimension before a parallel one has its dimensions
    interchanged, parallel ones first, each group in its order (upstream's
    `interchangeGenericOp`, which also renumbers `linalg.index`): one
    parallel loop nest, one kernel, each thread reducing its outputs in the
    same order as before. Ops with only parallel dimensions or with their
    reductions innermost already are left. It takes no options and refuses
    nothing.

    ```mlir
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                    iterator_types = ["reduction", "parallel"]} ...
    // becomes
    linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j)>],
                    iterator_types = ["parallel", "reduction"]} ...
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def DistGpuBlockReductions : Pass<"dist-gpu-block-reductions"> {
  let summary = "Gives each output of a long row reduction a thread block "
                "that combines its partial results with warp shuffles, with "
                "the ops on the same rows in its kernel";
  let description = [{
    Runs in `dist-lower-to-nvvm` on buffers, after
    `dist-gpu-reductions-inside` and before
    `convert-linalg-to-parallel-loops`. Lowered as loops, a row reduction
    (softmax's and layernorm's row sums and maxima, a loss over the
    vocabulary) gives each thread a row: consecutive threads read elements a
    row apart, and splitting rows into partial sums
    (`dist-split-reductions`) takes a second kernel and a buffer of partial
    results. Here a `linalg` op on buffers with one output, one reduction
    loop (the last) of static extent R >= `min-extent` that every input it
    indexes reads along its last (contiguous) dimension, at least
    `min-outputs` outputs (static shapes, plain dimensions in every map), a
    32-bit result and a combiner with a neutral element and no
    `overflow`/`nnan`/`ninf` promise (`arith.addf`, `arith.maxnumf`, ...)
    becomes a `gpu.launch` of a block per output of B threads (a power of
    two near R over the elements 16 bytes of the widest row operand hold,
    from 32 to `max-threads`): each thread combines its elements of the
    row (L consecutive ones with one vector load of each input when the
    block's loads tile the row and the inputs are aligned: 16 bytes of the
    widest; up to 4 such steps without a loop, sharing each load with the
    group's later members; else elements t, t + B, ...), a
    `gpu.all_reduce uniform` with the op's combiner combines the block's
    partial results (warp shuffles and shared memory after
    `convert-gpu-to-nvvm`), and every thread combines that with the
    output's initial value. The body is computed as it is in each thread,
    `linalg.index` included. The order of the sum changes, as every
    parallel reduction's does.

    The ops on the same rows around it join its kernel (a row group), in
    program order: per-row ops (loops over the rows only: the fill of its
    initial value, arithmetic on its result), further reductions of the
    same rows the pass takes, and, last, one elementwise op over the rows
    (with one output or several, each row-major).
    Row values stay in registers; a member joins only when it reads them
    with the indices they were written with and writes nothing an earlier
    member read from memory; only allocations, pure ops (moved before the
    kernel) and deallocations may stand between members. The first thread
    stores the row values read after the kernel, after a `gpu.barrier`
    when every thread read one of those buffers from memory. A softmax is
    one launch. Products `dist-matmul-to-blas` makes BLAS calls of, column
    reductions, several outputs or reduction loops, 16-bit or 64-bit
    results and ops in device code are left as they are. Refused with an
    error: options out of range.

    ```mlir
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<8192x1024xf32>) outs(%sum : memref<8192xf32>) { addf }
    // becomes
    gpu.launch blocks(%b, %by, %bz) in (%nb = %c8192, ...) threads(%t, %ty, %tz) in (%nt = %c256, ...) {
      %p = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %zero) -> (f32) {
        %v = vector.load %x[%b, (i * 256 + t) * 4] : memref<8192x1024xf32>, vector<4xf32>
        ... four addf
      }
      %all = gpu.all_reduce %p uniform { ^bb0(%l: f32, %r: f32): addf, gpu.yield } : (f32) -> f32
      %out = addf (load %sum[%b]), %all
      gpu.barrier
      scf.if %t == 0 { store %out, %sum[%b] }
      gpu.terminator
    }
    ```
  }];
  let options = [
    Option<"minExtent", "min-extent", "int64_t", /*default=*/"256",
           "Reductions over fewer elements a row are left to loops">,
    Option<"minOutputs", "min-outputs", "int64_t", /*default=*/"1024",
           "Reductions with fewer outputs (blocks) are left to "
           "dist-split-reductions' partial results">,
    Option<"maxThreads", "max-threads", "int64_t", /*default=*/"256",
           "Threads a block at most (a power of two from 32 to 1024)">
  ];
  let statistics = [
    Statistic<"numBlockReductions", "block-reductions",
              "Reductions made a block per output">,
    Statistic<"numFusedOps", "fused-ops",
              "Per-row and elementwise ops run in a reduction's kernel">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def DistGpuLinearizeLoops : Pass<"dist-gpu-linearize-loops"> {
  let summary = "Collapses each parallel loop nest bound for the GPU into one "
                "dimension, so that consecutive threads touch consecutive "
                "elements";
  let description = [{
    Runs in `dist-lower-to-nvvm` after `dist-gpu-serial-kernels`, before
    the parallel loops are tiled by the block size and mapped to the GPU.
    Tiling tiles the first dimension of a loop nest and the mapping gives
    the first dimension thread x, so a row-major 8192x1024 elementwise op
    would give each warp's 32 threads 32 different rows (32 memory
    transactions per load where one would do), a 16x64 one blocks of 256
    threads of which 16 work, and a second dimension beyond 65535 a grid
    the GPU refuses. Each outermost `scf.parallel` of host code with
    several dimensions and no reductions becomes one dimension over their
    product, in row-major order (upstream's `collapseParallelLoops`: the
    body recovers each index by division and remainder) with the dimension
    most accesses index last (weighted by the trip counts of the loops
    around them; ties keep the inner one) running fastest, so consecutive
    threads touch consecutive elements and the grid is one-dimensional.
    That dimension is usually the last; a column sum's partial sums over
    (column, chunk) run the column fastest. Loops nested in another parallel loop and loops with
    reductions are left. It takes no options. Refused with an error: a
    loop already mapped to the GPU (`gpu-map-parallel-loops` ran first).

    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
      %x = memref.load %in[%i, %j] : memref<16x64xf32>
      memref.store %x, %out[%i, %j] : memref<16x64xf32>
    }
    // becomes
    scf.parallel (%k) = (%c0) to (%c1024) step (%c1) {
      %i = arith.divsi %k, %c64 : index
      %j = arith.remsi %k, %c64 : index
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def DistGpuVectorizeLoops : Pass<"dist-gpu-vectorize-loops"> {
  let summary = "Gives each GPU thread of a loop nest several consecutive "
                "elements, with vector loads and stores";
  let description = [{
    Runs in `dist-lower-to-nvvm` after `dist-promote-accumulators`, before
    `dist-gpu-linearize-loops`. A kernel made from a loop nest gives each
    thread one element: a bf16 op loads 2 bytes a thread (too few bytes in
    flight to keep an H200's memory busy) and computes the thread's indices
    for each element. Each outermost `scf.parallel` of host code whose body
    is loads, stores, constants, pure elementwise-mappable ops (arith,
    math) and sequential `scf.for` loops of the same (a reduction's, its
    accumulator carried after `dist-promote-accumulators`) counts one
    dimension in vectors of V elements: the dimension most accesses index
    last (weighted by the trip counts of the loops around them), the one
    `dist-gpu-linearize-loops` then gives consecutive threads. The loop
    counts vectors with unit steps (which the tiling and the mapping
    expect; the body's first element is the counter times V) and the
    varying part of its body becomes V wide: loads and stores whose last
    index is that dimension's variable become `vector.load`/`vector.store`
    aligned to their bytes (at most 16: one `ld.global.v4` a thread),
    elementwise ops take vectors (uniform operands broadcast, such as a
    row's statistic or a bias read along another dimension), a sequential
    loop carries vectors where its iteration arguments vary (V partial sums
    at once: each lane's additions are the ones it made before, in the same
    order), and arithmetic on the variable (a causal mask) reads its V
    consecutive values. V fills 16 bytes with the widest varying access (4
    f32, 8 bf16), halved until it divides the extent and the last extent of
    every buffer accessed contiguously; the alignment claimed is what the
    buffer's start is known to keep (arguments and allocations 16, a view
    what its constant shift keeps, anything else its element's). Left as
    they are: nests with other regions (`scf.if`), sequential loops with
    varying bounds, accesses that vary in an index other than the last,
    buffers without an identity layout and static shape (a view's start may
    be unaligned), stores that do not vary (they would race), extents no
    V >= 2 divides, and nests with a sequential loop that would keep fewer
    than `min-threads` threads (a reduction's few long-running threads are
    spread over the GPU's multiprocessors; fewer threads would idle some of
    them). Refused with an error: a loop already mapped to the GPU
    (`gpu-map-parallel-loops` ran first), a `min-threads` below 1.

    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
      %x = memref.load %in[%i, %j] : memref<16x64xbf16>
      %y = arith.extf %x : bf16 to f32
      memref.store %y, %out[%i, %j] : memref<16x64xf32>
    }
    // becomes (V = 4: the f32 store's 16 bytes)
    scf.parallel (%i, %k) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      %j = arith.muli %k, %c4 : index
      %x = vector.load %in[%i, %j] {alignment = 8 : i64} : memref<16x64xbf16>, vector<4xbf16>
      %y = arith.extf %x : vector<4xbf16> to vector<4xf32>
      vector.store %y, %out[%i, %j] {alignment = 16 : i64} : memref<16x64xf32>, vector<4xf32>
    }
    ```
  }];
  let options = [
    Option<"minThreads", "min-threads", "int64_t", /*default=*/"65536",
           "A nest with a sequential loop inside is vectorized only when it "
           "keeps at least this many threads (iterations of the parallel "
           "dimensions)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def DistGpuSerialKernels : Pass<"dist-gpu-serial-kernels", "::mlir::ModuleOp"> {
  let summary = "Wraps host code that touches buffers in one-iteration parallel loops";
  let description = [{
    Runs in `dist-lower-to-nvvm` after `convert-linalg-to-parallel-loops`
    and before the parallel loops are mapped to the GPU. A linalg op with no
    parallel loop (a full reduction to a scalar, a fill of a rank-0 buffer)
    becomes plain host code (`scf.for` nests, `memref.store`), which on the
    GPU would read device memory from the host. Each such op of host code
    that returns nothing, touches buffers (a load or store inside) and
    contains no parallel loop, call or GPU op is wrapped in
    `scf.parallel (%i) = (0) to (1)`, so that it becomes a kernel of one
    thread, with the host code before it that only feeds it (pure ops, and
    loads that no write separates from it): a rank-0 linalg op's loads,
    arithmetic and store run in one kernel. A load whose value the host
    uses (a branch condition, a loop bound) goes through a one-element
    staging buffer to host memory.

    ```mlir
    memref.store %cst, %acc[] : memref<f32>
    // becomes
    scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
      memref.store %cst, %acc[] : memref<f32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def DistPromoteAccumulators : Pass<"dist-promote-accumulators"> {
  let summary = "Keeps a reduction loop's output element in a register";
  let description = [{
    In `dist-lower-to-nvvm` after `dist-gpu-serial-kernels`. A linalg
    reduction lowered to loops loads and stores its output element in every
    iteration of the reduction loop; in a GPU kernel each store
    goes to memory (L2), as often as the inputs are read, and LLVM cannot
    keep the value in a register because a kernel's buffers might alias.
    An `scf.for` whose body loads and then stores one element at
    loop-invariant indices, with no other write inside and every other
    read from a buffer that is provably another (different root buffers,
    one of them allocated in the function: two arguments might be one
    buffer), carries the element instead: loaded before the loop, stored
    after it. Inner loops first, so a nest of reduction loops carries it
    through every level. Only loops inside an `scf.parallel` (kernels to
    be; a host loop that carried a value would no longer be one op that
    `dist-gpu-serial-kernels` moves into a kernel). Anything else is left
    as it is; it takes no options and refuses nothing.

    ```mlir
    scf.for %k = %c0 to %c128 step %c1 {
      %a = memref.load %x[%i, %k] : memref<64x128xf32>
      %acc = memref.load %sum[%i] : memref<64xf32>
      %s = arith.addf %acc, %a : f32
      memref.store %s, %sum[%i] : memref<64xf32>
    }
    // becomes (%sum = memref.alloc)
    %init = memref.load %sum[%i] : memref<64xf32>
    %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %init) -> (f32) {
      %a = memref.load %x[%i, %k] : memref<64x128xf32>
      %s = arith.addf %acc, %a : f32
      scf.yield %s : f32
    }
    memref.store %r, %sum[%i] : memref<64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect"];
}

def DistGpuMergeKernels : Pass<"dist-gpu-merge-kernels", "::mlir::ModuleOp"> {
  let summary = "Gathers the outlined kernels into one gpu.module";
  let description = [{
    Runs in `dist-lower-to-nvvm` after `gpu-kernel-outlining`, which makes
    one `gpu.module` per kernel: each becomes its own binary, compiled by
    its own ptxas run and loaded by its own module load (a GPT step has
    hundreds). Every outlined module that holds only its kernel moves the
    kernel, renamed after the module, into one `gpu.module @dist_kernels`,
    and the launches follow. Modules holding anything else (a symbol two
    modules could both define) stay as they are. It takes no options and
    refuses nothing.

    ```mlir
    gpu.launch_func @f_kernel::@f_kernel ...
    gpu.launch_func @f_kernel_0::@f_kernel ...
    // becomes
    gpu.launch_func @dist_kernels::@f_kernel ...
    gpu.launch_func @dist_kernels::@f_kernel_0 ...
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def DistGpuAllocs : Pass<"dist-gpu-allocs", "::mlir::ModuleOp"> {
  let summary = "Puts a lowered program's buffers in GPU memory";
  let description = [{
    Runs on buffers, once the compute has become GPU kernels (in
    `dist-lower-to-nvvm`, after `gpu-kernel-outlining` and before
    `dist-gpu-streams`, which then orders everything on a stream). The step
    keeps its memory on the device: in host code every `memref.alloc`
    becomes `gpu.alloc`, every `memref.dealloc` `gpu.dealloc`, every
    `memref.copy` `gpu.memcpy`, and a constant (`memref.get_global`) that a
    kernel reads, itself or through views (a partitioned constant is a
    slice), is copied to a device buffer at the function's entry, the views
    made again of it, freed when the function returns; host code keeps
    reading the host copy. Function arguments and results are device buffers (the caller's
    side of the GPU ABI); the runtime's collectives take device pointers.

    Refused with an error: host code that loads or stores one element of a
    buffer (moving scalars to the host is not done yet), and buffers in a
    memory space other than the default.

    ```mlir
    %buf = memref.alloc() {alignment = 64 : i64} : memref<16x64xf32>
    memref.copy %arg0, %buf : memref<16x64xf32> to memref<16x64xf32>
    memref.dealloc %buf : memref<16x64xf32>
    // becomes
    %buf = gpu.alloc  () : memref<16x64xf32>
    gpu.memcpy  %buf, %arg0 : memref<16x64xf32>, memref<16x64xf32>
    gpu.dealloc  %buf : memref<16x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def DistGpuStreams : Pass<"dist-gpu-streams", "::mlir::ModuleOp"> {
  let summary = "Orders a GPU step's device work on one stream; the host "
                "waits only where it reads device results and at the return";
  let description = [{
    Runs on host code whose kernels are outlined (in `dist-lower-to-nvvm`,
    after `dist-gpu-allocs`, where upstream's `gpu-async-region` would run).
    Each host function with GPU work makes one stream when it starts: every
    kernel launch, allocation, free, copy and fill becomes its asynchronous
    form on that stream, and every runtime call whose declaration marks a
    stream argument (`dist.stream_argument`: collectives, `dist_cublas_*`) gets the
    stream there instead of null, so kernels, cuBLAS products and NCCL
    collectives are queued in program order without the host waiting; a
    collective's result is waited for on the device, by an event, where the
    stream next runs. The host synchronizes with the stream only before host
    code that may read or write memory the device work touches (a scalar
    copied back to the host, a call into code that is not marked
    `dist.no_stream_sync`) when device work is pending, and before each
    `return`, which also destroys the stream (the caller reads the results).

    Refused with an error: GPU ops that are already asynchronous or
    `gpu.wait` (run this pass instead of `gpu-async-region`, not after it),
    and kernels not yet outlined (`gpu.launch`).

    ```mlir
    %buf = gpu.alloc () : memref<16x32xf32>
    gpu.launch_func @dist_kernels::@k blocks in (%c1, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%buf : memref<16x32xf32>)
    %null = llvm.mlir.zero : !llvm.ptr
    call @dist_all_reduce(%group, %p, %n, %dtype, %sum, %null)
        : (!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr) -> ()
    return %buf : memref<16x32xf32>
    // becomes
    %t0 = gpu.wait async
    %buf, %t1 = gpu.alloc async [%t0] () : memref<16x32xf32>
    %t2 = gpu.launch_func async [%t1] @dist_kernels::@k ...
    %s2 = builtin.unrealized_conversion_cast %t2
        : !gpu.async.token to !llvm.ptr
    call @dist_all_reduce(%group, %p, %n, %dtype, %sum, %s2) : ...
    call @mgpuStreamSynchronize(%s2) : (!llvm.ptr) -> ()
    call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> ()
    return %buf : memref<16x32xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
}

def DistSplitReductions : Pass<"dist-split-reductions"> {
  let summary = "Splits reductions with few outputs into partial reductions "
                "over chunks (parallelism for GPU kernels)";
  let description = [{
    On tensors, in `dist-lower-to-nvvm` after the tensor front. A GPU kernel
    runs one thread per parallel iteration and each thread reduces
    sequentially: a gradient's bias (a column sum over batch x sequence
    rows) or a loss (a sum to a scalar) gets a few thousand threads, or one,
    each summing thousands of elements in a chain of dependent loads. A
    linalg op with one reduction loop of static extent R whose parallel
    iterations P are fewer than `min-threads` is split with upstream's
    `linalg::splitReduction`: R = k x (R / k), where k is the largest
    divisor of R with P x k <= `min-threads` and R / k >= `min-chunk`; the
    first op computes k partial results per output in parallel (partial p
    over elements p, p + k, p + 2k, ...: consecutive threads read
    consecutive elements), a second combines them into the
    original output; it takes the op's `dist.grad_of` (both take its
    role), and is split again when k >= `min-chunk`^2 (a tree). The sum's
    order changes (chunks, then their sum), as every parallel reduction's
    does. Several reduction loops that are adjacent (in the iteration
    space and in every operand: a loss over a matrix, a bias gradient over
    batch and sequence) first become one over their product (upstream's
    `linalg::collapseOpIterationDims`). A reduction with enough outputs
    along its inputs' contiguous (last) dimension, as softmax's and
    layernorm's row sums, is split too, into k partial results per output
    where k elements make a 32-byte sector (8 f32, 16 bf16), placed last:
    each thread would otherwise read its own row, consecutive threads a row
    apart; split, consecutive threads read consecutive elements. A body
    reading `linalg.index` (a causal mask, a one-hot pick) is split with
    its indices renumbered for the split loops. A sum of
    products is split too when
    it is no GEMM (a layernorm gain's gradient: a column sum of products,
    no m or n loop). Left whole: products `dist-matmul-to-blas` makes BLAS
    calls of (one m, n and k loop each), reductions that are not adjacent, several outputs, dynamic
    shapes, maps that are not plain dimensions, results that are neither
    integers nor floats, combiners upstream cannot split or whose
    `overflow`/`nnan`/`ninf` promises a chunk could break, and, when
    `block-min-extent` is set (`dist-lower-to-nvvm` sets it), the row
    reductions `dist-gpu-block-reductions` takes with that `min-extent` and
    `block-min-outputs` as its `min-outputs` (a block of threads per row
    beats partial sums and a second kernel).

    ```mlir
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                          affine_map<(i, j) -> (j)>],
                         iterator_types = ["reduction", "parallel"]}
        ins(%x : tensor<8192x64xf32>) outs(%init : tensor<64xf32>) { addf }
    // becomes (min-threads = 65536, min-chunk = 32: k = 256)
    %x2 = tensor.expand_shape %x [[0, 1], [2]] : ... into tensor<32x256x64xf32>
    %partial = linalg.generic {... iterator_types = ["reduction", "parallel",
        "parallel"]} ins(%x2) outs(%zeros : tensor<256x64xf32>)
    %r = linalg.generic {... iterator_types = ["reduction", "parallel"]}
        ins(%partial) outs(%init : tensor<64xf32>)
    ```
  }];
  let options = [
    Option<"minThreads", "min-threads", "int64_t", /*default=*/"65536",
           "Reductions with fewer parallel iterations than this are split "
           "(and split into at most this many partial results)">,
    Option<"minChunk", "min-chunk", "int64_t", /*default=*/"32",
           "Elements each partial result reduces at least">,
    Option<"blockMinExtent", "block-min-extent", "int64_t", /*default=*/"0",
           "With block-min-outputs, leaves whole the row reductions that "
           "dist-gpu-block-reductions with these options takes (0: none)">,
    Option<"blockMinOutputs", "block-min-outputs", "int64_t",
           /*default=*/"0",
           "dist-gpu-block-reductions' min-outputs for block-min-extent">
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect"
  ];
}

def DistGpuEmulateKernels : Pass<"dist-gpu-emulate-kernels",
                                  "::mlir::ModuleOp"> {
  let summary = "Runs a GPU program's kernels on the host, thread by thread "
                "(the GPU lowering checked without a GPU)";
  let description = [{
    A testing aid for machines without a GPU, in `dist-lower-to-nvvm` with
    `emulate-kernels=true` after `dist-gpu-streams`. Each kernel of a
    `gpu.module` becomes a host function that takes the kernel's operands
    and then its block id, thread id, block size and grid size (x, y, z
    each); each `gpu.launch_func` becomes a loop nest over the grid's blocks
    and each block's threads that calls it, after the host waits for the
    launch's stream (the kernel's operands may be written by work queued
    before it), and its token is the launch's dependency. Before the loops
    the launch is counted (`dist_cuda_emulated_launch`, for
    `DIST_CUDA_PROFILE=1`) and each buffer operand is checked to lie in device memory
    (`dist_cuda_check_kernel_operand` of the CUDA runtime library: on a GPU
    a kernel faults on host memory). The `gpu.module`s
    are erased, so no GPU code is compiled. Everything else stays as on a
    GPU: device allocations, copies, fills and the stream through the CUDA
    runtime library, cuBLAS products and collectives on the stream. With a
    driver whose device memory the host can address (the fake driver of
    `test/Runtime` with its fake cuBLAS), the program computes what the GPU
    would, which is how `dist-run --device=gpu --emulate-gpu-kernels`
    checks the GPU lowering of every example on the CPU.

    A kernel whose threads meet at its top level (`gpu.barrier`,
    `gpu.all_reduce`, as `dist-gpu-block-reductions` makes) becomes a host
    function per block instead, and its launch a loop nest over the grid:
    the function runs each stretch between two meetings in a loop over the
    block's threads, so that all have arrived when the next starts; what a
    later stretch reads is kept a thread in a buffer (scalars and vectors)
    or made again there (constants, views), and a block-wide reduction
    combines its operand over the threads in the order of their linear ids.
    Anything else that needs threads together cannot be emulated; refused
    with an error: a meeting inside a loop or a branch, any other GPU op in
    a kernel besides the ids and sizes (shuffles, subgroup ops), a value
    that is neither kept nor made again crossing a meeting, workgroup or
    private memory, functions of a `gpu.module` that are not kernels,
    launches with cluster sizes or dynamic shared memory, and launches of
    kernels that do not exist.

    ```mlir
    gpu.launch_func @kernels::@scale blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(%buffer : memref<1024xf32>)
    // becomes (the host function takes the ids and sizes after the operands)
    scf.for %bx = %c0 to %c4 step %c1 {
      scf.for %tx = %c0 to %c256 step %c1 {
        func.call @__dist_emulated_kernels_scale(%buffer, %bx, %c0, %c0, %tx, %c0, %c0, %c256, %c1, %c1, %c4, %c1, %c1) : (memref<1024xf32>, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
      }
    }
    ```
    (the loops over the y and z extents of 1 are left out above.)
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def DistGpuStridedCopies : Pass<"dist-gpu-strided-copies"> {
  let summary = "Turns buffer copies the GPU runtime cannot do in one "
                "transfer into linalg.copy (a kernel)";
  let description = [{
    On buffers, in `dist-lower-to-nvvm` before linalg becomes parallel
    loops. `dist-gpu-allocs` makes each `memref.copy` of host code a
    `gpu.memcpy`, which the GPU lowering turns into one transfer of bytes
    sized by the source; it accepts only sources with the identity layout
    and leaves any view unconverted (a slice, even a contiguous one at a
    dynamic offset), and a strided target would be overwritten past its
    elements. Every `memref.copy` whose source or target is a view (a
    layout other than the identity) becomes `linalg.copy`: a kernel with a
    thread per element. Copies between whole buffers stay (one transfer).
    It takes no options and refuses nothing.

    ```mlir
    memref.copy %tile, %column : memref<8x1xf32> to memref<8x1xf32, strided<[4, 1], offset: 2>>
    // becomes
    linalg.copy ins(%tile : memref<8x1xf32>) outs(%column : memref<8x1xf32, strided<[4, 1], offset: 2>>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // DIST_TRANSFORMS_PASSES_TD
