//===- runtime_overhead.cpp - Instructions the runtime adds per call ------===//
//
// Makes `calls` collectives of 8 bytes, either through the runtime or as the
// same MPI call, on one rank. Run under callgrind by runtime_overhead.sh:
// the difference of the two instruction counts over `calls` is what the
// runtime adds to each call (checks, the backend's dispatch, the watchdog;
// for all_reduce_start the request's bookkeeping),
// exactly and independently of the machine's load.
//
//===----------------------------------------------------------------------===//

#include "dist/Runtime/DistRuntime.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s COLLECTIVE runtime|mpi CALLS\n", argv[0]);
    return 2;
  }
  std::string name = argv[1];
  bool viaRuntime = std::strcmp(argv[2], "runtime") == 0;
  int calls = std::atoi(argv[3]);
  dist_init(&argc, &argv);
  int64_t mesh = dist_world_size(), axis = 0;
  dist_group_t *group = dist_get_group(&mesh, 1, &axis, 1, /*comm=*/0);
  int rank = dist_world_rank(), size = dist_world_size();
  // 2 floats per rank (8 bytes); gathered and scattered buffers hold them all.
  float a[2 * 64] = {}, b[2 * 64] = {};
  const int n = 2;
  int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  for (int i = 0; i < calls; ++i) {
    if (name == "all_reduce") {
      if (viaRuntime)
        dist_all_reduce(group, a, n, DIST_F32, DIST_SUM, nullptr);
      else
        MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else if (name == "all_gather") {
      if (viaRuntime)
        dist_all_gather(group, a, b, n, DIST_F32, nullptr);
      else
        MPI_Allgather(a, n, MPI_FLOAT, b, n, MPI_FLOAT, MPI_COMM_WORLD);
    } else if (name == "reduce_scatter") {
      if (viaRuntime)
        dist_reduce_scatter(group, a, b, n, DIST_F32, DIST_SUM, nullptr);
      else
        MPI_Reduce_scatter_block(a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else if (name == "broadcast") {
      if (viaRuntime)
        dist_broadcast(group, a, n, DIST_F32, 0, nullptr);
      else
        MPI_Bcast(a, n, MPI_FLOAT, 0, MPI_COMM_WORLD);
    } else if (name == "reduce") {
      if (viaRuntime)
        dist_reduce(group, a, n, DIST_F32, DIST_SUM, 0, nullptr);
      else
        MPI_Reduce(rank == 0 ? MPI_IN_PLACE : a, rank == 0 ? a : nullptr, n,
                   MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    } else if (name == "all_to_all") {
      if (viaRuntime)
        dist_all_to_all(group, a, b, n, DIST_F32, nullptr);
      else
        MPI_Alltoall(a, n, MPI_FLOAT, b, n, MPI_FLOAT, MPI_COMM_WORLD);
    } else if (name == "send_recv") {
      if (viaRuntime)
        dist_send_recv(group, a, next, b, previous, n, DIST_F32, nullptr);
      else
        MPI_Sendrecv(a, n, MPI_FLOAT, next, 0, b, n, MPI_FLOAT, previous, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (name == "all_reduce_start") {
      if (viaRuntime) {
        dist_wait(dist_all_reduce_start(group, a, n, DIST_F32, DIST_SUM, nullptr));
      } else {
        MPI_Request request;
        MPI_Iallreduce(MPI_IN_PLACE, a, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                       &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
      }
    } else {
      std::fprintf(stderr, "unknown collective '%s'\n", name.c_str());
      return 2;
    }
  }
  dist_finalize();
  return 0;
}
