//===- Backend.cpp - The backend registry and the generic blocking call ---===//

#include "Backend.h"

#include <algorithm>

using namespace distrt;

namespace {
struct Entry {
  std::string name;
  int priority;
  BackendFactory factory;
};

/// A function-local static: backends register from their files' static
/// initializers, in any order.
std::vector<Entry> &registry() {
  static std::vector<Entry> entries;
  return entries;
}
} // namespace

void distrt::registerBackend(const char *name, int priority,
                             BackendFactory factory) {
  std::vector<Entry> &entries = registry();
  for (const Entry &entry : entries)
    if (entry.name == name)
      failf("two backends register the name '%s'", name);
  // Kept by decreasing priority; equal priorities in registration order.
  auto position = std::find_if(entries.begin(), entries.end(),
                               [&](const Entry &entry) {
                                 return entry.priority < priority;
                               });
  entries.insert(position, {name, priority, factory});
}

std::vector<std::string> distrt::registeredBackends() {
  std::vector<std::string> names;
  for (const Entry &entry : registry())
    names.push_back(entry.name);
  return names;
}

std::unique_ptr<Backend> distrt::createBackend(const std::string &name) {
  for (const Entry &entry : registry())
    if (name.empty() || entry.name == name)
      return entry.factory();
  return nullptr;
}

void Backend::run(const Collective &c) {
  Communicator &comm = *c.comm;
  switch (c.kind) {
  case CollectiveKind::AllReduce:
    return allReduce(comm, c.output, c.count, c.dtype, c.reduction, c.what);
  case CollectiveKind::Reduce:
    return reduce(comm, c.output, c.count, c.dtype, c.reduction, c.root,
                  c.what);
  case CollectiveKind::Broadcast:
    return broadcast(comm, c.output, c.count, c.dtype, c.root, c.what);
  case CollectiveKind::AllGather:
    return allGather(comm, c.input, c.output, c.count, c.dtype, c.what);
  case CollectiveKind::ReduceScatter:
    return reduceScatter(comm, c.input, c.output, c.count, c.dtype,
                         c.reduction, c.what);
  case CollectiveKind::AllToAll:
    return allToAll(comm, c.input, c.output, c.count, c.dtype, c.what);
  case CollectiveKind::SendRecv:
    return sendRecv(comm, c.input, c.root, c.output, c.source, c.count,
                    c.dtype, c.what);
  }
}

void DescriptorBackend::allReduce(Communicator &comm, void *buffer,
                                  int64_t count, dist_dtype_t dtype,
                                  dist_reduction_t reduction,
                                  const char *what) {
  run({CollectiveKind::AllReduce, &comm, buffer, buffer, count, dtype,
       reduction, 0, 0, nullptr, what});
}
void DescriptorBackend::reduce(Communicator &comm, void *buffer, int64_t count,
                               dist_dtype_t dtype, dist_reduction_t reduction,
                               int64_t root, const char *what) {
  run({CollectiveKind::Reduce, &comm, buffer, buffer, count, dtype, reduction,
       root, 0, nullptr, what});
}
void DescriptorBackend::broadcast(Communicator &comm, void *buffer,
                                  int64_t count, dist_dtype_t dtype,
                                  int64_t root, const char *what) {
  run({CollectiveKind::Broadcast, &comm, buffer, buffer, count, dtype,
       DIST_SUM, root, 0, nullptr, what});
}
void DescriptorBackend::allGather(Communicator &comm, const void *input,
                                  void *output, int64_t count,
                                  dist_dtype_t dtype, const char *what) {
  run({CollectiveKind::AllGather, &comm, input, output, count, dtype, DIST_SUM,
       0, 0, nullptr, what});
}
void DescriptorBackend::reduceScatter(Communicator &comm, const void *input,
                                      void *output, int64_t count,
                                      dist_dtype_t dtype,
                                      dist_reduction_t reduction,
                                      const char *what) {
  run({CollectiveKind::ReduceScatter, &comm, input, output, count, dtype,
       reduction, 0, 0, nullptr, what});
}
void DescriptorBackend::allToAll(Communicator &comm, const void *input,
                                 void *output, int64_t count,
                                 dist_dtype_t dtype, const char *what) {
  run({CollectiveKind::AllToAll, &comm, input, output, count, dtype, DIST_SUM,
       0, 0, nullptr, what});
}
void DescriptorBackend::sendRecv(Communicator &comm, const void *input,
                                 int64_t target, void *output, int64_t source,
                                 int64_t count, dist_dtype_t dtype,
                                 const char *what) {
  run({CollectiveKind::SendRecv, &comm, input, output, count, dtype, DIST_SUM,
       target, source, nullptr, what});
}

//===----------------------------------------------------------------------===//
// Staged reductions
//===----------------------------------------------------------------------===//

const char *distrt::collectiveName(CollectiveKind kind) {
  static const char *const names[] = {"all_reduce",     "reduce",
                                      "broadcast",      "all_gather",
                                      "reduce_scatter", "all_to_all",
                                      "send_recv"};
  return (unsigned)kind <= (unsigned)CollectiveKind::SendRecv
             ? names[(unsigned)kind]
             : "an unknown collective";
}

bool distrt::isReducing(CollectiveKind kind) {
  return kind == CollectiveKind::AllReduce || kind == CollectiveKind::Reduce ||
         kind == CollectiveKind::ReduceScatter;
}

Collective distrt::stage(const Collective &user, Staging &staging) {
  Collective sent = user;
  staging.divide = staging.narrowBack = false;
  if (!isReducing(user.kind))
    return sent;
  if (user.reduction == DIST_AVG) {
    staging.divide = true;
    sent.reduction = DIST_SUM;
  }
  if (!needsWidening(user.dtype, user.reduction))
    return sent;
  staging.narrowBack = true;
  sent.dtype = widenedType(user.dtype);
  int64_t wideSize = elementSize(sent.dtype);
  staging.wideOut.resize(user.count * wideSize);
  sent.output = staging.wideOut.data();
  if (user.kind == CollectiveKind::ReduceScatter) {
    int64_t total = user.count * user.comm->size();
    staging.wideIn.resize(total * wideSize);
    widen(user.input, staging.wideIn.data(), total, user.dtype);
    sent.input = staging.wideIn.data();
  } else {
    widen(user.output, staging.wideOut.data(), user.count, user.dtype);
    sent.input = sent.output;
  }
  return sent;
}

void distrt::finish(const Collective &user, const Collective &sent,
                    const Staging &staging) {
  if (user.kind == CollectiveKind::Reduce && user.comm->rank() != user.root)
    return; // the other ranks keep their input
  if (staging.divide)
    divideBy(sent.output, sent.count, sent.dtype, user.comm->size());
  if (staging.narrowBack)
    narrow(sent.output, user.output, user.count, user.dtype);
}
