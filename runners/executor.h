// Runs a program through any mix of runners, each in its crash-isolated
// worker: in-process LibTorch runners in a `dlfuzz worker` process, PyTorch 2.x
// runners in the Python worker. Results come back in the order asked for.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runners/worker_client.h"

namespace dlfuzz {

struct ExecutorOptions {
  std::string dlfuzz_binary;  // for `dlfuzz worker`
  std::string python;         // interpreter with PyTorch 2.x ("" = no Python runners)
  std::string python_worker;  // runners/python/worker.py
  int timeout_ms = 30000;     // per runner
  size_t memory_mb = 4096;    // address-space limit of the C++ worker
  int warmup = 3;
  std::string backend = "gloo";  // process groups for world > 1: gloo or nccl
  bool rank_processes = false;   // Gloo ranks as processes, not threads
};

// Runners served by the Python worker.
bool is_python_runner(const std::string& name);
const std::vector<std::string>& python_runner_names();
// The reference runners a test runner is compared with: eager and its float64
// twin from the same PyTorch. For a LibTorch runner under a training plan over
// several ranks, their one-process runs ("eager@1": a data-parallel plan's
// shards as micro-batches, a tensor-parallel plan's whole params): the
// distributed-equivalence oracle. Python runners: py-eager over the same ranks.
std::string reference_of(const std::string& runner, const Program& p);
std::string fp64_reference_of(const std::string& runner, const Program& p);
// For a program on cuda, the cross-device references: CPU eager and its
// float64 twin ("eager@cpu", "eager64@cpu"), which every GPU path, CUDA eager
// included, is compared with where its own references see nothing wrong.
// Empty for CPU programs and for programs over several ranks.
std::vector<std::string> cross_device_references(const Program& p);
// False where a path does not apply (freezing or AOTInductor of training
// programs; AOTInductor over several ranks; distributed faults at world 1).
bool runner_supports(const std::string& runner, const Program& p);

class Executor {
 public:
  explicit Executor(ExecutorOptions opt);
  std::vector<RunResult> run(const Program& p, const std::vector<std::string>& runners);
  int restarts() const;

 private:
  ExecutorOptions opt_;
  std::unique_ptr<WorkerProcess> native_, python_;
};

}  // namespace dlfuzz
