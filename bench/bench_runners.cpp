// Per-program run time of each in-process runner on default-policy programs
// (the same 64 seeds for every runner, so the numbers compare side by side).
// Run: build/bench/bench_runners
#include <benchmark/benchmark.h>

#include "generator/generator.h"
#include "runners/runner.h"

namespace {

std::vector<dlfuzz::Program> sample() {
  static std::vector<dlfuzz::Program> programs = [] {
    std::vector<dlfuzz::Program> v;
    dlfuzz::GenPolicy policy;
    for (uint64_t seed = 0; seed < 64; ++seed) v.push_back(dlfuzz::generate_program(policy, seed));
    return v;
  }();
  return programs;
}

void BM_Runner(benchmark::State& state, const std::string& name) {
  auto runner = dlfuzz::make_runner(name);
  auto programs = sample();
  size_t i = 0;
  int64_t ok = 0;
  for (auto _ : state) {
    const auto& p = programs[i++ % programs.size()];
    if (!runner->supports(p)) continue;
    auto r = runner->run(p, dlfuzz::RunConfig{});
    ok += r.ok();
  }
  state.counters["programs/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["ok"] = double(ok);
}

}  // namespace

BENCHMARK_CAPTURE(BM_Runner, eager, std::string("eager"))->Iterations(128);
BENCHMARK_CAPTURE(BM_Runner, eager64, std::string("eager64"))->Iterations(128);
BENCHMARK_CAPTURE(BM_Runner, ts, std::string("ts"))->Iterations(128);
BENCHMARK_CAPTURE(BM_Runner, ts_legacy, std::string("ts-legacy"))->Iterations(128);
BENCHMARK_CAPTURE(BM_Runner, ts_nnc, std::string("ts-nnc"))->Iterations(64);
BENCHMARK_CAPTURE(BM_Runner, frozen, std::string("frozen"))->Iterations(128);

BENCHMARK_MAIN();
