// What every in-process runner does around its forward function: build the
// inputs, call forward (after warm-up calls, so executors specialize), and for
// training programs run backward and the optimizer for `steps` steps. Failures
// become RunResult data with the stage they happened in. On a rank of a
// distributed run (runners/distributed/rank_context.h) it takes the rank's
// shards and synchronises gradients as the plan says.
#pragma once
#include <ATen/ATen.h>

#include <torch/optim/optimizer.h>

#include <functional>
#include <memory>

#include "runners/runner.h"

namespace dlfuzz {

// Takes the program's inputs in declaration order; returns its outputs
// followed, for a training program, by the loss.
using ForwardFn = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>& inputs)>;

struct DriveOptions {
  bool fp64 = false;    // float inputs in float64
  int warmup = 0;       // forward (+ backward) calls before the measured steps
  int timed_calls = 0;  // steady-state calls after them, each timed (RunResult::call_ms)
  // "": no profile. Else 5 more calls under the LibTorch profiler: its Chrome
  // trace is written to `profile_dir`/RUNNER.json, its summary is RunResult::profile.
  std::string profile_dir;
  // A planted fault (fault-slow-20, -50): each timed call, forward and
  // backward, spins this fraction of its own time more.
  double slowdown = 0;
};

RunResult drive_program(const Program& p, const std::string& runner, const DriveOptions& opt, const ForwardFn& forward);

// Busy-waits `ms`: the planted slowdowns, and waking the CPU before timed calls.
void spin_for(double ms);

// The program's optimizer over `params`.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainStep& s, std::vector<at::Tensor> params);

// Fill r with an error from the current exception (call inside catch).
void record_exception(RunResult& r);
// A compile-stage failure of `runner` from the current exception (call inside catch).
RunResult compile_failure(const std::string& runner);

}  // namespace dlfuzz
