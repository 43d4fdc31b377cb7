//===- runtime_collectives.cpp - Runtime collectives vs direct MPI --------===//
//
// Times each collective through the dist runtime and the same MPI call made
// directly, for message sizes 8 B .. 64 MiB, and prints one row per size:
// the median time of each and their ratio. Run on 4 processes:
//
//   mpirun -np 4 build/bench/dist-bench-runtime [--max-bytes N] [--reps N]
//                                               [--only NAME] [--baseline]
//
// The runtime adds its checks, one virtual call into its backend and the
// deadline its watchdog watches (ABI v2: every block is contiguous, so there
// is no layout work). `all_reduce_start` times the non-blocking form
// (dist_all_reduce_start + dist_wait) against MPI_Iallreduce + MPI_Wait.
//
// To keep scheduling noise (several ranks per core) out of the comparison,
// the two sides alternate (ABBA) and each ratio pairs the two batches of one
// round; a batch of calls lasts about 2 ms, long enough for the timer and the
// barrier not to matter.
//
//===----------------------------------------------------------------------===//

#include "dist/Runtime/DistRuntime.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

/// Seconds one call of `call` takes on the slowest rank, over a batch of
/// `batch` calls.
static double timeBatch(int batch, const std::function<void()> &call) {
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < batch; ++i)
    call();
  double local = (MPI_Wtime() - start) / batch, slowest = 0;
  // A collective takes as long as its slowest rank.
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

static double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

struct Comparison {
  double runtime, mpi; // median seconds per call
  double ratio;        // median of the per-round ratios runtime / mpi
};

