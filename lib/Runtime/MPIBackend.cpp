//===- MPIBackend.cpp - The dist runtime over MPI -------------------------===//
//
// A blocking collective is MPI's blocking call (the tuned algorithms; OpenMPI
// runs the nonblocking forms through its generic libnbc schedules, slower at
// mid sizes), a started one MPI's nonblocking call, whose requests the core
// tests while they are in flight. Every blocking call and every wait runs
// under the watchdog: one that does not return before the deadline (a dead
// peer, mismatched collectives) ends the process with an error instead of
// hanging. Errors are returned (MPI_ERRORS_RETURN), reported with the failing
// call and its group, and abort the job. f16 and bf16 have no MPI reduction:
// user ops reduce them through float; i1 reduces with bitwise ops on bytes.
// i8 and i16 sums and products are user ops too: OpenMPI 4.1's AVX op
// component saturates 8- and 16-bit sums instead of wrapping
// (open-mpi/ompi#8045; seen here in MPI_Ireduce_scatter_block).
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace distrt;

namespace {

int commSizeOf(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

int commRankOf(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

class MPICommunicator : public Communicator {
public:
  explicit MPICommunicator(MPI_Comm comm)
      : Communicator(commSizeOf(comm), commRankOf(comm)), comm(comm) {}
  ~MPICommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm != MPI_COMM_WORLD && comm != MPI_COMM_NULL)
      MPI_Comm_free(&comm);
  }
  MPI_Comm comm;
};

MPI_Comm get(Communicator &comm) {
  return static_cast<MPICommunicator &>(comm).comm;
}

/// User ops: the runtime's own kernels (see reduceInto).
template <dist_dtype_t DType, dist_reduction_t Reduction>
void userOp(void *in, void *inout, int *len, MPI_Datatype *) {
  reduceInto(inout, in, *len, DType, Reduction);
}

/// MPI counts are ints: larger messages are refused, never truncated.
int toCount(int64_t count, const char *what, const char *group) {
  if (count > (int64_t)INT32_MAX) [[unlikely]]
    failf("%s in group %s: a block of %lld elements exceeds the MPI limit of "
          "2^31 - 1 per call",
          what, group, (long long)count);
  return (int)count;
}

[[noreturn, gnu::cold, gnu::noinline]] void
failCall(int code, const char *call, const char *what, const char *group) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  failf("%s failed in %s in group %s: %.*s", call, what, group, length, text);
}

void check(int code, const char *call, const char *what, const char *group) {
  if (code != MPI_SUCCESS) [[unlikely]]
    failCall(code, call, what, group);
}

// Element types map through a table, not a switch (which compiles to an
// indirect jump on the per-call path). The core checked the value.
MPI_Datatype type(dist_dtype_t dtype) {
  // By dist_dtype_t: f32, f64, f16, bf16, i32, i64, i8, i16, i1 (16-bit
  // floats move as 16-bit words; i1 as bytes).
  static const MPI_Datatype types[kNumDtypes] = {
      MPI_FLOAT,   MPI_DOUBLE,  MPI_UINT16_T, MPI_UINT16_T, MPI_INT32_T,
      MPI_INT64_T, MPI_INT8_T,  MPI_INT16_T,  MPI_UINT8_T};
  return types[dtype];
}

class MPIBackend;

/// A nonblocking collective: one MPI request, two for send_recv.
class MPIWork : public Work {
public:
  MPIWork(MPIBackend &backend, const Collective &c)
      : backend(backend), what(c.what), group(c.comm->label()) {}
  bool test() override {
    int done = 0;
    check(MPI_Testall(numRequests, requests, &done, MPI_STATUSES_IGNORE),
          "MPI_Testall", what, group);
    return done;
  }
  void wait() override;

  MPIBackend &backend;
  const char *what, *group;
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int numRequests = 0;
};

class MPIBackend : public Backend {
public:
  MPIBackend() {
    for (MPI_Op &op : createdOps)
      op = MPI_OP_NULL;
  }

  const char *name() const override { return "mpi"; }

