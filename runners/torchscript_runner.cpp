#include "runners/torchscript_runner.h"

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/jit.h>

#include "generator/emit.h"
#include "runners/graph_features.h"
#include "runners/program_driver.h"
#include "runners/ts_resolver.h"

namespace dlfuzz {

namespace {
// What the executor made of the program's function: its own plan when it
// has one, else the last graph run on this thread. The function's plan comes
// first because in a training program the last graph run may be a
// differentiable graph's nested executor's (a campaign's counters said 2
// nodes for a program of 30). The groups NNC makes inside a differentiable
// graph's forward live in that nested executor's plan, not here
// (oracles/perf_oracle.cpp: perf_kind).
std::shared_ptr<torch::jit::Graph> optimized_graph(torch::jit::Function& fn) {
  try {
    auto state = torch::jit::toGraphFunction(fn).getDebugState();
    if (state.execution_plans.size() == 1 && state.execution_plans.begin()->second.graph)
      return state.execution_plans.begin()->second.graph;
  } catch (const c10::Error&) {  // no optimized plan yet
  }
  return torch::jit::lastExecutedOptimizedGraph();
}
}  // namespace

TorchScriptRunner::TorchScriptRunner(std::string name, JitSettings settings)
    : name_(std::move(name)), settings_(settings) {}

RunResult TorchScriptRunner::run(const Program& p, const RunConfig& cfg) {
  JitSettingsGuard guard(settings_);
  std::shared_ptr<torch::jit::CompilationUnit> cu;
  try {
    cu = std::make_shared<torch::jit::CompilationUnit>();
    cu->define(c10::nullopt, emit_torchscript(p), ts_resolver(), nullptr);
  } catch (...) {
    return compile_failure(name_);
  }
  torch::jit::Function& fn = cu->get_function("forward");
  DriveOptions opt;
  opt.warmup = cfg.warmup;
  opt.timed_calls = cfg.timed_calls;
  opt.profile_dir = cfg.profile_dir;
  size_t n_out = p.body.yields.size() + (p.train ? 1 : 0);
  RunResult r = drive_program(p, name_, opt, [&](const std::vector<at::Tensor>& inputs) {
    std::vector<c10::IValue> args(inputs.begin(), inputs.end());
    c10::IValue out = fn(args);
    std::vector<at::Tensor> outs;
    for (const auto& e : out.toTupleRef().elements()) outs.push_back(e.toTensor());
    if (outs.size() != n_out) throw std::runtime_error("forward returned the wrong number of values");
    return outs;
  });
  if (auto optimized = optimized_graph(fn); optimized && r.ok()) {
    graph_features(*torch::jit::toGraphFunction(fn).graph(), *optimized, name_, &r.features);
    graph_counters(*optimized, &r.counters);
  }
  return r;
}

}  // namespace dlfuzz
