// Runs a program through any mix of runners, each in its crash-isolated
// worker: LibTorch runners in a `dlfuzz worker` process, PyTorch 2.x runners
// in the Python worker. One worker per environment a runner names
// (runners/runner_spec.h): two Python interpreters, or two dlfuzz builds
// against two LibTorch versions, run side by side. Results come back in the
// order asked for.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runners/runner_spec.h"
#include "runners/worker_client.h"

namespace dlfuzz {

struct ExecutorOptions {
  std::string dlfuzz_binary;  // for `dlfuzz worker`
  std::string python;         // interpreter with PyTorch 2.x ("" = no Python runners)
  std::string python_worker;  // runners/python/worker.py
  std::string source_dir;     // where build-pip/ and .venv/ live
  int timeout_ms = 30000;     // per runner
  size_t memory_mb = 4096;    // address-space limit of the C++ worker
  int warmup = 3;
  int timed_calls = 0;           // steady-state calls each runner times (RunResult::call_ms)
  std::string backend = "gloo";  // process groups for world > 1: gloo or nccl
  bool rank_processes = false;   // Gloo ranks as processes, not threads

  EnvDefaults env_defaults() const { return {dlfuzz_binary, python, source_dir}; }
};

// The executor options for this installation: /proc/self/exe as the worker,
// .venv's Python (or $DLFUZZ_PYTHON) when it has torch.
ExecutorOptions default_executor_options();

class Executor {
 public:
  explicit Executor(ExecutorOptions opt);
  std::vector<RunResult> run(const Program& p, const std::vector<std::string>& runners);
  // Paired timing (oracles/perf_oracle.h): the runners, all of one
  // environment, compiled side by side and called interleaved `pairs` times;
  // each result's call_ms has one time per pair. With `profile_dir`, each
  // also carries a profile and leaves its Chrome trace there.
  std::vector<RunResult> run_paired(const Program& p, const std::vector<std::string>& runners, int pairs,
                                    const std::string& profile_dir = "");
  int restarts() const;
  // How many worker processes it keeps (one per environment met so far).
  size_t workers() const { return workers_.size(); }

 private:
  std::vector<RunResult> run_in(const WorkerEnv& env, const Program& p, const std::vector<std::string>& names,
                                int pairs = 0, const std::string& profile_dir = "");

  ExecutorOptions opt_;
  std::map<std::string, std::unique_ptr<WorkerProcess>> workers_;  // by kind and path
};

}  // namespace dlfuzz
