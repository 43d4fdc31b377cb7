//===- FakeNccl.cpp - NCCL's collectives over MPI on the host, for tests --===//
//
// Loaded by the nccl backend through DIST_NCCL_LIBRARY on machines without a
// GPU (with FakeCudaDriver.cpp as libcuda.so.1): communicators are MPI
// communicators split by the unique id, buffers are host memory, and every
// collective completes when it is issued. Reductions gather every rank's
// input and reduce in rank order; like NCCL it has no 16-bit integers and no
// bitwise reductions, and it refuses integer averages, so a backend that
// sent those here would fail the runtime test. FAKE_NCCL_ASYNC_ERROR=1 makes
// ncclCommGetAsyncError report a remote error.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include <mpi.h>
#include <nccl.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

struct ncclComm {
  MPI_Comm comm;
  int rank, size;
};

namespace {

constexpr uint32_t kMagic = 0xfa4ec011;

struct FakeId {
  uint32_t magic;
  int32_t creator, serial;
};

/// MPI started by the host backend (mpi), or here when the job runs on
/// another host backend (one process started by launch.py).
void ensureMpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init(nullptr, nullptr);
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized)
        MPI_Finalize();
    });
  }
}

int worldRank() {
  ensureMpi();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

size_t typeSize(ncclDataType_t type) {
  switch (type) {
  case ncclInt8: case ncclUint8: return 1;
  case ncclFloat16: case ncclBfloat16: return 2;
  case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
  case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
  default: return 0;
  }
}

bool isFloat(ncclDataType_t type) {
  return type == ncclFloat16 || type == ncclBfloat16 || type == ncclFloat32 ||
         type == ncclFloat64;
}

double load(const char *p, ncclDataType_t type) {
  switch (type) {
  case ncclInt8: return *(const int8_t *)p;
  case ncclUint8: return *(const uint8_t *)p;
  case ncclInt32: return *(const int32_t *)p;
  case ncclUint32: return *(const uint32_t *)p;
  case ncclInt64: return (double)*(const int64_t *)p;
  case ncclUint64: return (double)*(const uint64_t *)p;
  case ncclFloat16: return distrt::halfToFloat(*(const uint16_t *)p);
  case ncclBfloat16: return distrt::bf16ToFloat(*(const uint16_t *)p);
  case ncclFloat32: return *(const float *)p;
  case ncclFloat64: return *(const double *)p;
  default: return 0;
  }
}

/// Integers wrap as the type does; the values the tests use are exact in
/// double, except i64 sums beyond 2^53, which they do not reach.
void store(char *p, double v, ncclDataType_t type) {
  switch (type) {
  case ncclInt8: *(int8_t *)p = (int8_t)(int64_t)v; break;
  case ncclUint8: *(uint8_t *)p = (uint8_t)(int64_t)v; break;
  case ncclInt32: *(int32_t *)p = (int32_t)(int64_t)v; break;
  case ncclUint32: *(uint32_t *)p = (uint32_t)(int64_t)v; break;
  case ncclInt64: *(int64_t *)p = (int64_t)v; break;
  case ncclUint64: *(uint64_t *)p = (uint64_t)v; break;
  case ncclFloat16: *(uint16_t *)p = distrt::floatToHalf((float)v); break;
  case ncclBfloat16: *(uint16_t *)p = distrt::floatToBf16((float)v); break;
  case ncclFloat32: *(float *)p = (float)v; break;
  case ncclFloat64: *(double *)p = v; break;
  default: break;
  }
}

/// Reduces block `block` (of `count` elements) of every rank's `input` into
/// `output`.
ncclResult_t reduceBlock(const void *input, void *output, size_t count,
                         size_t block, ncclDataType_t type, ncclRedOp_t op,
                         ncclComm *comm) {
  size_t size = typeSize(type);
  if (!size || op < ncclSum || op > ncclAvg || (op == ncclAvg && !isFloat(type)))
    return ncclInvalidArgument;
  size_t total = count * (block == SIZE_MAX ? 1 : (size_t)comm->size);
  size_t offset = block == SIZE_MAX ? 0 : block * count;
  std::vector<char> all(total * size * comm->size);
  MPI_Allgather(input, (int)(total * size), MPI_BYTE, all.data(),
                (int)(total * size), MPI_BYTE, comm->comm);
  for (size_t i = 0; i < count; ++i) {
    double acc = 0;
    for (int r = 0; r < comm->size; ++r) {
      double v = load(all.data() + (r * total + offset + i) * size, type);
      if (r == 0)
        acc = v;
      else if (op == ncclSum || op == ncclAvg)
        acc += v;
      else if (op == ncclProd)
        acc *= v;
      else if (op == ncclMax)
        acc = v > acc ? v : acc;
      else
        acc = v < acc ? v : acc;
      if (!isFloat(type)) { // wrap after each step, as the type does
        char wrapped[8];
        store(wrapped, acc, type);
        acc = load(wrapped, type);
      }
    }
    if (op == ncclAvg)
      acc /= comm->size;
    store(static_cast<char *>(output) + i * size, acc, type);
  }
  return ncclSuccess;
}

struct PointToPoint {
  bool send;
  void *buffer;
  size_t bytes;
  int peer;
  ncclComm *comm;
};
std::vector<PointToPoint> pending;
int groupDepth = 0;

ncclResult_t flush() {
  std::vector<MPI_Request> requests(pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    PointToPoint &p = pending[i];
    if (p.send)
      MPI_Isend(p.buffer, (int)p.bytes, MPI_BYTE, p.peer, 0, p.comm->comm,
                &requests[i]);
    else
      MPI_Irecv(p.buffer, (int)p.bytes, MPI_BYTE, p.peer, 0, p.comm->comm,
                &requests[i]);
  }
  pending.clear();
  MPI_Waitall((int)requests.size(), requests.data(), MPI_STATUSES_IGNORE);
  return ncclSuccess;
}

ncclResult_t add(PointToPoint p) {
  if (p.peer < 0 || p.peer >= p.comm->size || p.peer == p.comm->rank)
    return ncclInvalidArgument; // dist copies to itself without NCCL
  pending.push_back(p);
  return groupDepth ? ncclSuccess : flush();
}

} // namespace

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

