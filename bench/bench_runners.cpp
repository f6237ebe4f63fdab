// Programs/s of each runner over the same default-policy programs, side by
// side, each through its crash-isolated worker as a campaign runs it (a runner
// that crashes on a program is restarted and counted, not fatal). The Python
// workers' runners (PyTorch 2.x) compile for seconds per program: fewer
// iterations. Run: build/bench/bench_runners
#include <benchmark/benchmark.h>

#include "generator/generator.h"
#include "oracles/evaluate.h"
#include "runners/executor.h"

namespace {

const std::vector<dlfuzz::Program>& sample() {
  static std::vector<dlfuzz::Program> programs = [] {
    std::vector<dlfuzz::Program> v;
    dlfuzz::GenPolicy policy;
    for (uint64_t seed = 0; seed < 64; ++seed) v.push_back(dlfuzz::generate_program(policy, seed));
    return v;
  }();
  return programs;
}

void BM_Runner(benchmark::State& state, const std::string& name) {
  dlfuzz::ExecutorOptions eo = dlfuzz::default_executor_options();
  eo.dlfuzz_binary = DLFUZZ_BINARY;
  if (dlfuzz::runner_spec(name).worker() == dlfuzz::WorkerKind::python && eo.python.empty()) {
    state.SkipWithError("no .venv with PyTorch 2.x");
    return;
  }
  dlfuzz::Executor ex(eo);
  ex.run(sample()[0], {name});  // start the worker outside the timing
  size_t i = 0;
  int64_t ok = 0, failed = 0, skipped = 0;
  for (auto _ : state) {
    const auto& p = sample()[i++ % sample().size()];
    if (!dlfuzz::runner_spec(name).supports(p)) {
      ++skipped;
      continue;
    }
    auto r = ex.run(p, {name}).at(0);
    (r.ok() ? ok : failed)++;
  }
  state.counters["programs/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["ok"] = double(ok);
  state.counters["failed"] = double(failed);
  state.counters["skipped"] = double(skipped);
}

}  // namespace

BENCHMARK_CAPTURE(BM_Runner, eager, std::string("eager"))->Iterations(128)->UseRealTime();
BENCHMARK_CAPTURE(BM_Runner, eager64, std::string("eager64"))->Iterations(128)->UseRealTime();
BENCHMARK_CAPTURE(BM_Runner, ts, std::string("ts"))->Iterations(128)->UseRealTime();
BENCHMARK_CAPTURE(BM_Runner, ts_legacy, std::string("ts-legacy"))->Iterations(128)->UseRealTime();
BENCHMARK_CAPTURE(BM_Runner, ts_nnc, std::string("ts-nnc"))->Iterations(64)->UseRealTime();
BENCHMARK_CAPTURE(BM_Runner, frozen, std::string("frozen"))->Iterations(128)->UseRealTime();
BENCHMARK_CAPTURE(BM_Runner, static_runtime, std::string("static"))->Iterations(128)->UseRealTime();
BENCHMARK_CAPTURE(BM_Runner, py_eager, std::string("py-eager"))->Iterations(32)->UseRealTime();
BENCHMARK_CAPTURE(BM_Runner, aot_eager, std::string("aot-eager"))->Iterations(8)->UseRealTime();
BENCHMARK_CAPTURE(BM_Runner, inductor, std::string("inductor"))->Iterations(8)->UseRealTime();

BENCHMARK_MAIN();
