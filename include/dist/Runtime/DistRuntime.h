/*===- DistRuntime.h - The C ABI that lowered dist programs call -*- C -*-===*\
 *
 * Lowered per-rank programs call these functions for their collectives. The
 * library has no MLIR dependency; a backend (MPI now, NCCL later) does the
 * communication. Every function reports a failure (the call, the rank and the
 * backend's message) on stderr and ends the job with a non-zero exit code, so
 * generated code needs no error handling. A collective that cannot complete
 * (a peer died, ranks issued different collectives) fails after a timeout:
 * the environment variable DIST_TIMEOUT_SECONDS (default 300).
 *
 * Groups: a collective acts on the ranks that differ only in some axes of a
 * row-major device mesh, exactly as the dist dialect numbers them (see
 * dist/Support/MeshMath.h). A group's communicator is created on first use
 * and cached: generated code may ask for it on every call.
 *
 * Buffers hold tensors in row-major order. Shapes are the local shapes.
\*===----------------------------------------------------------------------===*/

#ifndef DIST_RUNTIME_DISTRUNTIME_H
#define DIST_RUNTIME_DISTRUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types (values fixed: generated code passes them as integers). */
typedef enum {
  DIST_F32 = 0,
  DIST_F64 = 1,
  DIST_F16 = 2,
  DIST_BF16 = 3,
  DIST_I32 = 4,
  DIST_I64 = 5,
} dist_dtype_t;

/* Reductions: the values of dist's ReductionKind. */
typedef enum {
  DIST_SUM = 0,
  DIST_MAX = 1,
  DIST_MIN = 2,
  DIST_PROD = 3,
  DIST_AVG = 4,
} dist_reduction_t;

typedef struct dist_group dist_group_t;

/* Starts the runtime (MPI_Init for the MPI backend); `argc`/`argv` may be
 * null. Idempotent; the runtime starts once per process (no init after
 * finalize). One thread calls the runtime. */
void dist_init(int *argc, char ***argv);
/* Frees every cached communicator and stops the backend. Idempotent. */
void dist_finalize(void);
int dist_world_rank(void);
int dist_world_size(void);
/* The name of the backend in use ("mpi"). */
const char *dist_backend_name(void);

/* The group of ranks spanned by mesh axes `axes` (positions in the mesh,
 * major to minor) that contains the calling rank, on a mesh of shape
 * `mesh_shape`. The mesh must have as many devices as the world has ranks.
 * Cached: the same arguments give the same group. Collective on first use:
 * every rank asks for the same groups in the same order (checked). */
dist_group_t *dist_get_group(const int64_t *mesh_shape, int32_t mesh_rank,
                             const int64_t *axes, int32_t num_axes);
/* Number of ranks in the group and the caller's index in it. */
int64_t dist_group_size(dist_group_t *group);
int64_t dist_group_index(dist_group_t *group);

/* Every rank gets the `reduction` of every rank's `count` elements, in
 * place. 16-bit float sums, products and averages, and i32 averages, are
 * computed in f32 / i64 and rounded once. A call moves at most 2^31 - 1
 * elements (or bytes, for the data-moving collectives). */
void dist_all_reduce(dist_group_t *group, void *buffer, int64_t count,
                     dist_dtype_t dtype, dist_reduction_t reduction);

/* Rank `root` of the group gets the reduction, in place; the other ranks'
 * buffers keep their input. */
void dist_reduce(dist_group_t *group, void *buffer, int64_t count,
                 dist_dtype_t dtype, dist_reduction_t reduction, int64_t root);

/* Every rank gets rank `root`'s buffer, in place. */
void dist_broadcast(dist_group_t *group, void *buffer, int64_t count,
                    dist_dtype_t dtype, int64_t root);

/* `input` has shape `shape` (rank `rank`); `output` gets the concatenation
 * of every rank's input along dim `dim`, in group order (its dim `dim` is
 * `shape[dim] * group size`). */
void dist_all_gather(dist_group_t *group, const void *input, void *output,
                     const int64_t *shape, int32_t rank, int32_t dim,
                     dist_dtype_t dtype);

/* `input` has shape `shape`; the reduction over the group is cut into group
 * size blocks along dim `dim` and rank i gets block i in `output`. */
void dist_reduce_scatter(dist_group_t *group, const void *input, void *output,
                         const int64_t *shape, int32_t rank, int32_t dim,
                         dist_dtype_t dtype, dist_reduction_t reduction);

/* `input` has shape `shape`; each rank cuts it into group size blocks along
 * `split_dim`, sends block j to rank j, and concatenates what it receives
 * along `concat_dim` in group order. */
void dist_all_to_all(dist_group_t *group, const void *input, void *output,
                     const int64_t *shape, int32_t rank, int32_t split_dim,
                     int32_t concat_dim, dist_dtype_t dtype);

/* Point to point, in one step: sends `count` elements of `input` to group
 * index `target` and receives `count` elements into `output` from group index
 * `source` (every rank of a ring may send and receive at once without
 * deadlock). -1 as `target` sends nothing; -1 as `source` receives nothing
 * and leaves `output` as it is. `dist.permute` lowers to this call, with the
 * partners of every group index in constant tables. */
void dist_send_recv(dist_group_t *group, const void *input, int64_t target,
                    void *output, int64_t source, int64_t count,
                    dist_dtype_t dtype);

/* Size in bytes of one element of `dtype`. */
int64_t dist_dtype_size(dist_dtype_t dtype);

#ifdef __cplusplus
}
#endif

#endif /* DIST_RUNTIME_DISTRUNTIME_H */
