// The runner interface and registry. A runner executes a program through one
// path (eager, a compiler, ...) and never throws for failures of the system
// under test: they come back as RunResult data.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runners/run_result.h"

namespace dlfuzz {

struct RunConfig {
  int warmup = 3;  // calls before the measured one, so executors specialize
  int collective_timeout_ms = 5000;  // a rank waiting longer in a collective fails (a hang)
  std::string backend = "gloo";      // ranks' process groups: gloo (CPU threads) or nccl (one GPU each)
  bool rank_processes = false;       // Gloo ranks as child processes (TCPStore) instead of threads (HashStore)
};

class Runner {
 public:
  virtual ~Runner() = default;
  virtual std::string name() const = 0;
  virtual RunResult run(const Program& p, const RunConfig& cfg) = 0;
  // False where the path does not apply (freezing a training program).
  virtual bool supports(const Program& p) const { return true; }
};

// nullptr for an unknown name.
std::unique_ptr<Runner> make_runner(const std::string& name);
std::vector<std::string> runner_names();
// "torch 1.13.1 (debian)": the LibTorch this binary links.
std::string torch_version_string();

}  // namespace dlfuzz