  void init(int *argc, char ***argv) override {
    int initialized = 0, finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized)
      fail("dist_init after MPI was finalized: the runtime starts once per "
           "process");
    MPI_Initialized(&initialized);
    if (!initialized)
      check(MPI_Init(argc, argv), "MPI_Init", "dist_init", "world");
    ownsMPI = !initialized;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    createOps();
    watchdog.start(rank, "mpi");
  }

  void finalize() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    for (MPI_Op &op : createdOps)
      if (op != MPI_OP_NULL && !finalized)
        MPI_Op_free(&op);
    if (ownsMPI && !finalized)
      MPI_Finalize();
  }

  int worldRank() const override { return rank; }
  int worldSize() const override { return size; }

  [[noreturn]] void abortJob(int code) override {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
      MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
  }

  void checkAgreement(int64_t key, const char *what) override {
    // max(key) and max(-key) = -min(key): equal iff every rank passed key.
    int64_t values[2] = {key, -key};
    guarded("MPI_Allreduce", what, "world", [&] {
      return MPI_Allreduce(MPI_IN_PLACE, values, 2, MPI_INT64_T, MPI_MAX,
                           MPI_COMM_WORLD);
    });
    if (values[0] != -values[1] || values[0] != key)
      failf("%s: the ranks asked for different groups (every rank must "
            "create the same groups in the same order)",
            what);
  }

  std::unique_ptr<Communicator> split(int64_t color, int64_t key) override {
    MPI_Comm comm;
    check(MPI_Comm_split(MPI_COMM_WORLD, (int)color, (int)key, &comm),
          "MPI_Comm_split", "dist_get_group", "world");
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return std::make_unique<MPICommunicator>(comm);
  }

  void allReduce(Communicator &comm, void *buffer, int64_t count,
                 dist_dtype_t dtype, dist_reduction_t reduction,
                 const char *what) override {
    int n = toCount(count, what, comm.label());
    guarded("MPI_Allreduce", what, comm.label(), [&] {
      return MPI_Allreduce(MPI_IN_PLACE, buffer, n, type(dtype),
                           ops[dtype][reduction], get(comm));
    });
  }

  void reduce(Communicator &comm, void *buffer, int64_t count,
              dist_dtype_t dtype, dist_reduction_t reduction, int64_t root,
              const char *what) override {
    bool isRoot = comm.rank() == root;
    int n = toCount(count, what, comm.label());
    guarded("MPI_Reduce", what, comm.label(), [&] {
      return MPI_Reduce(isRoot ? MPI_IN_PLACE : buffer,
                        isRoot ? buffer : nullptr, n, type(dtype),
                        ops[dtype][reduction], (int)root, get(comm));
    });
  }

  void broadcast(Communicator &comm, void *buffer, int64_t count,
                 dist_dtype_t dtype, int64_t root, const char *what) override {
    int n = toCount(count, what, comm.label());
    guarded("MPI_Bcast", what, comm.label(), [&] {
      return MPI_Bcast(buffer, n, type(dtype), (int)root, get(comm));
    });
  }

  void allGather(Communicator &comm, const void *input, void *output,
                 int64_t count, dist_dtype_t dtype, const char *what) override {
    int n = toCount(count, what, comm.label());
    guarded("MPI_Allgather", what, comm.label(), [&] {
      return MPI_Allgather(input, n, type(dtype), output, n, type(dtype),
                           get(comm));
    });
  }

  void reduceScatter(Communicator &comm, const void *input, void *output,
                     int64_t count, dist_dtype_t dtype,
                     dist_reduction_t reduction, const char *what) override {
    int n = toCount(count, what, comm.label());
    guarded("MPI_Reduce_scatter_block", what, comm.label(), [&] {
      return MPI_Reduce_scatter_block(input, output, n, type(dtype),
                                      ops[dtype][reduction], get(comm));
    });
  }

  void allToAll(Communicator &comm, const void *input, void *output,
                int64_t count, dist_dtype_t dtype, const char *what) override {
    int n = toCount(count, what, comm.label());
    guarded("MPI_Alltoall", what, comm.label(), [&] {
      return MPI_Alltoall(input, n, type(dtype), output, n, type(dtype),
                          get(comm));
    });
  }

  void sendRecv(Communicator &comm, const void *input, int64_t target,
                void *output, int64_t source, int64_t count,
                dist_dtype_t dtype, const char *what) override {
    // A missing side is MPI_PROC_NULL, which MPI_Sendrecv skips.
    int n = toCount(count, what, comm.label());
    guarded("MPI_Sendrecv", what, comm.label(), [&] {
      return MPI_Sendrecv(input, n, type(dtype),
                          target >= 0 ? (int)target : MPI_PROC_NULL,
                          kPermuteTag, output, n, type(dtype),
                          source >= 0 ? (int)source : MPI_PROC_NULL,
                          kPermuteTag, get(comm), MPI_STATUS_IGNORE);
    });
  }

  std::unique_ptr<Work> start(const Collective &c) override {
    auto work = std::make_unique<MPIWork>(*this, c);
    MPI_Comm comm = get(*c.comm);
    const char *group = c.comm->label();
    int n = toCount(c.count, c.what, group);
    MPI_Datatype t = type(c.dtype);
    MPI_Request *request = work->requests;
    work->numRequests = 1;
    switch (c.kind) {
    case CollectiveKind::AllReduce:
      check(MPI_Iallreduce(MPI_IN_PLACE, c.output, n, t,
                           ops[c.dtype][c.reduction], comm, request),
            "MPI_Iallreduce", c.what, group);
      break;
    case CollectiveKind::Reduce: {
      bool isRoot = c.comm->rank() == c.root;
      check(MPI_Ireduce(isRoot ? MPI_IN_PLACE : c.output,
                        isRoot ? c.output : nullptr, n, t,
                        ops[c.dtype][c.reduction], (int)c.root, comm, request),
            "MPI_Ireduce", c.what, group);
      break;
    }
    case CollectiveKind::Broadcast:
      check(MPI_Ibcast(c.output, n, t, (int)c.root, comm, request),
            "MPI_Ibcast", c.what, group);
      break;
    case CollectiveKind::AllGather:
      check(MPI_Iallgather(c.input, n, t, c.output, n, t, comm, request),
            "MPI_Iallgather", c.what, group);
      break;
    case CollectiveKind::ReduceScatter:
      check(MPI_Ireduce_scatter_block(c.input, c.output, n, t,
                                      ops[c.dtype][c.reduction], comm, request),
            "MPI_Ireduce_scatter_block", c.what, group);
      break;
    case CollectiveKind::AllToAll:
      check(MPI_Ialltoall(c.input, n, t, c.output, n, t, comm, request),
            "MPI_Ialltoall", c.what, group);
      break;
    case CollectiveKind::SendRecv:
      work->numRequests = 0;
      if (c.source >= 0)
        check(MPI_Irecv(c.output, n, t, (int)c.source, kPermuteTag, comm,
                        &request[work->numRequests++]),
              "MPI_Irecv", c.what, group);
      if (c.root >= 0)
        check(MPI_Isend(c.input, n, t, (int)c.root, kPermuteTag, comm,
                        &request[work->numRequests++]),
              "MPI_Isend", c.what, group);
      break;
    }
    return work;
  }

  /// Runs a blocking MPI call under the watchdog and checks its result.
  template <typename Call>
  void guarded(const char *call, const char *what, const char *group,
               Call &&run) {
    watchdog.arm(call, what, group);
    int code = run();
    watchdog.disarm();
    check(code, call, what, group);
  }

