// The timing oracle's false-positive rate and detection rate, measured on
// generated programs (issue 14's "must show"; never asserted in tests).
//
//   bench_perf aa RUNNER N      A/A: RUNNER against itself, paired in fresh
//                               workers (stage 2 forced on every program):
//                               how many programs does it call slower?
//   bench_perf planted RUNNER N RUNNER (fault-slow-20, fault-slow-50, ...)
//                               through both stages as a campaign runs it:
//                               on how many programs is the slowdown caught?
//   [--threshold T] [--seed S] [--timed-calls K] [--stage1-pairs P] [--infer] [--verbose] [--max-dim D]
//   [--truth]
//                               (--timed-calls: stage 1's calls per runner;
//                               --stage1-pairs: its second look's paired
//                               calls in the live worker, 0 for none;
//                               --infer: inference programs only; --verbose:
//                               the call times of misses; --max-dim: the
//                               generator's largest dimension, 6 by default:
//                               fusion saves memory traffic only on larger
//                               tensors; --truth: planted mode also times
//                               every program 60 pairs in a fresh worker,
//                               whatever stage 1 said: on how many programs
//                               the slowdown really exceeds the threshold,
//                               and how many of those the oracle caught)
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstring>
#include <iostream>

#include "generator/generator.h"
#include "oracles/evaluate.h"
#include "oracles/perf_oracle.h"
#include "runners/executor.h"

using namespace dlfuzz;

int main(int argc, char** argv) {
  if (argc < 4 || (std::strcmp(argv[1], "aa") != 0 && std::strcmp(argv[1], "planted") != 0)) {
    std::cerr << "usage: bench_perf aa|planted RUNNER N [--threshold T] [--seed S] [--infer]\n";
    return 2;
  }
  std::string mode = argv[1], runner = argv[2];
  int n = std::atoi(argv[3]);
  PerfOptions o;
  uint64_t seed = 1;
  bool infer_only = false, verbose = false, truth = false;
  GenPolicy policy;
  for (int i = 4; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threshold") && i + 1 < argc) o.threshold = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--timed-calls") && i + 1 < argc) o.timed_calls = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--stage1-pairs") && i + 1 < argc) o.stage1_pairs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--infer")) infer_only = true;
    else if (!std::strcmp(argv[i], "--verbose")) verbose = true;
    else if (!std::strcmp(argv[i], "--truth")) truth = true;
    else if (!std::strcmp(argv[i], "--max-dim") && i + 1 < argc) policy.max_dim = std::atoi(argv[++i]);
  }
  ExecutorOptions eo = default_executor_options();
  eo.dlfuzz_binary = DLFUZZ_BINARY;
  eo.timed_calls = o.timed_calls;
  Executor ex(eo);
  int programs = 0, candidates = 0, confirmed = 0, failed = 0, applies = 0, caught_where_applies = 0;
  std::vector<double> ratios;
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t s = seed; programs < n; ++s) {
    Program p = generate_program(policy, s);
    if (infer_only && p.is_training()) continue;
    auto spec = runner_spec(runner);
    if (!spec.supports(p)) continue;
    if (mode == "aa") {
      // Stage 2 on every program, both sides the same runner.
      auto rs = ex.run(p, {runner});
      if (!rs.at(0).ok()) {
        ++failed;
        continue;
      }
      ++programs;
      ++candidates;
      if (auto f = confirm_performance(eo, p, PerfCandidate{runner, runner, "slower", 1.0}, o)) {
        ++confirmed;
        std::cout << fmt::format("seed {}: FALSE POSITIVE {}\n", s, f->detail);
      }
    } else {
      Evaluation ev = evaluate(ex, p, {runner}, false);
      bool ok = false;
      for (const auto& r : ev.results) ok |= r.runner == runner && r.ok();
      if (!ok) {
        ++failed;
        continue;
      }
      ++programs;
      auto cs = perf_candidates(p, ev.results, o, o.stage1_pairs > 0 ? &ex : nullptr);
      candidates += !cs.empty();
      if (cs.empty() && verbose) {  // a miss at stage 1: the two sides' call times
        for (const auto& r : ev.results)
          if (!r.call_ms.empty()) std::cerr << fmt::format("seed {} missed: {} {}\n", s, r.runner, fmt::join(r.call_ms, " "));
      }
      bool caught = false;
      for (const auto& c : cs)
        if (auto f = confirm_performance(eo, p, c, o)) {
          ++confirmed;
          caught = true;
          ratios.push_back(f->evidence["first"]["ratio"].get<double>());
          break;
        }
      if (truth) {  // the slowdown this program really has, timed apart from the oracle's own stages
        Executor fresh(eo);
        auto rs = fresh.run_paired(p, {spec.reference(p), runner}, 60);
        if (rs.size() == 2 && rs[0].ok() && rs[1].ok()) {
          RatioEstimate e = ratio_of_medians(rs[0].call_ms, rs[1].call_ms);
          bool slow = e.ci_low > 1 + o.threshold;
          applies += slow;
          caught_where_applies += slow && caught;
          std::cout << fmt::format("seed {}: true ratio {:.2f} (95% CI {:.2f}-{:.2f}){}, {}\n", s, e.ratio, e.ci_low,
                                   e.ci_high, slow ? " above the threshold" : "", caught ? "caught" : "not caught");
        }
      }
    }
    if (programs % 25 == 0) std::cerr << fmt::format("{} programs, {} confirmed\n", programs, confirmed);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::sort(ratios.begin(), ratios.end());
  std::cout << fmt::format(
      "{} {}: {} programs ({} skipped: runner failed), {} candidates after stage 1, {} confirmed ({:.1f}%) at "
      "threshold {:.0f}%; {:.0f} s ({:.2f} s per program){}\n",
      mode, runner, programs, failed, candidates, confirmed, 100.0 * confirmed / std::max(programs, 1),
      o.threshold * 100, secs, secs / std::max(programs, 1),
      ratios.empty() ? "" : fmt::format("; confirmed ratio median {:.2f}", ratios[ratios.size() / 2]));
  if (truth)
    std::cout << fmt::format("truth: {} of {} programs slower than 1 + threshold by their own 60 pairs; {} of those "
                             "caught\n",
                             applies, programs, caught_where_applies);
  return 0;
}
