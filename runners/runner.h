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
  int warmup = 3;                    // calls before the measured one, so executors specialize
  int timed_calls = 0;               // steady-state calls timed after the measured steps (RunResult::call_ms)
  std::string profile_dir;           // "": no profile; else a profile of 5 calls, its Chrome trace written there
  int collective_timeout_ms = 5000;  // a rank waiting longer in a collective fails (a hang)
  std::string backend = "gloo";      // ranks' process groups: gloo (CPU threads) or nccl (one GPU each)
  bool rank_processes = false;       // Gloo ranks as child processes (TCPStore) instead of threads (HashStore)
};

class Runner {
 public:
  virtual ~Runner() = default;
  virtual std::string name() const = 0;
  virtual RunResult run(const Program& p, const RunConfig& cfg) = 0;
};

// The runner a name (runners/runner_spec.h) makes in this process: its row's
// runner wrapped by its +plugin: and @cpu suffixes. nullptr, with `error` set,
// for an unknown name, a runner this build lacks (static without its
// headers), a broken plugin, or a name served over ranks (@1, fault-dist-*:
// runners/distributed/dist_runner.h) or in another environment (@ENV).
std::unique_ptr<Runner> make_runner(const std::string& name, std::string* error = nullptr);
// The table's native runners this binary has.
std::vector<std::string> runner_names();
// "torch 1.13.1 (debian)": the LibTorch this binary links.
std::string torch_version_string();

}  // namespace dlfuzz
