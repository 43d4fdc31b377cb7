//===- MPIBackend.cpp - The dist runtime over MPI -------------------------===//
//
// Every collective is MPI's blocking call (the nonblocking forms go through
// slower schedules, libnbc in OpenMPI), run under a watchdog thread: a call
// that does not return before the deadline (a dead peer, mismatched
// collectives) ends the process with an error instead of hanging. Errors are returned
// (MPI_ERRORS_RETURN), reported with the failing call, and abort the job.
// f16 and bf16 have no MPI reduction: user ops reduce them through float.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>

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

/// User ops for 16-bit floats: reduce through float (see reduceInto).
template <dist_dtype_t DType, dist_reduction_t Reduction>
void halfOp(void *in, void *inout, int *len, MPI_Datatype *) {
  reduceInto(inout, in, *len, DType, Reduction);
}

/// Ends the process when a blocking call runs longer than the limit. Its
/// thread starts with the backend, so arming is only two relaxed stores and a
/// release store of the call's sequence number (no branch, clock read, lock or
/// wake-up: a collective of a few bytes takes under a microsecond). The
/// thread polls a few times per second and times a call from the first poll
/// that sees it, so it fires between the limit and the limit plus one poll
/// period after the call began. It calls no MPI (the library runs
/// single-threaded): it reports and exits, and mpirun then ends the other
/// ranks.
class Watchdog {
public:
  /// Starts the watching thread before the first `arm` (once, however often
  /// the runtime is initialized).
  void start(int rank) {
    if (started)
      return;
    started = true;
    this->rank = rank;
    seconds = getTimeoutSeconds();
    std::thread([this] { run(); }).detach();
  }

  void arm(const char *call, const char *what) {
    currentCall.store(call, std::memory_order_relaxed);
    currentWhat.store(what, std::memory_order_relaxed);
    active.store(++lastArmed, std::memory_order_release);
  }

  void disarm() { active.store(0, std::memory_order_release); }

private:
  void run() {
    using Clock = std::chrono::steady_clock;
    // Poll at a tenth of the limit, between 1 ms and 100 ms.
    double period = std::min(0.1, std::max(0.001, seconds / 10));
    uint64_t watched = 0;
    Clock::time_point since = Clock::now();
    for (;;) {
      std::this_thread::sleep_for(std::chrono::duration<double>(period));
      uint64_t call = active.load(std::memory_order_acquire);
      if (call == 0 || call != watched) {
        watched = call;
        since = Clock::now();
        continue;
      }
      if (std::chrono::duration<double>(Clock::now() - since).count() < seconds)
        continue;
      std::fprintf(stderr,
                   "dist runtime error on rank %d (mpi backend): %s (%s) did "
                   "not complete within %g s: a peer rank died or issued a "
                   "different collective (DIST_TIMEOUT_SECONDS sets the "
                   "limit)\n",
                   rank, currentWhat.load(), currentCall.load(), seconds);
      std::fflush(stderr);
      _exit(1);
    }
  }

  bool started = false;
  int rank = -1;
  double seconds = 0; // Set before the thread starts.
  /// Sequence number of the call in flight (0: none); only the caller's
  /// thread writes it, so `lastArmed` needs no atomics.
  std::atomic<uint64_t> active{0};
  uint64_t lastArmed = 0;
  std::atomic<const char *> currentCall{""};
  std::atomic<const char *> currentWhat{""};
};

class MPIBackend : public Backend {
public:
  const char *name() const override { return "mpi"; }