/// Times `runtime` against `mpi` in `reps` rounds. Each round times one batch
/// of each, in the order ABBA over two rounds, so that neither side always
/// runs first (after a barrier) or second (with warm caches). The ratio pairs
/// the two batches of a round: a drift of the machine's speed that lasts
/// longer than a round cancels out.
static Comparison compare(int reps, const std::function<void()> &runtime,
                          const std::function<void()> &mpi,
                          const std::function<void()> &reset) {
  reset();
  runtime(); // warm up both
  mpi();
  // The batch that takes about 2 ms (every rank agrees on it).
  double once = std::max(timeBatch(1, mpi), 1e-7);
  int batch = (int)std::min(1000.0, std::max(1.0, 2e-3 / once));
  MPI_Bcast(&batch, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<double> runtimeTimes, mpiTimes, ratios;
  for (int r = 0; r < reps; ++r) {
    double runtimeTime, mpiTime;
    auto timeRuntime = [&] {
      reset();
      runtimeTime = timeBatch(batch, runtime);
    };
    auto timeMPI = [&] {
      reset();
      mpiTime = timeBatch(batch, mpi);
    };
    if (r % 2 == 0) {
      timeRuntime();
      timeMPI();
    } else {
      timeMPI();
      timeRuntime();
    }
    runtimeTimes.push_back(runtimeTime);
    mpiTimes.push_back(mpiTime);
    ratios.push_back(runtimeTime / mpiTime);
  }
  return {median(runtimeTimes), median(mpiTimes), median(ratios)};
}

int main(int argc, char **argv) {
  dist_init(&argc, &argv);
  int64_t maxBytes = 64ll << 20;
  int reps = 21;
  // --baseline times the MPI call against itself: the ratios it prints are
  // the noise of the measurement on this machine.
  bool baseline = false;
  const char *only = nullptr; // --only NAME: one collective
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--baseline") == 0)
      baseline = true;
    else if (std::strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc)
      maxBytes = std::atoll(argv[++i]);
    else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--max-bytes N] [--reps N] [--only NAME] "
                   "[--baseline]\n",
                   argv[0]);
      return 2;
    }
  }
  int rank = dist_world_rank(), size = dist_world_size();
  int64_t mesh = size, axis = 0;
  dist_group_t *group = dist_get_group(&mesh, 1, &axis, 1, /*comm=*/0);

  if (rank == 0)
    std::printf("| collective | bytes | runtime (us) | MPI (us) | runtime / MPI |\n"
                "|---|---|---|---|---|\n");
  // 8 B, 64 B, ... in steps of 8x, and the largest size itself (64 MiB).
  std::vector<int64_t> sizes;
  for (int64_t bytes = 8; bytes < maxBytes; bytes *= 8)
    sizes.push_back(bytes);
  sizes.push_back(maxBytes);
  for (int64_t bytes : sizes) {
    int64_t count = bytes / 4; // f32 elements
    std::vector<float> a(count * size, 0.0f), b(count * size, 0.0f);
    int n = (int)count;
    struct Case {
      const char *name;
      std::function<void()> runtime, mpi;
    };
    // all_gather, reduce_scatter and all_to_all move blocks of `count`
    // elements to or from each rank; permute shifts a ring.
    // dist.permute's lowering: the partners of every group index in tables.
    std::vector<int64_t> targetOf(size), sourceOf(size);
    for (int i = 0; i < size; ++i) {
      targetOf[i] = (i + 1) % size;
      sourceOf[(i + 1) % size] = i;
    }
    int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    std::vector<Case> cases = {
        {"all_reduce",
         [&] {
           dist_all_reduce(group, a.data(), count, DIST_F32, DIST_SUM, nullptr);
         },
         [&] {
           MPI_Allreduce(MPI_IN_PLACE, a.data(), n, MPI_FLOAT, MPI_SUM,
                         MPI_COMM_WORLD);
         }},
        {"all_reduce_start",
         [&] {
           dist_wait(dist_all_reduce_start(group, a.data(), count, DIST_F32,
                                           DIST_SUM, nullptr));
         },
         [&] {
           MPI_Request request;
           MPI_Iallreduce(MPI_IN_PLACE, a.data(), n, MPI_FLOAT, MPI_SUM,
                          MPI_COMM_WORLD, &request);
           MPI_Wait(&request, MPI_STATUS_IGNORE);
         }},
        {"all_gather",
         [&] {
           dist_all_gather(group, a.data(), b.data(), count, DIST_F32, nullptr);
         },
         [&] {
           MPI_Allgather(a.data(), n, MPI_FLOAT, b.data(), n, MPI_FLOAT,
                         MPI_COMM_WORLD);
         }},
        {"reduce_scatter",
         [&] {
           dist_reduce_scatter(group, a.data(), b.data(), count, DIST_F32,
                               DIST_SUM, nullptr);
         },
         [&] {
           MPI_Reduce_scatter_block(a.data(), b.data(), n, MPI_FLOAT, MPI_SUM,
                                    MPI_COMM_WORLD);
         }},
        {"broadcast",
         [&] { dist_broadcast(group, a.data(), count, DIST_F32, 0, nullptr); },
         [&] { MPI_Bcast(a.data(), n, MPI_FLOAT, 0, MPI_COMM_WORLD); }},
        {"reduce",
         [&] {
           dist_reduce(group, a.data(), count, DIST_F32, DIST_SUM, 0, nullptr);
         },
         [&] {
           MPI_Reduce(rank == 0 ? MPI_IN_PLACE : a.data(),
                      rank == 0 ? a.data() : nullptr, n, MPI_FLOAT, MPI_SUM, 0,
                      MPI_COMM_WORLD);
         }},
        {"all_to_all",
         [&] {
           dist_all_to_all(group, a.data(), b.data(), count, DIST_F32, nullptr);
         },
         [&] {
           MPI_Alltoall(a.data(), n, MPI_FLOAT, b.data(), n, MPI_FLOAT,
                        MPI_COMM_WORLD);
         }},
        {"send_recv",
         [&] {
           dist_send_recv(group, a.data(), next, b.data(), previous, count,
                          DIST_F32, nullptr);
         },
         [&] {
           MPI_Sendrecv(a.data(), n, MPI_FLOAT, next, 0, b.data(), n, MPI_FLOAT,
                        previous, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
         }},
        // permute as dist-lower-to-runtime emits it: the group index picks
        // this rank's partners out of the tables, then send_recv.
        {"permute",
         [&] {
           int64_t me = dist_group_index(group);
           dist_send_recv(group, a.data(), targetOf[me], b.data(), sourceOf[me],
                          count, DIST_F32, nullptr);
         },
         [&] {
           MPI_Sendrecv(a.data(), n, MPI_FLOAT, next, 0, b.data(), n, MPI_FLOAT,
                        previous, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
         }},
    };
    if (count == 0)
      continue;
    for (Case &c : cases) {
      if (only && std::strcmp(only, c.name) != 0)
        continue;
      // Zeros: a batch of in-place sums never overflows (or denormalizes).
      Comparison result =
          compare(reps, baseline ? c.mpi : c.runtime, c.mpi,
                  [&] { std::fill(a.begin(), a.end(), 0.0f); });
      if (rank == 0)
        std::printf("| %s | %lld | %.2f | %.2f | %.3f |\n", c.name,
                    (long long)bytes, result.runtime * 1e6, result.mpi * 1e6,
                    result.ratio);
    }
  }
  dist_finalize();
  return 0;
}
