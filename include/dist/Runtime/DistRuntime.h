/*===- DistRuntime.h - The C ABI that lowered dist programs call -*- C -*-===*\
 *
 * ABI version 2. Lowered per-rank programs call these functions for their
 * collectives. The library has no MLIR dependency; a backend (registered by
 * name, chosen at dist_init by the environment variable DIST_BACKEND, or the
 * best one built) does the communication. Every function reports a failure
 * (the call, the rank, the group and the backend's message) on stderr and
 * ends the job with a non-zero exit code, so generated code needs no error
 * handling. A collective that cannot complete (a peer died, ranks issued
 * different collectives) fails after a timeout: the environment variable
 * DIST_TIMEOUT_SECONDS (default 300).
 *
 * Groups: a collective acts on the ranks that differ only in some axes of a
 * row-major device mesh, exactly as the dist dialect numbers them (see
 * dist/Support/MeshMath.h). A group's communicator is created on first use
 * and cached: generated code may ask for it on every call.
 *
 * Buffers are contiguous. The collectives that gather, scatter or exchange
 * blocks take the element count of one block; the compiler emits the copies
 * and transposes that gathering along an inner dim needs.
 *
 * Streams: every collective takes a `dist_stream_t`. CPU backends (mpi,
 * self) take only null; a GPU backend (nccl) takes a cudaStream_t and orders
 * the collective on it.
 *
 * With DIST_TRACE=<dir> set, every rank writes <dir>/rank-<N>.json (Chrome
 * trace event format) at dist_finalize; scripts/merge_traces.py joins them.
\*===----------------------------------------------------------------------===*/

