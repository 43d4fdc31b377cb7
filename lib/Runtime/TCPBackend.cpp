//===- TCPBackend.cpp - The dist runtime over a TCP store -----------------===//
//
// The "tcp" backend (DIST_BACKEND=tcp) needs no communication library: a job
// whose processes were started with PyTorch's env:// variables (RANK,
// WORLD_SIZE, MASTER_ADDR, MASTER_PORT; scripts/launch.py sets them) meets at
// a store that rank 0 serves on MASTER_PORT. Every rank, rank 0 included, is
// a client of the store: a collective sends the rank's part and waits for its
// result; the store answers a group's members once all of them arrived. It is
// a rendezvous, not a fast path: everything goes through rank 0. It starts
// the nccl backend where there is no MPI (its unique ids and agreement
// checks travel here), and runs CPU jobs without mpirun.
//
// Never a hang: a client waits for its answer at most the timeout
// (DIST_TIMEOUT_SECONDS), and a rank whose connection closes before it said
// goodbye (it died) ends every waiting rank's job with an error naming it.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace distrt;

namespace {

enum class Op : uint32_t {
  Hello,
  Agree,
  Split,
  Collective,
  Bye,
  Reply,
  Abort,
  Mismatch, // the group's members called different collectives
};

constexpr uint32_t kMagic = 0xd157c0de;

/// Every message: a header and `bytes` of payload.
struct Header {
  uint32_t magic = kMagic;
  Op op = Op::Reply;
  int64_t group = 0; // the store's group id (0: the world)
  int64_t seq = 0;   // the sender's count of calls on that group
  int64_t index = 0; // the sender's index in the group (split: the result's)
  int64_t count = 0; // elements (of one block); split: the group's size
  int64_t root = 0;  // reduce/broadcast root, send_recv target; agree/split key
  int64_t source = 0; // send_recv source; split color
  int64_t bytes = 0;
  int32_t dtype = 0, reduction = 0, kind = 0, rank = 0;
};

using Clock = std::chrono::steady_clock;

/// The time a transfer may take: the runtime's timeout.
Clock::time_point deadlineFromNow() {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(getTimeoutSeconds()));
}

/// Waits until `fd` is ready for `events` or `deadline` passed (false).
bool waitFor(int fd, short events, Clock::time_point deadline) {
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - Clock::now())
                    .count();
    if (left <= 0)
      return false;
    pollfd waiting{fd, events, 0};
    int ready = ::poll(&waiting, 1, (int)std::min<int64_t>(left, 1 << 30));
    if (ready > 0)
      return true;
    if (ready < 0 && errno != EINTR)
      return true; // let the transfer report the error
  }
}

/// Writes all of `data` before `deadline`; false when the peer is gone or
/// does not read.
bool writeAll(int fd, const void *data, size_t size,
              Clock::time_point deadline) {
  auto *p = static_cast<const char *>(data);
  while (size) {
    if (!waitFor(fd, POLLOUT, deadline))
      return false;
    ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= (size_t)n;
  }
  return true;
}

