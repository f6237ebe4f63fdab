#include "oracles/perf_oracle.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "generator/dlf.h"
#include "generator/hash.h"

namespace dlfuzz {

namespace {

double counter(const RunResult& r, const std::string& name) {
  auto it = r.counters.find(name);
  return it == r.counters.end() ? 0 : it->second;
}

// Timed calls of both sides in one fresh worker, batch after batch of pairs
// while the verdict is undecided. Failed runs end it (estimate of 0 pairs).
RatioEstimate timed_in_fresh_worker(const ExecutorOptions& opt, const Program& p, const PerfCandidate& c,
                                    const PerfOptions& o, const std::string& profile_dir, RunResult* ref_out,
                                    RunResult* test_out) {
  Executor fresh(opt);
  std::vector<double> base, cand;
  RatioEstimate e;
  for (int done = 0; done < o.max_pairs;) {
    int batch = std::min(o.pairs, o.max_pairs - done);
    // Profiling perturbs the timings: the profile comes from the last batch only.
    bool last = done + batch >= o.max_pairs;
    auto rs = fresh.run_paired(p, {c.ref, c.test}, batch, last ? profile_dir : "");
    if (rs.size() != 2 || !rs[0].ok() || !rs[1].ok()) return RatioEstimate{};
    base.insert(base.end(), rs[0].call_ms.begin(), rs[0].call_ms.end());
    cand.insert(cand.end(), rs[1].call_ms.begin(), rs[1].call_ms.end());
    done += batch;
    *ref_out = rs[0];
    *test_out = rs[1];
    e = ratio_of_medians(base, cand);
    if (perf_verdict(e, o.threshold) != PerfVerdict::undecided) {
      if (!profile_dir.empty() && !last) {  // decided early: one short batch for the profile
        auto prof = fresh.run_paired(p, {c.ref, c.test}, 5, profile_dir);
        if (prof.size() == 2 && prof[0].ok() && prof[1].ok()) {
          ref_out->profile = prof[0].profile;
          test_out->profile = prof[1].profile;
        }
      }
      break;
    }
  }
  return e;
}

nlohmann::json estimate_json(const RatioEstimate& e) {
  return {{"pairs", e.pairs},
          {"ratio", e.ratio},
          {"ci_low", e.ci_low},
          {"ci_high", e.ci_high},
          {"ref_median_ms", e.base_median},
          {"test_median_ms", e.cand_median}};
}

// Rows of a profile that are the framework around the generated code, not
// the program's work: torch.compile's guards, AOTAutograd's runtime
// wrappers, the autograd Function; TorchScript's interpreter, whose own
// time between ops is its function frame's self time ("forward").
bool is_wrapper(const std::string& key) {
  if (key == "forward") return true;
  for (const char* w :
       {"CompiledFunction", "Torch-Compiled Region", "TorchDynamo Cache Lookup", "## Call Compiled", "AOTDispatcher",
        "autograd::engine::evaluate_function", "Pregraph bytecode", "torch::autograd::AccumulateGrad"})
    if (key.find(w) != std::string::npos) return true;
  return false;
}

// Self time per call of a profile's rows, wrappers or the rest.
double self_ms(const nlohmann::json& profile, bool wrappers) {
  double total = 0;
  for (const auto& row : profile.value("ops", nlohmann::json::array()))
    if (row.is_array() && row.size() >= 2 && row[1].is_number() && is_wrapper(row[0].get<std::string>()) == wrappers)
      total += row[1].get<double>();
  return total;
}

std::string hot_op(const nlohmann::json& profile) {
  // The hottest generated kernel if the profile names one, else the hottest
  // ATen op: what a compiler engineer looks at first.
  std::string aten;
  for (const auto& row : profile.value("ops", nlohmann::json::array())) {
    std::string key = row.at(0).get<std::string>();
    // A generated kernel: Inductor's "cpp_fused_..." (perhaps "graph_0_cpp_fused_..."), Triton's, or an
    // NNC fusion group's "fused_...".
    for (const char* kernel : {"cpp_fused", "triton_"})
      if (size_t at = key.find(kernel); at != std::string::npos) return hot_op_name(key.substr(at));
    if (key.rfind("fused_", 0) == 0) return hot_op_name(key);
    if (aten.empty() && key.rfind("aten::", 0) == 0 && key != "aten::empty" && key != "aten::empty_strided") aten = key;
  }
  return aten;
}

}  // namespace

bool only_overhead(const nlohmann::json& ref_profile, const nlohmann::json& test_profile, double threshold) {
  if (!ref_profile.is_object() || !test_profile.is_object()) return false;
  return self_ms(test_profile, true) > 0 &&
         self_ms(test_profile, false) <= (1 + threshold) * self_ms(ref_profile, false);
}

std::string graph_break_reason(const nlohmann::json& profile) {
  if (!profile.is_object()) return "";
  const auto breaks = profile.value("graph_breaks", nlohmann::json::array());
  if (!breaks.is_array() || breaks.empty() || !breaks[0].is_string()) return "";
  return normalize_error(breaks[0].get<std::string>());
}

std::string hot_op_name(const std::string& key) {
  std::string s = key;
  for (const char* prefix : {"cpp_", "triton_poi_", "triton_per_", "triton_red_", "triton_"})
    if (s.rfind(prefix, 0) == 0) {
      s = s.substr(std::string(prefix).size());
      break;
    }
  while (!s.empty() && (std::isdigit(static_cast<unsigned char>(s.back())) || s.back() == '_')) s.pop_back();
  if (s.rfind("aten::", 0) == 0) return s;
  for (char& ch : s)
    if (ch == '_') ch = ' ';
  return s;
}

std::string perf_kind(const RunResult& test, const std::string& device) {
  // Recompiles on most steady-state calls: a guard no call passes twice.
  // One or two (a Python float from .item() that is sometimes 0.0, which
  // Dynamo specializes) settle into the cache and are not the slowness.
  if (2 * counter(test, "recompiles") > test.call_ms.size()) return "recompiles";
  if (counter(test, "graph_breaks") > 0) return "graph-break";
  // No fusion group under the NNC fuser. Not said of a graph with
  // differentiable graphs: NNC fuses their forwards in nested executors,
  // which the counters of the outer graph do not see (a campaign found 5
  // "unfused" NNC runs whose profiles were all fusion groups).
  if (test.runner.rfind("ts-nnc", 0) == 0 && test.counters.count("fusion_groups") &&
      counter(test, "fusion_groups") == 0 && counter(test, "nodes_outside_fusion") > 1 &&
      counter(test, "differentiable_graphs") == 0)
    return "unfused";
  // Inductor generated C++ kernels and vectorized none: scalar loops where
  // ATen's eager kernels use AVX2/AVX-512 (an op its vectorizer gives up on,
  // or an install whose ISA probe failed: runners/python/env_check.py).
  if (test.runner.rfind("inductor", 0) == 0 && test.counters.count("cpp_vec_kernels") &&
      counter(test, "kernels") > 0 && counter(test, "cpp_vec_kernels") == 0 && device == "cpu")
    return "unvectorized";
  return "slower";
}

std::vector<PerfCandidate> perf_candidates(const Program& p, const std::vector<RunResult>& results,
                                           const PerfOptions& o, Executor* live) {
  std::map<std::string, const RunResult*> by_name;
  for (const auto& r : results) by_name.emplace(r.runner, &r);
  std::vector<PerfCandidate> out;
  for (const auto& test : results) {
    auto spec = parse_runner(test.runner);
    if (!spec || !spec->row->timed || !test.ok() || test.call_ms.empty()) continue;
    std::string ref_name = spec->reference(p);
    if (ref_name == test.runner) continue;  // a reference is not under test
    const RunResult* ref = by_name[ref_name];
    if (!ref || !ref->ok() || ref->call_ms.empty()) continue;
    // The fastest call of each side: load only ever adds time, and these
    // calls are not paired (the runners ran one after the other), so the
    // minimum is the steadier estimate here; stage 2 decides on medians.
    double base = *std::min_element(ref->call_ms.begin(), ref->call_ms.end());
    if (base <= 0) continue;
    double fastest = *std::min_element(test.call_ms.begin(), test.call_ms.end());
    PerfCandidate c{ref_name, test.runner, perf_kind(test, p.device), fastest / base};
    // Too slow by the rough ratio, or a signal that says "not optimized" and
    // at least not faster: worth the paired timing. The rough ratio is cut
    // at half the threshold: stage 2 decides.
    if (c.ratio > 1 + o.threshold / 2 || (c.kind != "slower" && c.ratio > 1)) {
      out.push_back(c);
      continue;
    }
    // The second look. For a Python runner it compiles both sides again in
    // the live worker (Inductor's caches make that a Dynamo trace and a cache
    // hit): its unpaired calls, tens of microseconds, move with the process's
    // state (one inductor program: 0.025 ms in five fresh processes, 0.04-0.07
    // in three), and missed a 1.30x slowdown as 1.01.
    if (!live || o.stage1_pairs <= 0) continue;
    auto rs = live->run_paired(p, {ref_name, test.runner}, o.stage1_pairs);
    if (rs.size() != 2 || !rs[0].ok() || !rs[1].ok()) continue;
    RatioEstimate e = ratio_of_medians(rs[0].call_ms, rs[1].call_ms);
    c.ratio = e.ratio;
    if (e.pairs >= 2 && c.ratio > 1 + o.threshold / 2) out.push_back(c);
  }
  return out;
}

std::optional<Finding> confirm_performance(const ExecutorOptions& ex, const Program& p, const PerfCandidate& c,
                                           const PerfOptions& o) {
  RunResult ref1, test1, ref2, test2;
  RatioEstimate first = timed_in_fresh_worker(ex, p, c, o, "", &ref1, &test1);
  if (perf_verdict(first, o.threshold) != PerfVerdict::slower) return std::nullopt;
  std::string dir = o.profile_dir;
  if (dir.empty()) dir = (std::filesystem::temp_directory_path() / fmt::format("dlfuzz-perf-{}", getpid())).string();
  dir += fmt::format("/{:016x}-{}", fnv1a(print_program(p)), c.test);
  RatioEstimate second = timed_in_fresh_worker(ex, p, c, o, dir, &ref2, &test2);
  if (perf_verdict(second, o.threshold) != PerfVerdict::slower) return std::nullopt;
  // Slower only by the framework around the generated code: the kernels and
  // ops themselves take no longer than the reference's. One bug per runner
  // (no hot op): the per-call overhead of a compiled function on a program
  // too small to pay for it.
  std::string kind = c.kind;
  bool overhead = kind == "slower" && only_overhead(ref2.profile, test2.profile, o.threshold);
  if (overhead) kind = "overhead";
  Finding f;
  f.oracle = "performance";
  f.kind = FindingKind::performance;
  f.ref_runner = c.ref;
  f.test_runner = c.test;
  f.stage = kind;
  std::string hot = overhead ? "" : hot_op(test2.profile);
  f.error_text = hot.empty() ? "" : "hot: " + hot;
  // NNC's groups run in its IR evaluator here (LibTorch without LLVM; dlfuzz
  // lets NNC fuse on the CPU anyway): any group is slow, whatever it fuses,
  // so the op set would split one cause into a bug per program.
  if (c.test.rfind("ts-nnc", 0) == 0 && hot.rfind("fused ", 0) == 0) f.error_text = "hot: NNC fusion group";
  // A graph break costs what it costs wherever it falls: the bug is why
  // Dynamo broke (its most frequent reason), not the op that happens to be
  // hottest.
  std::string reason = kind == "graph-break" ? graph_break_reason(test2.profile) : "";
  if (!reason.empty()) f.error_text = "break: " + reason;
  f.detail = fmt::format(
      "{} {:.2f}x the time of {} per call (95% CI {:.2f}-{:.2f}, {} pairs; {:.2f}x in a second process): "
      "{:.3f} ms vs {:.3f} ms{}",
      c.test, first.ratio, c.ref, first.ci_low, first.ci_high, first.pairs, second.ratio, first.cand_median,
      first.base_median, hot.empty() ? "" : "; hottest: " + hot);
  nlohmann::json counters = test1.counters;
  f.evidence = {{"kind", kind},
                {"stage1_kind", c.kind},
                {"threshold", o.threshold},
                {"stage1_ratio", c.ratio},
                {"first", estimate_json(first)},
                {"second", estimate_json(second)},
                {"counters", counters},
                {"ref_profile", ref2.profile},
                {"test_profile", test2.profile}};
  return f;
}

std::string confirmation_key(const PerfCandidate& c) { return c.ref + "|" + c.test + "|" + c.kind; }

std::string confirmation_key(const Finding& f) {
  std::string kind = f.evidence.is_object() && f.evidence.contains("stage1_kind") && f.evidence["stage1_kind"].is_string()
                         ? f.evidence["stage1_kind"].get<std::string>()
                         : f.stage;
  return f.ref_runner + "|" + f.test_runner + "|" + kind;
}

bool is_performance_signature(const std::string& signature) { return signature.rfind("performance|", 0) == 0; }

bool same_performance_bug(const std::string& a, const std::string& b) {
  auto head = [](const std::string& s) {  // oracle|ref|test|stage
    size_t at = 0;
    for (int i = 0; i < 4 && at != std::string::npos; ++i) at = s.find('|', at + 1);
    return s.substr(0, at);
  };
  return is_performance_signature(a) && head(a) == head(b);
}

std::vector<Finding> performance_findings(const ExecutorOptions& ex, const Program& p,
                                          const std::vector<RunResult>& results, const PerfOptions& o,
                                          const std::function<bool(const PerfCandidate&)>& wanted,
                                          Executor* live) {
  std::vector<Finding> out;
  for (const auto& c : perf_candidates(p, results, o, live))
    if (!wanted || wanted(c))
      if (auto f = confirm_performance(ex, p, c, o)) out.push_back(*f);
  return out;
}

}  // namespace dlfuzz
