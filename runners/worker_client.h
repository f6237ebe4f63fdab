// Crash-isolated execution: runners run in a persistent worker process (the
// `dlfuzz worker` subcommand, or the Python worker). A runner that crashes,
// hangs past its timeout or exhausts its memory limit becomes a RunResult
// (crash / timeout / oom); the worker is replaced and the rest go on.
#pragma once
#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runners/run_result.h"

namespace dlfuzz {

struct WorkerRequest {
  std::string program;  // .dlf text (C++ worker)
  // Python worker: the program's metadata and function sources
  // (python_worker_program in generator/emit.h).
  nlohmann::json python_program;
  std::vector<std::string> runners;
  // Python worker only: several programs in one request, each through every
  // runner (results runner-major), compiled runners sharing one compiled
  // function where they can (runners/python/batching.py); or, with warm, no
  // program: the worker compiles a tiny function and answers one result.
  nlohmann::json python_batch;
  bool warm = false;
  int warmup = 3;
  int timed_calls = 0;  // steady-state calls timed after the run (RunResult::call_ms)
  // > 0: a paired timing request (oracles/perf_oracle.h): the runners run
  // interleaved, `pairs` times, and each result's call_ms holds one time per
  // pair. With `profile_dir`, each result also carries a profile of its
  // calls (RunResult::profile) and its Chrome trace is written there.
  int pairs = 0;
  std::string profile_dir;
  std::string backend = "gloo";  // process groups of programs with world > 1
  bool rank_processes = false;   // their ranks as processes instead of threads
  // Set when this request is one rank of a run whose ranks are processes
  // (runners/distributed/rank_processes.h): its rank, and the port of the
  // TCPStore on 127.0.0.1 that the ranks meet through.
  int rank = -1, world = 1, store_port = 0;
};

class WorkerProcess {
 public:
  // argv of the worker; it reads requests on fd 3 and writes results on fd 4.
  // memory_limit_mb > 0 caps its data (heap and private writable mappings:
  // RLIMIT_DATA).
  WorkerProcess(std::vector<std::string> argv, size_t memory_limit_mb);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // One result per requested runner, in order. timeout_ms bounds each runner.
  std::vector<RunResult> run(const WorkerRequest& req, int timeout_ms);
  // A request answered by `expected` results (a batch, or warm: 1), each
  // within timeout_ms of the one before. On a crash or timeout the worker is
  // replaced and the results so far come back: the caller runs the rest again.
  std::vector<RunResult> run_frames(const WorkerRequest& req, size_t expected, int timeout_ms);
  // Starts the worker now, from the calling thread, as run() does when none is
  // running. The worker dies with the thread that started it
  // (PR_SET_PDEATHSIG): start it from a thread that outlives it.
  bool start();
  int restarts() const { return restarts_; }
  // Why the worker could not start, if it could not ("" otherwise).
  const std::string& start_error() const { return start_error_; }

 private:
  void stop();

  std::vector<std::string> argv_;
  size_t memory_limit_mb_;
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  int restarts_ = 0;
  std::string start_error_;
};

}  // namespace dlfuzz
