//===- runtime_collectives.cpp - Runtime collectives vs direct MPI --------===//
//
// Times each collective through the dist runtime and the same MPI call made
// directly, for message sizes 8 B .. 64 MiB, and prints one row per size:
// the median time of each and their ratio. Run on 4 processes:
//
//   mpirun -np 4 build/bench/dist-bench-runtime [--max-bytes N] [--reps N]
//
// The runtime adds its group lookup (cached), its layout work (none for the
// contiguous dim-0 forms timed here) and a nonblocking call with a deadline.
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

static double medianSeconds(int reps, const std::function<void()> &call) {
  std::vector<double> times;
  call(); // warm up
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    call();
    double local = MPI_Wtime() - start, slowest = 0;
    // A collective takes as long as its slowest rank.
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times.push_back(slowest);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char **argv) {
  dist_init(&argc, &argv);
  int64_t maxBytes = 64ll << 20;
  int reps = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--max-bytes") == 0)
      maxBytes = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--reps") == 0)
      reps = std::atoi(argv[i + 1]);
  }
  int rank = dist_world_rank(), size = dist_world_size();
  int64_t mesh = size, axis = 0;
  dist_group_t *group = dist_get_group(&mesh, 1, &axis, 1);

  if (rank == 0)
    std::printf("| collective | bytes | runtime (us) | MPI (us) | runtime / MPI |\n"
                "|---|---|---|---|---|\n");
  for (int64_t bytes = 8; bytes <= maxBytes; bytes *= 8) {
    int64_t count = bytes / 4; // f32 elements
    std::vector<float> a(count * size, 1.0f), b(count * size, 0.0f);
    int n = (int)count;
    struct Case {
      const char *name;
      std::function<void()> runtime, mpi;
    };
    int64_t gatherShape[1] = {count}, scatterShape[1] = {count * size};
    std::vector<Case> cases = {
        {"all_reduce",
         [&] { dist_all_reduce(group, a.data(), count, DIST_F32, DIST_SUM); },
         [&] {
           MPI_Allreduce(MPI_IN_PLACE, a.data(), n, MPI_FLOAT, MPI_SUM,
                         MPI_COMM_WORLD);
         }},
        {"all_gather",
         [&] {
           dist_all_gather(group, a.data(), b.data(), gatherShape, 1, 0, DIST_F32);
         },
         [&] {
           MPI_Allgather(a.data(), n, MPI_FLOAT, b.data(), n, MPI_FLOAT,
                         MPI_COMM_WORLD);
         }},
        {"reduce_scatter",
         [&] {
           dist_reduce_scatter(group, a.data(), b.data(), scatterShape, 1, 0,
                               DIST_F32, DIST_SUM);
         },
         [&] {
           MPI_Reduce_scatter_block(a.data(), b.data(), n, MPI_FLOAT, MPI_SUM,
                                    MPI_COMM_WORLD);
         }},
        {"broadcast",
         [&] { dist_broadcast(group, a.data(), count, DIST_F32, 0); },
         [&] { MPI_Bcast(a.data(), n, MPI_FLOAT, 0, MPI_COMM_WORLD); }},
        {"reduce",
         [&] { dist_reduce(group, a.data(), count, DIST_F32, DIST_SUM, 0); },
         [&] {
           MPI_Reduce(rank == 0 ? MPI_IN_PLACE : a.data(),
                      rank == 0 ? a.data() : nullptr, n, MPI_FLOAT, MPI_SUM, 0,
                      MPI_COMM_WORLD);
         }},
    };
    if (count == 0)
      continue;
    for (Case &c : cases) {
      // Reset the data so sums do not overflow into infinities.
      std::fill(a.begin(), a.end(), 1.0f / size);
      double runtime = medianSeconds(reps, c.runtime);
      std::fill(a.begin(), a.end(), 1.0f / size);
      double mpi = medianSeconds(reps, c.mpi);
      if (rank == 0)
        std::printf("| %s | %lld | %.1f | %.1f | %.2f |\n", c.name,
                    (long long)bytes, runtime * 1e6, mpi * 1e6, runtime / mpi);
    }
  }
  dist_finalize();
  return 0;
}
