// How the ranks of one distributed run find each other: each rank's thread
// calls join() concurrently and gets its end of the process group. Backends:
// "gloo" (CPU, TCP on 127.0.0.1; gloo_group.cpp) and "nccl" (one rank per
// GPU; nccl_group.cpp).
#pragma once
#include <chrono>
#include <memory>
#include <string>

#include "runners/distributed/rank_context.h"

namespace dlfuzz {

class Rendezvous {
 public:
  virtual ~Rendezvous() = default;
  // Blocks until every rank has joined; throws std::runtime_error.
  virtual std::unique_ptr<RankGroup> join(int rank) = 0;
};

// Throws std::runtime_error with a message a person can act on when the
// backend is unknown, not built in, or has no device for `world` ranks.
std::unique_ptr<Rendezvous> make_rendezvous(const std::string& backend, int world, std::chrono::milliseconds timeout);

}  // namespace dlfuzz
