// `static`: Static Runtime (torch::jit::StaticModule) over the frozen module of
// an inference program, with its out-variant ops and memory planner on.
// Built when scripts/setup.sh obtained Static Runtime's headers (not shipped by
// libtorch-dev) from Debian's source package into .deps/.
#pragma once
#include "runners/runner.h"

namespace dlfuzz {

class StaticRunner : public Runner {
 public:
  std::string name() const override { return "static"; }
  RunResult run(const Program& p, const RunConfig& cfg) override;
};

}  // namespace dlfuzz
