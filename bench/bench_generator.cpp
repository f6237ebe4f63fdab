// Generation speed: programs/s and nodes/s for 30-node programs, and the cost
// of printing and parsing them. Run: build/bench/bench_generator
#include <benchmark/benchmark.h>

#include "generator/dlf.h"
#include "generator/generator.h"
#include "generator/verify.h"

namespace {

dlfuzz::GenPolicy thirty_nodes() {
  dlfuzz::GenPolicy p;
  p.min_nodes = p.max_nodes = 30;
  return p;
}

void BM_Generate30(benchmark::State& state) {
  auto policy = thirty_nodes();
  uint64_t seed = 0;
  int64_t nodes = 0;
  for (auto _ : state) {
    auto p = dlfuzz::generate_program(policy, seed++);
    nodes += p.count_nodes();
    benchmark::DoNotOptimize(p);
  }
  state.counters["programs/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["nodes/s"] = benchmark::Counter(double(nodes), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Generate30);

void BM_GenerateVerifyPrintParse30(benchmark::State& state) {
  auto policy = thirty_nodes();
  uint64_t seed = 0;
  for (auto _ : state) {
    auto p = dlfuzz::generate_program(policy, seed++);
    benchmark::DoNotOptimize(dlfuzz::verify(p));
    auto r = dlfuzz::parse_program(dlfuzz::print_program(p));
    benchmark::DoNotOptimize(r);
  }
  state.counters["programs/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GenerateVerifyPrintParse30);

}  // namespace

BENCHMARK_MAIN();