  void init(int *argc, char ***argv) override {
    int initialized = 0, finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized)
      fail("dist_init after MPI was finalized: the runtime starts once per process");
    MPI_Initialized(&initialized);
    if (!initialized)
      check(MPI_Init(argc, argv), "MPI_Init", "init");
    ownsMPI = !initialized;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    watchdog.start(rank);
  }

  void finalize() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    for (MPI_Op &op : halfOps)
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
    guarded("MPI_Allreduce", what, [&] {
      return MPI_Allreduce(MPI_IN_PLACE, values, 2, MPI_INT64_T, MPI_MAX,
                           MPI_COMM_WORLD);
    });
    if (values[0] != -values[1] || values[0] != key)
      fail(std::string(what) + ": the ranks asked for different groups (every "
                               "rank must create the same groups in the same "
                               "order)");
  }

  std::unique_ptr<Communicator> split(int64_t color, int64_t key) override {
    MPI_Comm comm;
    check(MPI_Comm_split(MPI_COMM_WORLD, (int)color, (int)key, &comm),
          "MPI_Comm_split", "group creation");
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return std::make_unique<MPICommunicator>(comm);
  }

  void allReduce(Communicator &comm, void *buffer, int64_t count,
                 dist_dtype_t dtype, dist_reduction_t reduction,
                 const char *what) override {
    int n = toCount(count, what);
    guarded("MPI_Allreduce", what, [&] {
      return MPI_Allreduce(MPI_IN_PLACE, buffer, n, type(dtype),
                           op(dtype, reduction), get(comm));
    });
  }

  void reduce(Communicator &comm, void *buffer, int64_t count,
              dist_dtype_t dtype, dist_reduction_t reduction, int64_t root,
              const char *what) override {
    bool isRoot = comm.rank() == root;
    int n = toCount(count, what);
    guarded("MPI_Reduce", what, [&] {
      return MPI_Reduce(isRoot ? MPI_IN_PLACE : buffer,
                        isRoot ? buffer : nullptr, n, type(dtype),
                        op(dtype, reduction), (int)root, get(comm));
    });
  }

  void broadcast(Communicator &comm, void *buffer, int64_t bytes, int64_t root,
                 const char *what) override {
    int n = toCount(bytes, what);
    guarded("MPI_Bcast", what, [&] {
      return MPI_Bcast(buffer, n, MPI_BYTE, (int)root, get(comm));
    });
  }

  void allGather(Communicator &comm, const void *input, void *output,
                 int64_t bytes, const char *what) override {
    int n = toCount(bytes, what);
    guarded("MPI_Allgather", what, [&] {
      return MPI_Allgather(input, n, MPI_BYTE, output, n, MPI_BYTE, get(comm));
    });
  }

  void reduceScatter(Communicator &comm, const void *input, void *output,
                     int64_t count, dist_dtype_t dtype,
                     dist_reduction_t reduction, const char *what) override {
    int n = toCount(count, what);
    guarded("MPI_Reduce_scatter_block", what, [&] {
      return MPI_Reduce_scatter_block(input, output, n, type(dtype),
                                      op(dtype, reduction), get(comm));
    });
  }

  void allToAll(Communicator &comm, const void *input, void *output,
                int64_t bytes, const char *what) override {
    int n = toCount(bytes, what);
    guarded("MPI_Alltoall", what, [&] {
      return MPI_Alltoall(input, n, MPI_BYTE, output, n, MPI_BYTE, get(comm));
    });
  }

  void sendRecv(Communicator &comm, const void *input, int64_t target,
                void *output, int64_t source, int64_t bytes,
                const char *what) override {
    // A missing side is MPI_PROC_NULL, which MPI_Sendrecv skips.
    int n = toCount(bytes, what);
    guarded("MPI_Sendrecv", what, [&] {
      return MPI_Sendrecv(input, n, MPI_BYTE,
                          target >= 0 ? (int)target : MPI_PROC_NULL, kPermuteTag,
                          output, n, MPI_BYTE,
                          source >= 0 ? (int)source : MPI_PROC_NULL, kPermuteTag,
                          get(comm), MPI_STATUS_IGNORE);
    });
  }

private:
  static constexpr int kPermuteTag = 7101;
  Watchdog watchdog;

  /// MPI counts are ints: larger messages are refused, never truncated.
  static int toCount(int64_t count, const char *what) {
    if (count < 0 || count > (int64_t)INT32_MAX) [[unlikely]]
      failf("%s: a message of %lld elements or bytes exceeds the MPI limit of "
            "2^31 - 1 per call",
            what, (long long)count);
    return (int)count;
  }

  static void check(int code, const char *call, const char *what) {
    if (code != MPI_SUCCESS) [[unlikely]]
      failCall(code, call, what);
  }

  [[noreturn, gnu::cold, gnu::noinline]] static void
  failCall(int code, const char *call, const char *what) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    fail(std::string(call) + " failed in " + what + ": " +
         std::string(text, length));
  }

  /// Runs a blocking MPI call under the watchdog and checks its result.
  template <typename Call>
  void guarded(const char *call, const char *what, Call &&run) {
    watchdog.arm(call, what);
    int code = run();
    watchdog.disarm();
    check(code, call, what);
  }

  // Element types and reductions map through tables, not switches (which
  // compile to indirect jumps on the per-call path). The core checked both
  // values before calling the backend.
  static MPI_Datatype type(dist_dtype_t dtype) {
    // By dist_dtype_t: f32, f64, f16, bf16, i32, i64 (16-bit floats move as
    // 16-bit words and reduce through user ops).
    static const MPI_Datatype types[] = {MPI_FLOAT,    MPI_DOUBLE,
                                         MPI_UINT16_T, MPI_UINT16_T,
                                         MPI_INT32_T,  MPI_INT64_T};
    return types[dtype];
  }

  MPI_Op op(dist_dtype_t dtype, dist_reduction_t reduction) {
    if (dtype == DIST_F16 || dtype == DIST_BF16) [[unlikely]]
      return halfOp(dtype, reduction);
    // By dist_reduction_t: sum, max, min, prod, avg (a sum the core divides).
    static const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_SUM};
    return ops[reduction];
  }

  MPI_Op halfOp(dist_dtype_t dtype, dist_reduction_t reduction) {
    int kind = reduction == DIST_AVG ? DIST_SUM : reduction;
    MPI_Op &slot = halfOps[(dtype == DIST_BF16 ? 4 : 0) + kind];
    if (slot != MPI_OP_NULL)
      return slot;
    static MPI_User_function *const functions[8] = {
        ::halfOp<DIST_F16, DIST_SUM>,  ::halfOp<DIST_F16, DIST_MAX>,
        ::halfOp<DIST_F16, DIST_MIN>,  ::halfOp<DIST_F16, DIST_PROD>,
        ::halfOp<DIST_BF16, DIST_SUM>, ::halfOp<DIST_BF16, DIST_MAX>,
        ::halfOp<DIST_BF16, DIST_MIN>, ::halfOp<DIST_BF16, DIST_PROD>};
    check(MPI_Op_create(functions[(dtype == DIST_BF16 ? 4 : 0) + kind],
                        /*commute=*/1, &slot),
          "MPI_Op_create", "a 16-bit float reduction");
    return slot;
  }

  int rank = 0, size = 1;
  bool ownsMPI = false;
  MPI_Op halfOps[8] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL,
                       MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
};

} // namespace

std::unique_ptr<Backend> distrt::createMPIBackend() {
  return std::make_unique<MPIBackend>();
}
