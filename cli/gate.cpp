#include "cli/gate.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "cli/campaign.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/python_env_check.h"
#include "generator/dlf.h"
#include "generator/generator.h"
#include "oracles/evaluate.h"
#include "oracles/perf_compare.h"
#include "oracles/perf_stats.h"
#include "runners/plugin_runner.h"
#include "runners/runner_spec.h"
#include "triage/junit.h"
#include "triage/report.h"
#include "triage/store.h"

namespace dlfuzz {

namespace {
using Clock = std::chrono::steady_clock;

// A finding's bug without the runner names: the same bug seen through the
// baseline and the candidate has the same key.
std::string bug_key(const Finding& f) { return f.oracle + "|" + f.stage + "|" + f.error_text; }

struct NewFinding {
  uint64_t seed;
  int64_t bug;
  Finding finding;
  std::string reduced, report;
};
}  // namespace

int run_gate(const GateOptions& opt) {
  std::string candidate = opt.candidate;
  if (candidate.rfind("plugin:", 0) == 0) {
    std::string path = std::filesystem::absolute(candidate.substr(7)).string();
    try {
      const PluginInfo& info = load_plugin(path);
      std::cout << fmt::format("gate: plugin {} registers {} pass(es)\n", path, info.passes.size());
    } catch (const std::exception& e) {
      std::cerr << "dlfuzz gate: " << e.what() << "\n";
      return 2;
    }
    candidate = opt.baseline + "+plugin:" + path;
    std::string error;
    if (!parse_runner(candidate, &error)) {
      std::cerr << "dlfuzz gate: " << error << "\n";
      return 2;
    }
  }
  std::unique_ptr<Store> store;
  try {
    store = std::make_unique<Store>(opt.db);
  } catch (const StoreError& e) {
    std::cerr << "dlfuzz gate: " << e.what() << "\n";
    return 2;
  }
  std::filesystem::create_directories(opt.out_dir);
  ExecutorOptions eo = default_executor_options();
  eo.timeout_ms = opt.timeout_ms;
  eo.timed_calls = 5;  // steady-state calls: compilation and warm-up are not the candidate's speed
  Executor ex(eo);
  // A gate over PyTorch 2.x compares timings users would not get from a
  // broken install: say so (cli/python_env_check.h).
  std::string environment;
  bool python = false;
  for (const std::string& r : {opt.baseline, candidate}) {
    auto spec = parse_runner(r);
    python = python || (spec && spec->worker() == WorkerKind::python);
  }
  if (python) {
    nlohmann::json env = cli::check_python_env(eo);
    if (env.contains("error")) environment = "not checked: " + env["error"].get<std::string>();
    for (const auto& w : env.value("warnings", nlohmann::json::array()))
      environment += (environment.empty() ? "" : "; ") + w.get<std::string>();
    if (!environment.empty()) std::cout << "gate: environment: " << environment << "\n";
  }
  int64_t campaign = store->begin_campaign(
      fmt::format(R"({{"gate":true,"baseline":"{}","candidate":"{}"}})", opt.baseline, candidate), "");
  std::vector<GenPolicy> policies;
  for (int w : opt.worlds) policies.push_back(policy_for_world(w, opt.policy));

  JUnitSuite suite{"dlfuzz gate", now_utc(), {{"baseline", opt.baseline}, {"candidate", candidate}}, {}};
  std::vector<NewFinding> found;
  std::vector<double> base_ms, cand_ms;
  std::string versions;
  auto t0 = Clock::now();
  int64_t programs = 0;
  for (int64_t i = 0;; ++i) {
    double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    if (opt.programs > 0 ? i >= opt.programs : elapsed >= opt.seconds) break;
    if (!found.empty() && !opt.keep_going) break;
    uint64_t seed = opt.seed + static_cast<uint64_t>(i);
    Program p = generate_program(policies[i % policies.size()], seed);
    auto p0 = Clock::now();
    Evaluation ev = evaluate(ex, p, {opt.baseline, candidate}, /*recheck=*/true);
    if (!ev.reference_failures.empty() || ev.results.empty()) continue;  // not a valid program for this PyTorch
    ++programs;
    versions = ev.versions;
    JUnitCase tc{"dlfuzz.gate.correctness", fmt::format("seed {} ({} nodes)", seed, p.count_nodes()),
                 std::chrono::duration<double>(Clock::now() - p0).count()};
    std::set<std::string> baseline_bugs;
    for (const auto& f : ev.findings)
      if (f.test_runner == opt.baseline) baseline_bugs.insert(bug_key(f));
    for (const auto& f : ev.findings) {
      if (f.test_runner != candidate || f.flaky || baseline_bugs.count(bug_key(f))) continue;
      std::string hash = store->add_program(print_program(p), seed, p.count_nodes());
      int64_t bug = store->add_finding(campaign, hash, f, ev.versions);
      found.push_back({seed, bug, f, "", ""});
      tc.failed = true;
      tc.failure_type = f.oracle;
      tc.failure_message = fmt::format("{}: {} vs {} at {}", f.oracle, f.test_runner, f.ref_runner, f.stage);
      tc.failure_text = f.detail;
      std::cout << fmt::format("gate: NEW finding on seed {}: {}\n", seed, f.detail.substr(0, 300)) << std::flush;
      break;
    }
    const RunResult *b = nullptr, *c = nullptr;
    for (const auto& r : ev.results) {
      if (r.runner == opt.baseline) b = &r;
      if (r.runner == candidate) c = &r;
    }
    if (b && c && b->ok() && c->ok() && !b->call_ms.empty() && !c->call_ms.empty()) {
      base_ms.push_back(median(b->call_ms));
      cand_ms.push_back(median(c->call_ms));
    }
    suite.cases.push_back(tc);
  }
  store->end_campaign(campaign, programs, static_cast<int64_t>(found.size()));

  for (auto& nf : found) {
    nf.reduced = fmt::format("{}/bug-{}.dlf", opt.out_dir, nf.bug);
    if (!reduce_bug(opt.db, nf.bug, opt.reduce_seconds, nf.reduced)) nf.reduced = "(did not reproduce for reduction)";
    store = std::make_unique<Store>(opt.db);  // reopen: the reducer wrote to it
    if (auto d = load_bug(*store, nf.bug)) {
      nf.report = fmt::format("{}/bug-{}.md", opt.out_dir, nf.bug);
      if (!cli::write_output("dlfuzz gate", nf.report, markdown_report(*d, opt.db))) nf.report = "(not written)";
    }
    for (auto& tc : suite.cases)
      if (tc.name.rfind(fmt::format("seed {} ", nf.seed), 0) == 0)
        tc.failure_text += fmt::format("\nreduced: {}\nreport: {}", nf.reduced, nf.report);
    std::cout << fmt::format("gate: bug {} reduced: {}; report: {}\n", nf.bug, nf.reduced, nf.report);
  }

  PerfComparison perf = compare_times(base_ms, cand_ms, opt.threshold);
  std::string perf_line = fmt::format(
      "candidate/baseline steady-state time per call (median of 5 calls after warm-up, per program): geometric mean {:.3f} (95% CI {:.3f}-{:.3f}) over {} programs; threshold +{:.0f}%",
      perf.geomean, perf.ci_low, perf.ci_high, perf.programs, opt.threshold * 100);
  JUnitCase pc{"dlfuzz.gate.performance", "run time against the baseline", 0};
  if (perf.regression) {
    pc.failed = true;
    pc.failure_type = "performance";
    pc.failure_message = fmt::format("{:.1f}% slower than {}", (perf.geomean - 1) * 100, opt.baseline);
    pc.failure_text = perf_line;
  }
  suite.cases.push_back(pc);
  suite.properties.push_back({"versions", versions});
  if (!environment.empty()) suite.properties.push_back({"environment", environment});
  bool junit_written = opt.junit.empty() || cli::write_output("dlfuzz gate", opt.junit, junit_xml(suite));
  if (!opt.junit.empty() && junit_written) std::cout << "gate: JUnit report " << opt.junit << "\n";
  std::cout << fmt::format("gate: {} programs, {} new finding(s); {}\n", programs, found.size(), perf_line);
  bool blocked = !found.empty() || perf.regression;
  std::cout << (blocked ? "gate: BLOCKED" : "gate: PASSED") << fmt::format(" ({} vs {})\n", candidate, opt.baseline);
  if (!junit_written) return cli::kExitCannotWrite;  // a verdict its CI cannot read is no verdict
  return blocked ? 1 : 0;
}

}  // namespace dlfuzz