/// Reads all of `size` bytes before `deadline`; false on end of stream,
/// error or timeout.
bool readAll(int fd, void *data, size_t size, Clock::time_point deadline) {
  auto *p = static_cast<char *>(data);
  while (size) {
    if (!waitFor(fd, POLLIN, deadline))
      return false;
    ssize_t n = ::recv(fd, p, size, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= (size_t)n;
  }
  return true;
}

bool readAll(int fd, void *data, size_t size) {
  return readAll(fd, data, size, deadlineFromNow());
}

bool send(int fd, const Header &header, const void *payload) {
  Clock::time_point deadline = deadlineFromNow();
  return writeAll(fd, &header, sizeof(header), deadline) &&
         (header.bytes == 0 ||
          writeAll(fd, payload, (size_t)header.bytes, deadline));
}

//===----------------------------------------------------------------------===//
// The store (a thread of rank 0)
//===----------------------------------------------------------------------===//

class Store {
public:
  Store(int listener, int worldSize) : listener(listener), size(worldSize) {}

  /// Serves until every rank said goodbye or one left without it. (A rank
  /// that never connects leaves the others waiting for answers: their
  /// timeouts end the job.)
  void serve() {
    clients.assign(size, -1);
    for (int accepted = 0; accepted < size; ++accepted) {
      int fd = ::accept(listener, nullptr, nullptr);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) {
          --accepted;
          continue;
        }
        ::close(listener);
        return abortAll(-1);
      }
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      Header hello;
      if (!readAll(fd, &hello, sizeof(hello)) || hello.magic != kMagic ||
          hello.op != Op::Hello || hello.rank < 0 || hello.rank >= size ||
          clients[hello.rank] >= 0) {
        ::close(fd);
        --accepted;
        continue;
      }
      clients[hello.rank] = fd;
    }
    ::close(listener);
    groups.push_back({});
    for (int r = 0; r < size; ++r)
      groups[0].push_back(r);
    std::vector<bool> done(size, false);
    int remaining = size;
    std::vector<pollfd> fds(size);
    while (remaining > 0) {
      for (int r = 0; r < size; ++r)
        fds[r] = {done[r] ? -1 : clients[r], POLLIN, 0};
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR)
          continue;
        return abortAll(-1);
      }
      for (int r = 0; r < size; ++r) {
        if (done[r] || !(fds[r].revents & (POLLIN | POLLHUP | POLLERR)))
          continue;
        Header header;
        std::vector<char> payload;
        if (!readAll(clients[r], &header, sizeof(header)) ||
            header.magic != kMagic ||
            (header.bytes &&
             (payload.resize((size_t)header.bytes),
              !readAll(clients[r], payload.data(), payload.size())))) {
          return abortAll(r);
        }
        if (header.op == Op::Bye) {
          done[r] = true;
          --remaining;
          continue;
        }
        header.rank = r;
        arrive(header, std::move(payload));
      }
    }
    for (int fd : clients)
      ::close(fd);
    finished = true;
  }

  /// Set once the store stopped serving.
  std::atomic<bool> finished{false};

