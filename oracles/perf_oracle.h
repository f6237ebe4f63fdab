// The timing oracle: is a compiled path slower than its eager reference?
//
// Two stages, so that a campaign stays fast:
//  1. perf_candidates: on every run, from what the runners report anyway when
//     the executor asks for timed calls (RunResult::call_ms, counters): one
//     ratio of median steady-state call times, and the compiler's own signals
//     (recompiles during steady-state calls, graph breaks, no fusion group).
//  2. confirm_performance: a candidate is timed again in a FRESH worker,
//     reference and compiled path interleaved call by call, 30 pairs at a time
//     (more while the verdict is undecided), and the bootstrap interval of the
//     ratio of medians (oracles/perf_stats.h) must lie above 1 + threshold;
//     then once more in a second fresh worker, which also profiles both sides.
// A confirmed candidate is a Finding of kind performance whose signature names
// the runner pair, what kind of slowness it is and the hottest op or kernel of
// the compiled side, and whose evidence (JSON) holds both estimates, the
// counters and the two profiles (the profile diff of the report).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oracles/finding.h"
#include "oracles/perf_stats.h"
#include "runners/executor.h"

namespace dlfuzz {

struct PerfOptions {
  double threshold = 0.10;    // a slowdown counts above 1 + threshold (--perf-threshold)
  int timed_calls = 5;        // stage 1: steady-state calls per runner in the campaign's run
  int stage1_pairs = 10;      // stage 1's second look: paired calls in the live worker (0: none)
  int pairs = 30;             // stage 2: paired calls per batch
  int max_pairs = 120;        // and at most this many while undecided
  std::string profile_dir;    // Chrome traces of confirmed findings go here ("" = a temporary directory)
  int max_confirmations = 5;  // a campaign confirms one runner's kind of slowness at most this often
};

struct PerfCandidate {
  std::string ref, test;
  // slower, recompiles, graph-break, unfused; once confirmed, a "slower"
  // whose generated code is not slower than the reference's own ops
  // becomes "overhead" (the framework around it is what costs)
  std::string kind;
  double ratio = 1;  // stage 1's median ratio, test / ref
};

// Stage 1 over one evaluation's results (references and tests by name).
// With `live` (the executor that ran them), a timed runner the unpaired
// calls did not make a candidate gets a second look: stage1_pairs calls
// interleaved with its reference's in that worker (milliseconds for LibTorch
// runners; a recompile of both sides for Python ones), whose ratio of medians
// decides. The unpaired calls ran one runner after the other, so load, clock
// and the process's state between them could hide a slowdown; paired calls
// share them.
std::vector<PerfCandidate> perf_candidates(const Program& p, const std::vector<RunResult>& results,
                                           const PerfOptions& o, Executor* live = nullptr);

// What a signal says about a compiled run on `device`: "recompiles" (on most
// timed calls), "graph-break", "unfused" (NNC), "unvectorized" (Inductor's C++
// kernels all scalar), or "slower" when no signal says more.
std::string perf_kind(const RunResult& test, const std::string& device = "cpu");

// Stage 2 in fresh workers made from `ex`. nullopt when not confirmed.
std::optional<Finding> confirm_performance(const ExecutorOptions& ex, const Program& p, const PerfCandidate& c,
                                           const PerfOptions& o);

// Both stages over one evaluation's results (run with ExecutorOptions::
// timed_calls = o.timed_calls): the confirmed performance findings. Only
// candidates `wanted` says yes to are confirmed (a campaign stops confirming
// a kind of slowness it has confirmed often enough).
std::vector<Finding> performance_findings(const ExecutorOptions& ex, const Program& p,
                                          const std::vector<RunResult>& results, const PerfOptions& o,
                                          const std::function<bool(const PerfCandidate&)>& wanted = nullptr,
                                          Executor* live = nullptr);

// What a campaign counts confirmations under (PerfOptions::max_confirmations):
// runner pair and the candidate's kind, which a confirmed finding keeps even
// when it is stored as "overhead".
std::string confirmation_key(const PerfCandidate& c);
std::string confirmation_key(const Finding& f);

// Is `signature` a performance finding's?
bool is_performance_signature(const std::string& signature);
// The same performance bug for the reducer: oracle, runners and kind agree;
// the hottest op may change as the program shrinks.
bool same_performance_bug(const std::string& a, const std::string& b);

// Profiles of a confirmed slowdown that say it is all overhead: the compiled
// side's kernels and ops take no longer than the reference's (within the
// threshold), and it has framework rows (torch.compile's wrappers and guards,
// TorchScript's "forward" frame) where the rest of the time goes.
bool only_overhead(const nlohmann::json& ref_profile, const nlohmann::json& test_profile, double threshold);

// The first of Dynamo's graph-break reasons a Python profile lists
// ("graph_breaks", most frequent first), its first line normalized; "" when
// none. A graph-break finding's signature names it instead of a hot op.
std::string graph_break_reason(const nlohmann::json& profile);

// "cpp_fused_add_mul_sin_0" -> "fused add mul sin"; "aten::mm" stays.
std::string hot_op_name(const std::string& profiler_key);

}  // namespace dlfuzz
