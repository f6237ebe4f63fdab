#include "runners/distributed/rendezvous.h"

#include <stdexcept>

#include "runners/distributed/gloo_group.h"
#include "runners/distributed/nccl_group.h"

namespace dlfuzz {

std::unique_ptr<Rendezvous> make_rendezvous(const std::string& backend, int world, std::chrono::milliseconds timeout) {
  if (backend == "gloo") {
    if (!have_gloo())
      throw std::runtime_error("this dlfuzz build has no Gloo: programs with world > 1 need DLFUZZ_TORCH=debian");
    return std::make_unique<GlooRendezvous>(world, timeout);
  }
  if (backend == "nccl") return make_nccl_rendezvous(world);
  throw std::runtime_error("unknown distributed backend '" + backend + "' (gloo, nccl)");
}

}  // namespace dlfuzz
