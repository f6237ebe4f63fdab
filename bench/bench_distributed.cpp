// The distributed runner's overhead per training step against one rank, side
// by side in one run, in-process (no worker): the same data-parallel program
// (two linear layers, 16 rows per rank, SGD) as
//   one rank:       world 1, plain eager
//   1-process ref:  eager@1 at world 2 (both shards as micro-batches)
//   ranks:          eager on 2 and 4 Gloo ranks (threads), DDP or ZeRO
//   tensor parallel: the same layers split Megatron-style over 2 and 4 ranks
//                   (16 rows on every rank: one rank's work divided, plus an
//                   all-reduce forward and one backward per step)
// Each iteration is one program run of 1 or 10 steps (setup included, no
// warm-up; the difference is the per-step cost); the counter is steps/s.
// Run: build/bench/bench_distributed
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include "generator/dlf.h"
#include "runners/distributed/dist_runner.h"
#include "runners/runner.h"

namespace {

dlfuzz::Program program(int world, const char* plan, int64_t steps) {
  std::string text = fmt::format(
      "dlfuzz 1 seed=5 policy=0 mode=train device=cpu world={} plan={}\n"
      "input %x0 : f32[16,64] shard(0) range(-2.0,2.0)\n"
      "param %w0 : f32[64,64] range(-0.5,0.5)\n"
      "param %w1 : f32[8,64] range(-0.5,0.5)\n"
      "target %y0 : f32[16,8] shard(0) range(-1.0,1.0)\n"
      "%1 : f32[16,64] = linear %x0, %w0\n"
      "%2 : f32[16,64] = gelu %1, approximate=\"none\"\n"
      "%3 : f32[16,8] = linear %2, %w1\n"
      "%4 : f32[] = mse_loss %3, %y0\n"
      "return %3\n"
      "loss %4\n"
      "step adam lr=0.01 momentum=0.0 weight_decay=0.0 steps={}\n",
      world, world > 1 ? plan : "none", steps);
  auto r = dlfuzz::parse_program(text, "bench");
  if (!r.ok()) throw std::runtime_error(r.error->str());
  return r.program;
}

// The same two layers as program(): the first column-parallel, the second
// row-parallel, the batch replicated.
dlfuzz::Program tp_program(int world, int64_t steps) {
  std::string text = fmt::format(
      "dlfuzz 1 seed=5 policy=0 mode=train device=cpu world={0} plan=tp\n"
      "input %x0 : f32[16,64] range(-2.0,2.0)\n"
      "param %w0 : f32[{1},64] shard(0) range(-0.5,0.5)\n"
      "param %w1 : f32[8,{1}] shard(1) range(-0.5,0.5)\n"
      "target %y0 : f32[16,8] range(-1.0,1.0)\n"
      "%1 : f32[16,64] = tp_copy %x0\n"
      "%2 : f32[16,{1}] = linear %1, %w0\n"
      "%3 : f32[16,{1}] = gelu %2, approximate=\"none\"\n"
      "%4 : f32[16,8] = linear %3, %w1\n"
      "%5 : f32[16,8] = tp_reduce %4\n"
      "%6 : f32[] = mse_loss %5, %y0\n"
      "return %5\n"
      "loss %6\n"
      "step adam lr=0.01 momentum=0.0 weight_decay=0.0 steps={2}\n",
      world, 64 / world, steps);
  auto r = dlfuzz::parse_program(text, "bench");
  if (!r.ok()) throw std::runtime_error(r.error->str());
  return r.program;
}

void report(benchmark::State& state, const dlfuzz::RunResult& r) {
  if (!r.ok()) state.SkipWithError(r.error.c_str());
}

void BM_OneRank(benchmark::State& state) {
  auto p = program(1, "none", state.range(0));
  auto eager = dlfuzz::make_runner("eager");
  dlfuzz::RunConfig cfg;
  cfg.warmup = 0;
  for (auto _ : state) report(state, eager->run(p, cfg));
  state.counters["steps/s"] =
      benchmark::Counter(double(state.iterations() * state.range(0)), benchmark::Counter::kIsRate);
}

void BM_Distributed(benchmark::State& state, const std::string& runner, int world, const char* plan) {
  auto p = program(world, plan, state.range(0));
  dlfuzz::RunConfig cfg;
  cfg.warmup = 0;
  for (auto _ : state) report(state, dlfuzz::run_distributed(runner, p, cfg));
  state.counters["steps/s"] =
      benchmark::Counter(double(state.iterations() * state.range(0)), benchmark::Counter::kIsRate);
}

void BM_TensorParallel(benchmark::State& state, int world) {
  auto p = tp_program(world, state.range(0));
  dlfuzz::RunConfig cfg;
  cfg.warmup = 0;
  for (auto _ : state) report(state, dlfuzz::run_distributed("eager", p, cfg));
  state.counters["steps/s"] =
      benchmark::Counter(double(state.iterations() * state.range(0)), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_OneRank)->Unit(benchmark::kMillisecond)->UseRealTime()->Arg(1)->Arg(10);
BENCHMARK_CAPTURE(BM_Distributed, one_process_ref_w2, "eager@1", 2, "dp")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Arg(1)
    ->Arg(10);
BENCHMARK_CAPTURE(BM_Distributed, ddp_w2, "eager", 2, "dp")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Arg(1)
    ->Arg(10);
BENCHMARK_CAPTURE(BM_Distributed, ddp_w4, "eager", 4, "dp")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Arg(1)
    ->Arg(10);
BENCHMARK_CAPTURE(BM_Distributed, zero_w2, "eager", 2, "zero")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Arg(1)
    ->Arg(10);
BENCHMARK_CAPTURE(BM_Distributed, zero_w4, "eager", 4, "zero")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Arg(1)
    ->Arg(10);
BENCHMARK_CAPTURE(BM_TensorParallel, tp_w2, 2)->Unit(benchmark::kMillisecond)->UseRealTime()->Arg(1)->Arg(10);
BENCHMARK_CAPTURE(BM_TensorParallel, tp_w4, 4)->Unit(benchmark::kMillisecond)->UseRealTime()->Arg(1)->Arg(10);
BENCHMARK_MAIN();
