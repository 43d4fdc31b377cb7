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