private:
  struct Pending {
    std::vector<Header> headers;
    std::vector<std::vector<char>> payloads;
    int arrived = 0;
  };

  /// A rank left without goodbye: every other rank learns it.
  void abortAll(int gone) {
    finished = true;
    Header abort;
    abort.op = Op::Abort;
    abort.rank = gone;
    for (int r = 0; r < size; ++r)
      if (r != gone && clients[r] >= 0)
        send(clients[r], abort, nullptr);
    for (int fd : clients)
      if (fd >= 0)
        ::close(fd);
  }

  void arrive(const Header &header, std::vector<char> payload) {
    if (header.group < 0 || header.group >= (int64_t)groups.size())
      return;
    const std::vector<int> &members = groups[header.group];
    Pending &p = pending[{header.group, header.seq}];
    if (p.headers.empty()) {
      p.headers.resize(members.size());
      p.payloads.resize(members.size());
    }
    int64_t index = header.op == Op::Collective ? header.index : header.rank;
    if (index < 0 || index >= (int64_t)members.size())
      return;
    p.headers[index] = header;
    p.payloads[index] = std::move(payload);
    if (++p.arrived < (int)members.size())
      return;
    Pending complete = std::move(p);
    pending.erase({header.group, header.seq});
    if (header.op == Op::Agree)
      return answerAgreement(complete);
    if (header.op == Op::Split)
      return answerSplit(complete);
    answerCollective(complete, members);
  }

  void answerAgreement(const Pending &p) {
    bool same = true;
    for (const Header &h : p.headers)
      same &= h.root == p.headers[0].root;
    for (const Header &h : p.headers) {
      Header reply = h;
      reply.op = Op::Reply;
      reply.bytes = 0;
      reply.root = same;
      send(clients[h.rank], reply, nullptr);
    }
  }

  /// Ranks of equal color form a group ordered by key, then world rank.
  void answerSplit(const Pending &p) {
    std::map<int64_t, std::vector<std::pair<int64_t, int>>> byColor;
    for (const Header &h : p.headers)
      byColor[h.source].push_back({h.root, h.rank});
    for (auto &[color, members] : byColor) {
      std::sort(members.begin(), members.end());
      int64_t id = (int64_t)groups.size();
      groups.push_back({});
      for (auto &member : members)
        groups.back().push_back(member.second);
      for (size_t i = 0; i < members.size(); ++i) {
        Header reply;
        reply.op = Op::Reply;
        reply.group = id;
        reply.index = (int64_t)i;
        reply.count = (int64_t)members.size();
        send(clients[members[i].second], reply, nullptr);
      }
    }
  }

  /// Why the members' calls cannot be one collective, or "".
  std::string describeMismatch(const Pending &p) {
    const Header &first = p.headers[0];
    auto kind = (CollectiveKind)first.kind;
    for (size_t i = 1; i < p.headers.size(); ++i) {
      const Header &h = p.headers[i];
      bool rooted =
          kind == CollectiveKind::Reduce || kind == CollectiveKind::Broadcast;
      bool reducing = kind == CollectiveKind::AllReduce ||
                      kind == CollectiveKind::Reduce ||
                      kind == CollectiveKind::ReduceScatter;
      if (h.kind != first.kind || h.count != first.count ||
          h.dtype != first.dtype || (reducing && h.reduction != first.reduction) ||
          (rooted && h.root != first.root)) {
        char text[256];
        std::snprintf(text, sizeof(text),
                      "index 0 called %s (%lld elements of %s, root %lld) "
                      "while index %zu called %s (%lld elements of %s, root "
                      "%lld)",
                      collectiveName(kind), (long long)first.count,
                      dtypeName((dist_dtype_t)first.dtype),
                      (long long)first.root, i,
                      collectiveName((CollectiveKind)h.kind), (long long)h.count,
                      dtypeName((dist_dtype_t)h.dtype), (long long)h.root);
        return text;
      }
    }
    return "";
  }

  void answerCollective(const Pending &p, const std::vector<int> &members) {
    std::string mismatch = describeMismatch(p);
    if (!mismatch.empty()) {
      for (size_t i = 0; i < members.size(); ++i) {
        Header reply = p.headers[i];
        reply.op = Op::Mismatch;
        reply.bytes = (int64_t)mismatch.size();
        send(clients[members[i]], reply, mismatch.data());
      }
      return;
    }
    const Header &first = p.headers[0];
    auto kind = (CollectiveKind)first.kind;
    auto dtype = (dist_dtype_t)first.dtype;
    auto reduction = (dist_reduction_t)first.reduction;
    size_t g = members.size();
    size_t block = (size_t)first.count * (size_t)elementSize(dtype);
    std::vector<std::vector<char>> results(g);
    auto reduceBlock = [&](size_t offset) {
      std::vector<char> sum(p.payloads[0].begin() + offset,
                            p.payloads[0].begin() + offset + block);
      for (size_t j = 1; j < g; ++j)
        reduceInto(sum.data(), p.payloads[j].data() + offset, first.count,
                   dtype, reduction);
      return sum;
    };
    switch (kind) {
    case CollectiveKind::AllReduce: {
      std::vector<char> sum = reduceBlock(0);
      for (size_t i = 0; i < g; ++i)
        results[i] = sum;
      break;
    }
    case CollectiveKind::Reduce:
      results[first.root] = reduceBlock(0);
      break;
    case CollectiveKind::Broadcast:
      for (size_t i = 0; i < g; ++i)
        results[i] = p.payloads[first.root];
      break;
    case CollectiveKind::AllGather:
      for (size_t i = 0; i < g; ++i)
        for (size_t j = 0; j < g; ++j)
          results[i].insert(results[i].end(), p.payloads[j].begin(),
                            p.payloads[j].end());
      break;
    case CollectiveKind::ReduceScatter:
      for (size_t i = 0; i < g; ++i)
        results[i] = reduceBlock(i * block);
      break;
    case CollectiveKind::AllToAll:
      for (size_t i = 0; i < g; ++i)
        for (size_t j = 0; j < g; ++j)
          results[i].insert(results[i].end(),
                            p.payloads[j].begin() + i * block,
                            p.payloads[j].begin() + (i + 1) * block);
      break;
    case CollectiveKind::SendRecv:
      // Index i receives from its source if that source sends to i (else it
      // gets nothing, which its call reports).
      for (size_t i = 0; i < g; ++i) {
        int64_t source = p.headers[i].source;
        if (source >= 0 && source < (int64_t)g &&
            p.headers[source].root == (int64_t)i)
          results[i] = p.payloads[source];
      }
      break;
    }
    for (size_t i = 0; i < g; ++i) {
      Header reply = p.headers[i];
      reply.op = Op::Reply;
      reply.bytes = (int64_t)results[i].size();
      send(clients[members[i]], reply, results[i].data());
    }
  }

  int listener, size;
  std::vector<int> clients;
  std::vector<std::vector<int>> groups; // world ranks by group index
  std::map<std::pair<int64_t, int64_t>, Pending> pending;
};