FAKE_EXPORT ncclResult_t ncclGetVersion(int *version) {
  *version = 22800;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  static int32_t serial = 0;
  FakeId fake{kMagic, worldRank(), ++serial};
  std::memset(id, 0, sizeof(*id));
  std::memcpy(id->internal, &fake, sizeof(fake));
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
                                          ncclUniqueId id, int rank) {
  ensureMpi();
  FakeId fake;
  std::memcpy(&fake, id.internal, sizeof(fake));
  if (fake.magic != kMagic)
    return ncclInvalidArgument; // not an id ncclGetUniqueId made
  auto *created = new ncclComm();
  MPI_Comm_split(MPI_COMM_WORLD, fake.creator * 4096 + fake.serial, rank,
                 &created->comm);
  MPI_Comm_rank(created->comm, &created->rank);
  MPI_Comm_size(created->comm, &created->size);
  if (created->size != nranks || created->rank != rank)
    return ncclInvalidUsage;
  *comm = created;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Comm_free(&comm->comm);
  delete comm;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommAbort(ncclComm_t) { return ncclSuccess; }

FAKE_EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t *error) {
  const char *fail = std::getenv("FAKE_NCCL_ASYNC_ERROR");
  *error = fail && std::strcmp(fail, "1") == 0 ? ncclRemoteError : ncclSuccess;
  return ncclSuccess;
}

FAKE_EXPORT const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess: return "no error";
  case ncclInvalidArgument: return "invalid argument";
  case ncclInvalidUsage: return "invalid usage";
  case ncclRemoteError: return "remote process exited or there was a network error";
  default: return "unhandled error";
  }
}

FAKE_EXPORT const char *ncclGetLastError(ncclComm_t) {
  return "fake NCCL: a peer failed";
}

FAKE_EXPORT ncclResult_t ncclAllReduce(const void *send, void *recv,
                                       size_t count, ncclDataType_t type,
                                       ncclRedOp_t op, ncclComm_t comm,
                                       cudaStream_t) {
  std::vector<char> copy((const char *)send,
                         (const char *)send + count * typeSize(type));
  return reduceBlock(copy.data(), recv, count, SIZE_MAX, type, op, comm);
}

FAKE_EXPORT ncclResult_t ncclReduce(const void *send, void *recv, size_t count,
                                    ncclDataType_t type, ncclRedOp_t op,
                                    int root, ncclComm_t comm, cudaStream_t) {
  if (root < 0 || root >= comm->size)
    return ncclInvalidArgument;
  std::vector<char> copy((const char *)send,
                         (const char *)send + count * typeSize(type));
  std::vector<char> result(count * typeSize(type));
  ncclResult_t status =
      reduceBlock(copy.data(), result.data(), count, SIZE_MAX, type, op, comm);
  if (status == ncclSuccess && comm->rank == root)
    std::memcpy(recv, result.data(), result.size());
  return status;
}

FAKE_EXPORT ncclResult_t ncclBroadcast(const void *send, void *recv,
                                       size_t count, ncclDataType_t type,
                                       int root, ncclComm_t comm,
                                       cudaStream_t) {
  size_t bytes = count * typeSize(type);
  if (!typeSize(type) || root < 0 || root >= comm->size)
    return ncclInvalidArgument;
  if (comm->rank == root && send != recv)
    std::memmove(recv, send, bytes);
  MPI_Bcast(recv, (int)bytes, MPI_BYTE, root, comm->comm);
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclAllGather(const void *send, void *recv,
                                       size_t count, ncclDataType_t type,
                                       ncclComm_t comm, cudaStream_t) {
  size_t bytes = count * typeSize(type);
  if (!typeSize(type))
    return ncclInvalidArgument;
  MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE,
                comm->comm);
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclReduceScatter(const void *send, void *recv,
                                           size_t count, ncclDataType_t type,
                                           ncclRedOp_t op, ncclComm_t comm,
                                           cudaStream_t) {
  return reduceBlock(send, recv, count, (size_t)comm->rank, type, op, comm);
}

FAKE_EXPORT ncclResult_t ncclSend(const void *send, size_t count,
                                  ncclDataType_t type, int peer,
                                  ncclComm_t comm, cudaStream_t) {
  return add({true, const_cast<void *>(send), count * typeSize(type), peer,
              comm});
}

FAKE_EXPORT ncclResult_t ncclRecv(void *recv, size_t count, ncclDataType_t type,
                                  int peer, ncclComm_t comm, cudaStream_t) {
  return add({false, recv, count * typeSize(type), peer, comm});
}

FAKE_EXPORT ncclResult_t ncclGroupStart() {
  ++groupDepth;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclGroupEnd() {
  if (groupDepth == 0)
    return ncclInvalidUsage;
  return --groupDepth ? ncclSuccess : flush();
}
