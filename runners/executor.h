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
  size_t memory_mb = 4096;    // data limit of the C++ worker (RLIMIT_DATA)
  int warmup = 3;
  int timed_calls = 0;           // steady-state calls each runner times (RunResult::call_ms)
  // The first compile of a fresh Python worker (Inductor's precompiled header,
  // the CPU's vector ISA check) is made before any program, with this bound.
  int warm_timeout_ms = 600000;
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
  // Runs programs through the Python runners among `test_runners` (and their
  // references) in one request to the Python worker, which compiles several
  // programs as one function (runners/python/batching.py). Each result is kept
  // for the next run() of its program and runner, which takes it instead of
  // running it again; a result run() never asks for is dropped by forget().
  // Programs over several ranks, and runners of another environment, are left
  // to run().
  void prefetch(const std::vector<Program>& programs, const std::vector<std::string>& test_runners);
  // Whether results of p are waiting from prefetch().
  bool prefetched(const Program& p) const;
  void forget(const Program& p);
  int restarts() const;
  // How many worker processes it keeps (one per environment met so far).
  size_t workers() const { return workers_.size(); }

 private:
  std::vector<RunResult> run_in(const WorkerEnv& env, const Program& p, const std::vector<std::string>& names,
                                int pairs = 0, const std::string& profile_dir = "");

  WorkerProcess& worker_for(const WorkerEnv& env, const std::vector<std::string>& names);

  ExecutorOptions opt_;
  std::map<std::string, std::unique_ptr<WorkerProcess>> workers_;  // by kind and path
  std::map<std::string, std::string> warmed_;  // Python worker -> what its warm-up compiled ("inductor", "dynamo")
  // prefetch()'s results waiting for run(): program text -> runner -> result.
  std::map<std::string, std::map<std::string, RunResult>> prefetched_;
};

}  // namespace dlfuzz
