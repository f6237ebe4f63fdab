// The campaign's own costs, side by side in one run:
//  - one isolated execution (a program through `eager` in the worker process)
//    against the same run in this process;
//  - the share of a campaign lane's wall time spent outside the runners
//    (generation, printing, IPC, oracles), from the workers' own timings.
// Run: build/bench/bench_campaign
#include <benchmark/benchmark.h>

#include <chrono>

#include "generator/generator.h"
#include "oracles/evaluate.h"
#include "runners/runner.h"

namespace {

dlfuzz::ExecutorOptions options() {
  dlfuzz::ExecutorOptions o;
  o.dlfuzz_binary = DLFUZZ_BINARY;
  return o;
}

void BM_EagerInProcess(benchmark::State& state) {
  auto runner = dlfuzz::make_runner("eager");
  dlfuzz::GenPolicy policy;
  uint64_t seed = 0;
  for (auto _ : state) {
    auto p = dlfuzz::generate_program(policy, seed++ % 64);
    benchmark::DoNotOptimize(runner->run(p, dlfuzz::RunConfig{}));
  }
}
BENCHMARK(BM_EagerInProcess)->Iterations(256);

void BM_EagerIsolated(benchmark::State& state) {
  dlfuzz::Executor ex(options());
  dlfuzz::GenPolicy policy;
  uint64_t seed = 0;
  ex.run(dlfuzz::generate_program(policy, 0), {"eager"});  // start the worker outside the timing
  for (auto _ : state) {
    auto p = dlfuzz::generate_program(policy, seed++ % 64);
    benchmark::DoNotOptimize(ex.run(p, {"eager"}));
  }
}
BENCHMARK(BM_EagerIsolated)->Iterations(256);

// A LibTorch lane as `dlfuzz fuzz` runs it: outside_share is the fraction of
// wall time not spent inside a runner's run() call. Worker restarts after
// crashes (frozen crashes on ~8% of default programs) are outside time too.
void lane_share(benchmark::State& state, const std::vector<std::string>& runners) {
  dlfuzz::Executor ex(options());
  dlfuzz::GenPolicy policy;
  uint64_t seed = 1;
  dlfuzz::evaluate(ex, dlfuzz::generate_program(policy, 0), runners, false);
  double inside_ms = 0, wall_ms = 0;
  int restarts0 = ex.restarts();
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    auto p = dlfuzz::generate_program(policy, seed++);
    auto ev = dlfuzz::evaluate(ex, p, runners, false);
    wall_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& r : ev.results) inside_ms += r.total_ms;
  }
  state.counters["outside_share"] = 1.0 - inside_ms / wall_ms;
  state.counters["restarts"] = ex.restarts() - restarts0;
  state.counters["programs/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
void BM_LaneOutsideShare(benchmark::State& state) { lane_share(state, {"ts", "ts-nnc", "ts-legacy", "frozen"}); }
BENCHMARK(BM_LaneOutsideShare)->Iterations(200)->UseRealTime();
void BM_LaneOutsideShareNoCrashingRunner(benchmark::State& state) { lane_share(state, {"ts", "ts-nnc", "ts-legacy"}); }
BENCHMARK(BM_LaneOutsideShareNoCrashingRunner)->Iterations(200)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