private:
  static constexpr int kPermuteTag = 7101;

  /// Fills `ops`: MPI's own where they exist, user ops for 16-bit floats
  /// and narrow integer sums and products, bitwise ops for i1. An average is
  /// a sum the core divides.
  void createOps() {
    for (int d = 0; d < kNumDtypes; ++d) {
      MPI_Op *row = ops[d];
      row[DIST_SUM] = row[DIST_AVG] = MPI_SUM;
      row[DIST_MAX] = MPI_MAX;
      row[DIST_MIN] = MPI_MIN;
      row[DIST_PROD] = MPI_PROD;
    }
    ops[DIST_I1][DIST_SUM] = ops[DIST_I1][DIST_AVG] = MPI_BXOR;
    ops[DIST_I1][DIST_MAX] = MPI_BOR;
    ops[DIST_I1][DIST_MIN] = ops[DIST_I1][DIST_PROD] = MPI_BAND;
    struct UserOp {
      dist_dtype_t dtype;
      dist_reduction_t reduction;
      MPI_User_function *function;
    };
    static const UserOp userOps[kNumUserOps] = {
        {DIST_F16, DIST_SUM, userOp<DIST_F16, DIST_SUM>},
        {DIST_F16, DIST_MAX, userOp<DIST_F16, DIST_MAX>},
        {DIST_F16, DIST_MIN, userOp<DIST_F16, DIST_MIN>},
        {DIST_F16, DIST_PROD, userOp<DIST_F16, DIST_PROD>},
        {DIST_BF16, DIST_SUM, userOp<DIST_BF16, DIST_SUM>},
        {DIST_BF16, DIST_MAX, userOp<DIST_BF16, DIST_MAX>},
        {DIST_BF16, DIST_MIN, userOp<DIST_BF16, DIST_MIN>},
        {DIST_BF16, DIST_PROD, userOp<DIST_BF16, DIST_PROD>},
        {DIST_I8, DIST_SUM, userOp<DIST_I8, DIST_SUM>},
        {DIST_I8, DIST_PROD, userOp<DIST_I8, DIST_PROD>},
        {DIST_I16, DIST_SUM, userOp<DIST_I16, DIST_SUM>},
        {DIST_I16, DIST_PROD, userOp<DIST_I16, DIST_PROD>}};
    for (int i = 0; i < kNumUserOps; ++i) {
      if (createdOps[i] == MPI_OP_NULL)
        check(MPI_Op_create(userOps[i].function, /*commute=*/1, &createdOps[i]),
              "MPI_Op_create", "dist_init", "world");
      ops[userOps[i].dtype][userOps[i].reduction] = createdOps[i];
    }
    // An average is a sum (of a wide copy, for these types).
    for (dist_dtype_t dtype : {DIST_F16, DIST_BF16, DIST_I8, DIST_I16})
      ops[dtype][DIST_AVG] = ops[dtype][DIST_SUM];
  }

  static constexpr int kNumUserOps = 12;
  Watchdog watchdog;
  int rank = -1, size = 1; // -1 until MPI_Init (errors before it)
  bool ownsMPI = false;
  MPI_Op ops[kNumDtypes][kNumReductions];
  MPI_Op createdOps[kNumUserOps];
};

void MPIWork::wait() {
  backend.guarded("MPI_Waitall in dist_wait", what, group, [&] {
    return MPI_Waitall(numRequests, requests, MPI_STATUSES_IGNORE);
  });
}

BackendRegistration registration("mpi", /*priority=*/100, [] {
  return std::unique_ptr<Backend>(new MPIBackend());
});

} // namespace
