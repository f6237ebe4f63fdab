#include "runners/program_driver.h"

#include <torch/cuda.h>
#include <torch/optim.h>

#include <torch/csrc/autograd/profiler_legacy.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "oracles/perf_stats.h"
#include "runners/aten_types.h"
#include "runners/distributed/grad_sync.h"
#include "runners/distributed/rank_context.h"
#include "runners/input_builder.h"
#include "runners/trace_summary.h"

namespace dlfuzz {

namespace {
constexpr int kProfiledCalls = 10;  // calls in a profile (a performance finding's explanation)

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void spin_for(double ms) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(ms);
  while (std::chrono::steady_clock::now() < until) {
  }
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainStep& s, std::vector<at::Tensor> params) {
  switch (s.optimizer) {
    case Optimizer::sgd:
      return std::make_unique<torch::optim::SGD>(
          params,
          torch::optim::SGDOptions(s.lr).momentum(s.momentum).weight_decay(s.weight_decay).nesterov(s.nesterov));
    case Optimizer::adam:
      return std::make_unique<torch::optim::Adam>(
          params, torch::optim::AdamOptions(s.lr).weight_decay(s.weight_decay).amsgrad(s.amsgrad));
    case Optimizer::adamw:
      return std::make_unique<torch::optim::AdamW>(
          params, torch::optim::AdamWOptions(s.lr).weight_decay(s.weight_decay).amsgrad(s.amsgrad));
    case Optimizer::rmsprop:
      return std::make_unique<torch::optim::RMSprop>(
          params, torch::optim::RMSpropOptions(s.lr).momentum(s.momentum).weight_decay(s.weight_decay));
    case Optimizer::adagrad:
      return std::make_unique<torch::optim::Adagrad>(params,
                                                     torch::optim::AdagradOptions(s.lr).weight_decay(s.weight_decay));
  }
  return nullptr;
}

namespace {
bool is_oom(const std::string& msg) {
  return msg.find("can't allocate memory") != std::string::npos || msg.find("std::bad_alloc") != std::string::npos ||
         msg.find("out of memory") != std::string::npos;
}
}  // namespace

void record_exception(RunResult& r) {
  try {
    throw;
  } catch (const c10::Error& e) {
    r.error = e.what_without_backtrace();
  } catch (const std::bad_alloc&) {
    r.error = "std::bad_alloc";
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  r.status = is_oom(r.error) ? RunStatus::oom : RunStatus::exception;
}

RunResult compile_failure(const std::string& runner) {
  RunResult r;
  r.runner = runner;
  r.versions = torch_version_string();
  r.stage = Stage::compile;
  record_exception(r);
  return r;
}

RunResult drive_program(const Program& p, const std::string& runner, const DriveOptions& opt,
                        const ForwardFn& forward) {
  RunResult r;
  r.runner = runner;
  r.versions = torch_version_string();
  auto t0 = std::chrono::steady_clock::now();
  r.stage = Stage::setup;
  // On a rank of a distributed run: this rank's shards, the plan's gradient
  // synchronisation. In the one-process reference of a data-parallel plan:
  // every shard in turn as a micro-batch, gradients accumulated and averaged.
  RankContext* rank = current_rank();
  int world = rank ? rank->world : 1;
  int micro = rank ? rank->micro_batches : 1;
  try {
    if (p.device == "cuda" && !torch::cuda::is_available())
      throw std::runtime_error("the program runs on cuda, and " + torch_version_string() +
                               " here sees no CUDA device (a CPU-only LibTorch, or no GPU)");
    if (p.device == "cuda") {
      // IEEE float32 on the GPU as on the CPU: TF32 convolutions and matmuls
      // differ from CPU eager by design, not by bug.
      at::globalContext().setAllowTF32CuDNN(false);
      at::globalContext().setAllowTF32CuBLAS(false);
    }
    std::vector<std::vector<at::Tensor>> inputs(micro);  // per micro-batch
    std::vector<at::Tensor> params;
    std::vector<bool> sharded;  // a tensor-parallel shard, different on every rank
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      if (p.inputs[i].kind == InputKind::param) {
        // A tensor-parallel param: this rank's shard, or the whole one in the
        // one-process reference (a rank context without a group).
        int shard = !rank ? 0 : rank->group ? rank->rank : kWholeTensor;
        at::Tensor t = build_input(p, i, opt.fp64, shard, world);
        if (p.is_training()) t = t.detach().requires_grad_(true);
        params.push_back(t);
        sharded.push_back(rank && rank->group && p.inputs[i].placement.shard_dim >= 0);
        for (auto& in : inputs) in.push_back(t);
        continue;
      }
      for (int m = 0; m < micro; ++m)
        inputs[m].push_back(build_input(p, i, opt.fp64, micro > 1 ? m : (rank ? rank->rank : 0), world));
    }
    r.setup_ms = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    size_t n_out = p.body.yields.size();
    // Every call gets fresh copies of the data inputs: a program that writes
    // to an input (through an alias) must not see its own earlier writes.
    // ... and the same random draws: random ops (dropout) see one generator
    // state in every call and every runner, as in the Python runtime.
    auto call = [&](int m) {
      std::vector<at::Tensor> fresh = inputs[m];
      for (size_t i = 0; i < fresh.size(); ++i)
        if (!fresh[i].requires_grad()) fresh[i] = fresh[i].clone();
      at::manual_seed(0);
      return forward(fresh);
    };
    // A parameter autograd gave no gradient (None, undefined) gets a zero
    // gradient before the step, in every runner alike: compiled autograd
    // materializes zeros where eager leaves None, and the optimizer treats the
    // two differently (weight decay, momentum, Adam's moments). Gradients are
    // never dropped by value: a sum that cancels to exactly 0 on one side and
    // to 1e-7 on the other is then compared with the tolerances and float64
    // arbitration of every other value, and both sides step the same way.
    auto fill_missing_grads = [&]() {
      at::NoGradGuard no_grad;
      for (auto& w : params)
        if (!w.grad().defined()) w.mutable_grad() = at::zeros_like(w);
    };
    if (!p.is_training()) {
      at::NoGradGuard no_grad;
      r.stage = Stage::run;
      for (int m = 0; m < micro; ++m) {
        std::vector<at::Tensor> outs;
        for (int i = 0; i <= opt.warmup; ++i) outs = call(m);
        for (size_t i = 0; i < n_out; ++i) r.outputs.push_back(to_host(outs.at(i)));
      }
    } else {
      const TrainStep& s = *p.train;
      // Warm-up: forward and backward, gradients discarded, parameters untouched.
      for (int i = 0; i < opt.warmup; ++i) {
        r.stage = Stage::run;
        auto outs = call(0);
        r.stage = Stage::backward;
        outs.at(n_out).backward();
        for (auto& w : params) w.mutable_grad().reset();
      }
      bool zero = rank && rank->group && p.plan.kind == PlanKind::zero;
      auto optimizer = zero ? nullptr : make_optimizer(s, params);
      for (int step = 0; step < s.steps; ++step) {
        for (auto& w : params) w.mutable_grad().reset();
        // Gradient accumulation (TrainStep::accumulate): each pass's backward
        // adds into the .grad the one before left.
        for (int pass = 0; pass < s.passes(); ++pass) {
          for (int m = 0; m < micro; ++m) {
            r.stage = Stage::run;
            auto outs = call(m);
            at::Tensor loss = outs.at(n_out);
            r.losses.push_back(loss.item<double>());
            r.stage = Stage::backward;
            loss.backward();  // accumulates across micro-batches
            if (step == s.steps - 1 && pass == s.passes() - 1)
              for (size_t i = 0; i < n_out; ++i) r.outputs.push_back(to_host(outs[i]));
          }
        }
        if (micro > 1) {
          at::NoGradGuard no_grad;
          for (auto& w : params)
            if (w.grad().defined()) w.mutable_grad().div_(micro);
        }
        fill_missing_grads();
        if (rank && rank->group && p.plan.data_parallel()) {
          r.stage = Stage::collective;
          sync_gradients(*rank, params);
        }
        if (step == s.steps - 1)
          for (auto& w : params) r.grads.push_back(to_host(w.grad()));
        r.stage = zero ? Stage::collective : Stage::optimizer;  // ZeRO's step all-gathers
        if (zero) zero_optimizer_step(*rank, params, s);
        else optimizer->step();
        if (rank) {  // replicas must agree bitwise; shards differ by design
          std::vector<at::Tensor> replicated;
          for (size_t k = 0; k < params.size(); ++k)
            if (!sharded[k]) replicated.push_back(params[k]);
          rank->step_digests.push_back(param_digest(replicated));
        }
      }
    }
    for (auto& w : params) r.params.push_back(to_host(w));
    r.run_ms = ms_since(t0);
    // Steady state: the same call again, forward (and backward), each timed
    // alone. Fresh input copies are made outside the clock; on cuda the
    // clock stops after the device has finished. Then, if asked, calls
    // under the profiler: the first one's trace is dropped (it pays for the
    // profiler's start), the next kProfiledCalls are the profile.
    int profiled = opt.profile_dir.empty() ? 0 : 1 + kProfiledCalls;
    std::ostringstream trace, dropped;
    std::unique_ptr<torch::autograd::profiler::RecordProfile> profiler;
    std::vector<double> collective_ms;  // per timed call, on a rank
    std::vector<double> profiled_ms;    // the profile's calls, the profiler's cost included
    for (int i = 0; i < opt.timed_calls + profiled; ++i) {
      if (i == opt.timed_calls) profiler = std::make_unique<torch::autograd::profiler::RecordProfile>(dropped);
      if (i == opt.timed_calls + 1) {
        profiler.reset();
        profiler = std::make_unique<torch::autograd::profiler::RecordProfile>(trace);
      }
      double collective0 = rank ? rank->collective_ms : 0;
      r.stage = Stage::run;
      std::vector<at::Tensor> fresh = inputs[0];
      for (auto& t : fresh)
        if (!t.requires_grad()) t = t.clone();
      if (p.device == "cuda") torch::cuda::synchronize();
      auto t1 = std::chrono::steady_clock::now();
      if (!p.is_training()) {
        at::NoGradGuard no_grad;
        forward(fresh);
      } else {
        auto outs = forward(fresh);
        r.stage = Stage::backward;
        outs.at(n_out).backward();
      }
      if (p.device == "cuda") torch::cuda::synchronize();
      if (opt.slowdown > 0) spin_for(ms_since(t1) * opt.slowdown);
      if (i < opt.timed_calls) r.call_ms.push_back(ms_since(t1));
      if (i > opt.timed_calls) profiled_ms.push_back(ms_since(t1));
      if (i < opt.timed_calls && rank) collective_ms.push_back(rank->collective_ms - collective0);
      for (auto& w : params) w.mutable_grad().reset();
    }
    if (!collective_ms.empty()) r.counters["collective_ms"] = median(collective_ms);
    if (profiler) {
      profiler.reset();  // writes the trace
      std::string path = opt.profile_dir + "/" + runner + ".json";
      std::filesystem::create_directories(opt.profile_dir);
      std::ofstream(path) << trace.str();
      r.profile = summarize_chrome_trace(trace.str(), kProfiledCalls);
      r.profile["call_ms"] = median(profiled_ms);
      r.profile["trace"] = path;
    }
    r.status = RunStatus::ok;
    r.stage = Stage::none;
  } catch (...) {
    record_exception(r);
  }
  return r;
}

}  // namespace dlfuzz