//===----------------------------------------------------------------------===//
// The backend (every rank a client)
//===----------------------------------------------------------------------===//

class TCPCommunicator : public Communicator {
public:
  TCPCommunicator(int64_t id, int64_t size, int64_t rank)
      : Communicator(size, rank), id(id) {}
  int64_t id;
  int64_t seq = 0;
};

int64_t readVariable(const char *name, int64_t fallback) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return fallback;
  char *end = nullptr;
  long long parsed = std::strtoll(value, &end, 10);
  if (*end)
    failf("%s=%s is not an integer", name, value);
  return parsed;
}

class TCPBackend : public DescriptorBackend {
public:
  const char *name() const override { return "tcp"; }

  void init(int *, char ***) override {
    if (!std::getenv("WORLD_SIZE") || !std::getenv("RANK"))
      fail("the tcp backend needs RANK and WORLD_SIZE (and MASTER_ADDR, "
           "MASTER_PORT): start the job with scripts/launch.py or torchrun");
    size = (int)readVariable("WORLD_SIZE", 1);
    int64_t me = readVariable("RANK", 0);
    if (size < 1 || me < 0 || me >= size)
      failf("RANK=%lld is out of range for WORLD_SIZE=%d", (long long)me,
            size);
    rank = (int)me;
    const char *address = std::getenv("MASTER_ADDR");
    std::string host = address && *address ? address : "127.0.0.1";
    int port = (int)readVariable("MASTER_PORT", 29500);
    if (port <= 0 || port > 65535)
      failf("MASTER_PORT=%d is not a TCP port", port);
    if (rank == 0)
      startStore(host, port);
    connectToStore(host, port);
  }

