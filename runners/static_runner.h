// `static`: Static Runtime (torch::jit::StaticModule) over the frozen module of
// an inference program, with its out-variant ops and memory planner on. The
// layer ladder's rungs turn them off: `static-noplan` keeps the out variants
// without the memory planner, `static-noout` runs Static Runtime's graph
// passes and interpreter over the ops as they are.
// Built when scripts/setup.sh obtained Static Runtime's headers (not shipped by
// libtorch-dev) from Debian's source package into .deps/.
#pragma once
#include "runners/runner.h"

namespace dlfuzz {

struct StaticSteps {
  bool out_variants = true;    // out variants and their copy variants
  bool memory_planner = true;  // optimize_memory (needs out variants)
};

class StaticRunner : public Runner {
 public:
  StaticRunner(std::string name, StaticSteps steps) : name_(std::move(name)), steps_(steps) {}
  std::string name() const override { return name_; }
  RunResult run(const Program& p, const RunConfig& cfg) override;

 private:
  std::string name_;
  StaticSteps steps_;
};

}  // namespace dlfuzz