#ifndef DIST_RUNTIME_DISTRUNTIME_H
#define DIST_RUNTIME_DISTRUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types (values fixed: generated code passes them as integers).
 * Integers reduce as signed values; sums and products wrap. DIST_I1 is one
 * byte per element holding 0 or 1 (LLVM's memory form of i1); it reduces as
 * arith does on i1: sum = xor, prod = and, max = or, min = and, and it has no
 * average. Averages of i8, i16 and i32 are computed on an i64 copy; sums,
 * products and averages of 16-bit floats on an f32 copy, rounded once. */
typedef enum {
  DIST_F32 = 0,
  DIST_F64 = 1,
  DIST_F16 = 2,
  DIST_BF16 = 3,
  DIST_I32 = 4,
  DIST_I64 = 5,
  DIST_I8 = 6,
  DIST_I16 = 7,
  DIST_I1 = 8,
} dist_dtype_t;

/* Reductions: the values of dist's ReductionKind. An average divides the sum
 * by the group size (integers round toward zero). */
typedef enum {
  DIST_SUM = 0,
  DIST_MAX = 1,
  DIST_MIN = 2,
  DIST_PROD = 3,
  DIST_AVG = 4,
} dist_reduction_t;

typedef struct dist_group dist_group_t;
/* A collective in flight, from a dist_*_start call to its dist_wait. */
typedef struct dist_request dist_request_t;
/* Opaque stream: null on CPU backends; the nccl backend takes a
 * cudaStream_t. A non-null stream on a CPU backend is an error. */
typedef void *dist_stream_t;

/* Starts the runtime: picks the backend (DIST_BACKEND=mpi|self|nccl, or the
 * registered backend of highest priority) and starts it (MPI_Init for mpi).
 * `argc`/`argv` may be null. Idempotent; the runtime starts once per process
 * (no init after finalize). One thread calls the runtime. */
void dist_init(int *argc, char ***argv);
/* Writes the trace (DIST_TRACE), frees every cached communicator and stops
 * the backend. Fails, naming each call that started one, when requests were
 * never waited for. Idempotent. */
void dist_finalize(void);
int dist_world_rank(void);
int dist_world_size(void);
/* The name of the backend in use ("mpi", "self"). */
const char *dist_backend_name(void);

/* The group of ranks spanned by mesh axes `axes` (positions in the mesh,
 * major to minor) that contains the calling rank, on a mesh of shape
 * `mesh_shape`, over communicator index `comm` >= 0. The mesh must have as
 * many devices as the world has ranks. The same mesh and axes with different
 * `comm` are different communicators over the same ranks, so collectives on
 * them may be in flight at once (Paddle's ring_id). Cached per (mesh shape,
 * axes, comm): the same arguments give the same group. Collective on first
 * use: every rank asks for the same groups in the same order (checked). */
dist_group_t *dist_get_group(const int64_t *mesh_shape, int32_t mesh_rank,
                             const int64_t *axes, int32_t num_axes,
                             int32_t comm);
/* Number of ranks in the group and the caller's index in it. */
int64_t dist_group_size(dist_group_t *group);
int64_t dist_group_index(dist_group_t *group);

/* Every rank gets the `reduction` of every rank's `count` elements, in
 * place. A call moves at most 2^31 - 1 elements per block. */
void dist_all_reduce(dist_group_t *group, void *buffer, int64_t count,
                     dist_dtype_t dtype, dist_reduction_t reduction,
                     dist_stream_t stream);

/* Group index `root` gets the reduction, in place; the other ranks' buffers
 * keep their input. */
void dist_reduce(dist_group_t *group, void *buffer, int64_t count,
                 dist_dtype_t dtype, dist_reduction_t reduction, int64_t root,
                 dist_stream_t stream);

/* Every rank gets group index `root`'s buffer, in place. */
void dist_broadcast(dist_group_t *group, void *buffer, int64_t count,
                    dist_dtype_t dtype, int64_t root, dist_stream_t stream);

/* `output` holds group-size blocks of `count` elements: block i is group
 * index i's `input`. */
void dist_all_gather(dist_group_t *group, const void *input, void *output,
                     int64_t count, dist_dtype_t dtype, dist_stream_t stream);

/* `input` holds group-size blocks of `count` elements; `output` (`count`
 * elements) on group index i gets the reduction over the group of block i. */
void dist_reduce_scatter(dist_group_t *group, const void *input, void *output,
                         int64_t count, dist_dtype_t dtype,
                         dist_reduction_t reduction, dist_stream_t stream);

/* `input` holds group-size blocks of `count` elements; block j goes to group
 * index j. `output` holds group-size blocks: block i came from index i. */
void dist_all_to_all(dist_group_t *group, const void *input, void *output,
                     int64_t count, dist_dtype_t dtype, dist_stream_t stream);

/* Point to point, in one step: sends `count` elements of `input` to group
 * index `target` and receives `count` elements into `output` from group index
 * `source` (every rank of a ring may send and receive at once without
 * deadlock). -1 as `target` sends nothing; -1 as `source` receives nothing
 * and leaves `output` as it is. `dist.permute` lowers to this call, with the
 * partners of every group index in constant tables. */
void dist_send_recv(dist_group_t *group, const void *input, int64_t target,
                    void *output, int64_t source, int64_t count,
                    dist_dtype_t dtype, dist_stream_t stream);

/* Non-blocking forms: the same arguments as the blocking call; they return a
 * request. The buffers must not be read or written until dist_wait returns.
 * Every request is waited for exactly once. Any number of requests may be in
 * flight, on one group or several, and waited for in any order; every rank
 * starts the collectives of one group in the same order. */
dist_request_t *dist_all_reduce_start(dist_group_t *group, void *buffer,
                                      int64_t count, dist_dtype_t dtype,
                                      dist_reduction_t reduction,
                                      dist_stream_t stream);
dist_request_t *dist_reduce_start(dist_group_t *group, void *buffer,
                                  int64_t count, dist_dtype_t dtype,
                                  dist_reduction_t reduction, int64_t root,
                                  dist_stream_t stream);
dist_request_t *dist_broadcast_start(dist_group_t *group, void *buffer,
                                     int64_t count, dist_dtype_t dtype,
                                     int64_t root, dist_stream_t stream);
dist_request_t *dist_all_gather_start(dist_group_t *group, const void *input,
                                      void *output, int64_t count,
                                      dist_dtype_t dtype, dist_stream_t stream);
dist_request_t *dist_reduce_scatter_start(dist_group_t *group,
                                          const void *input, void *output,
                                          int64_t count, dist_dtype_t dtype,
                                          dist_reduction_t reduction,
                                          dist_stream_t stream);
dist_request_t *dist_all_to_all_start(dist_group_t *group, const void *input,
                                      void *output, int64_t count,
                                      dist_dtype_t dtype, dist_stream_t stream);
dist_request_t *dist_send_recv_start(dist_group_t *group, const void *input,
                                     int64_t target, void *output,
                                     int64_t source, int64_t count,
                                     dist_dtype_t dtype, dist_stream_t stream);

/* Returns when the request's collective completed and its buffers hold the
 * result. Under the watchdog: a wait that does not complete within
 * DIST_TIMEOUT_SECONDS is an error, never a hang. A null request, or one that
 * was already waited for, is an error. */
void dist_wait(dist_request_t *request);
/* Lets the requests in flight progress without blocking (the compiler may
 * call it inside long computations). Every runtime call also does this. */
void dist_progress(void);

/* Size in bytes of one element of `dtype`. */
int64_t dist_dtype_size(dist_dtype_t dtype);

#ifdef __cplusplus
}
#endif

#endif /* DIST_RUNTIME_DISTRUNTIME_H */