  /// Rank 0 waits (within the timeout) for the store to see every rank's
  /// goodbye.
  void finalize() override {
    Header bye;
    bye.op = Op::Bye;
    send(fd, bye, nullptr);
    if (server.joinable()) {
      Clock::time_point deadline = deadlineFromNow();
      while (!store->finished && Clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (!store->finished)
        failf("dist_finalize: the tcp store (rank 0) still waits for ranks "
              "that did not finish within %g s",
              getTimeoutSeconds());
      server.join();
    }
    ::close(fd);
  }

  int worldRank() const override { return rank; }
  int worldSize() const override { return size; }
  [[noreturn]] void abortJob(int code) override { std::_Exit(code); }

  void checkAgreement(int64_t key, const char *what) override {
    Header h;
    h.op = Op::Agree;
    h.seq = worldSeq++;
    h.root = key;
    Header reply = exchange(h, nullptr, nullptr, 0, what, "world");
    if (!reply.root)
      failf("%s: the ranks asked for different groups (every rank must "
            "create the same groups in the same order)",
            what);
  }

  std::unique_ptr<Communicator> split(int64_t color, int64_t key) override {
    Header h;
    h.op = Op::Split;
    h.seq = worldSeq++;
    h.source = color;
    h.root = key;
    Header reply = exchange(h, nullptr, nullptr, 0, "dist_get_group", "world");
    return std::make_unique<TCPCommunicator>(reply.group, reply.count,
                                             reply.index);
  }

  /// Sends this rank's part and writes its result. Only rank `root` of a
  /// broadcast and ranks that send of a send_recv carry data to a
  /// broadcast or exchange; only the root of a reduce gets one back.
  void run(const Collective &c) override {
    auto &comm = static_cast<TCPCommunicator &>(*c.comm);
    int64_t g = comm.size(), me = comm.rank();
    size_t block = (size_t)c.count * (size_t)elementSize(c.dtype);
    Header h;
    h.op = Op::Collective;
    h.group = comm.id;
    h.seq = comm.seq++;
    h.index = me;
    h.count = c.count;
    h.root = c.root;
    h.source = c.source;
    h.dtype = c.dtype;
    h.reduction = c.reduction;
    h.kind = (int32_t)c.kind;
    const void *payload = c.input;
    switch (c.kind) {
    case CollectiveKind::AllReduce:
    case CollectiveKind::Reduce:
    case CollectiveKind::AllGather:
      h.bytes = (int64_t)block;
      payload = c.kind == CollectiveKind::AllGather ? c.input : c.output;
      break;
    case CollectiveKind::Broadcast:
      h.bytes = me == c.root ? (int64_t)block : 0;
      payload = c.output;
      break;
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllToAll:
      h.bytes = (int64_t)(block * g);
      break;
    case CollectiveKind::SendRecv:
      h.bytes = c.root >= 0 ? (int64_t)block : 0;
      break;
    }
    size_t expected = c.kind == CollectiveKind::AllGather ||
                              c.kind == CollectiveKind::AllToAll
                          ? block * g
                      : c.kind == CollectiveKind::Reduce && me != c.root ? 0
                      : c.kind == CollectiveKind::SendRecv && c.source < 0
                          ? 0
                          : block;
    exchange(h, payload, c.output, expected, c.what, comm.label());
  }

  std::unique_ptr<Work> start(const Collective &c) override {
    run(c);
    return nullptr;
  }

private:
  /// Sends `h` with `payload`, waits (within the timeout) for the answer and
  /// reads its `expected` bytes into `output`.
  Header exchange(Header &h, const void *payload, void *output,
                  size_t expected, const char *what, const char *group) {
    h.rank = rank;
    if (!send(fd, h, payload))
      failf("%s in group %s: lost the connection to the store (rank 0)", what,
            group);
    double limit = getTimeoutSeconds();
    pollfd waiting{fd, POLLIN, 0};
    int ready;
    do
      ready = ::poll(&waiting, 1,
                     (int)std::max(1.0, std::min(limit * 1000, 2e9)));
    while (ready < 0 && errno == EINTR);
    if (ready == 0)
      failf("%s (tcp store) in group %s did not complete within %g s: a peer "
            "rank died or issued a different collective (DIST_TIMEOUT_SECONDS "
            "sets the limit)",
            what, group, limit);
    Header reply;
    if (!readAll(fd, &reply, sizeof(reply)) || reply.magic != kMagic)
      failf("%s in group %s: lost the connection to the store (rank 0)", what,
            group);
    if (reply.op == Op::Abort)
      failf("%s in group %s: rank %d left the job", what, group, reply.rank);
    if (reply.op == Op::Mismatch) {
      std::string text((size_t)std::max<int64_t>(reply.bytes, 0), '\0');
      readAll(fd, text.data(), text.size());
      failf("%s in group %s: the ranks of the group called different "
            "collectives: %s",
            what, group, text.c_str());
    }
    if ((size_t)reply.bytes != expected)
      failf("%s in group %s: the store answered %lld bytes, expected %zu", what,
            group, (long long)reply.bytes, expected);
    if (expected && !readAll(fd, output, expected))
      failf("%s in group %s: lost the connection to the store (rank 0)", what,
            group);
    return reply;
  }

  void startStore(const std::string &host, int port) {
    int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)port);
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    if (::bind(listener, reinterpret_cast<sockaddr *>(&address),
               sizeof(address)) != 0 ||
        ::listen(listener, size) != 0)
      failf("the tcp store cannot listen on port %d (MASTER_PORT): %s", port,
            std::strerror(errno));
    store = std::make_unique<Store>(listener, size);
    server = std::thread([store = store.get()] { store->serve(); });
    (void)host;
  }

  /// Connects to the store, retrying until it listens or the timeout passed.
  void connectToStore(const std::string &host, int port) {
    addrinfo hints{}, *found = nullptr;
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (int error = getaddrinfo(host.c_str(), std::to_string(port).c_str(),
                                &hints, &found))
      failf("MASTER_ADDR=%s: %s", host.c_str(), gai_strerror(error));
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration<double>(getTimeoutSeconds());
    while (true) {
      fd = ::socket(AF_INET, SOCK_STREAM, 0);
      if (::connect(fd, found->ai_addr, found->ai_addrlen) == 0)
        break;
      ::close(fd);
      if (std::chrono::steady_clock::now() > deadline) {
        freeaddrinfo(found);
        failf("cannot reach the tcp store at %s:%d (rank 0) within %g s",
              host.c_str(), port, getTimeoutSeconds());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    freeaddrinfo(found);
    int flag = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &flag, sizeof(flag));
    Header hello;
    hello.op = Op::Hello;
    hello.rank = rank;
    if (!send(fd, hello, nullptr))
      failf("cannot reach the tcp store at %s:%d (rank 0)", host.c_str(), port);
  }

  int rank = -1, size = 1, fd = -1;
  int64_t worldSeq = 0;
  std::unique_ptr<Store> store; // rank 0's
  std::thread server;
};

BackendRegistration registration("tcp", /*priority=*/-1, [] {
  return std::unique_ptr<Backend>(new TCPBackend());
});

} // namespace
