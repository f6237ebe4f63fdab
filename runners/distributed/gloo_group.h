// Ranks as threads of one process, connected by c10d's ProcessGroupGloo over
// a shared HashStore (the TCP transport on 127.0.0.1), or as processes that
// meet through a TCPStore. Gloo lacks AVG and
// reduce_scatter: avg is a sum divided by the world size, reduce_scatter is
// built in collectives.cpp.
#pragma once
#include <chrono>
#include <memory>

#include "runners/distributed/rendezvous.h"

namespace dlfuzz {

class GlooRendezvous : public Rendezvous {
 public:
  GlooRendezvous(int world, std::chrono::milliseconds timeout);
  ~GlooRendezvous() override;
  // Throws when this build has no Gloo.
  std::unique_ptr<RankGroup> join(int rank) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

bool have_gloo();

// Ranks as processes: the parent serves a TCPStore on 127.0.0.1 (a free port)
// and each rank process joins its Gloo group through it.
class StoreServer {
 public:
  explicit StoreServer(std::chrono::milliseconds timeout);  // throws
  ~StoreServer();
  int port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
std::unique_ptr<RankGroup> join_gloo_over_tcp(int port, int rank, int world, std::chrono::milliseconds timeout);

}  // namespace dlfuzz
