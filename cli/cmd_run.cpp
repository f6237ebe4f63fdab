// dlfuzz run FILE [--runners a,b] [--envs OLD,NEW] [--world N] [--json [--values]] [--bisect] [--in-process]
// Replays one program: the runners under test and their references, each in a
// crash-isolated worker, judged by the oracles. Exit 1 when there are findings.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/options.h"
#include "generator/verify.h"
#include "oracles/evaluate.h"
#include "oracles/perf_oracle.h"
#include "runners/distributed/dist_runner.h"
#include "runners/executor.h"
#include "runners/runner.h"
#include "triage/pass_bisect.h"

namespace dlfuzz::cli {

namespace {
void print_result(const RunResult& res) {
  std::cout << fmt::format("{}: {}", res.runner, status_name(res.status));
  if (!res.ok()) std::cout << fmt::format(" at {}: {}", stage_name(res.stage), res.error.substr(0, 600));
  std::cout << fmt::format(" ({:.1f} ms", res.run_ms);
  if (!res.call_ms.empty()) std::cout << fmt::format("; {:.3f} ms per steady-state call", median(res.call_ms));
  std::cout << ")\n";
  if (!res.counters.empty()) {
    std::cout << "  counters:";
    for (const auto& [k, v] : res.counters) std::cout << fmt::format(" {}={}", k, v);
    std::cout << "\n";
  }
  for (size_t i = 0; i < res.outputs.size(); ++i) {
    const auto& t = res.outputs[i];
    if (!t.defined) continue;
    std::cout << fmt::format("  output {}: {}[{}]", i, dtype_name(t.dtype), fmt::join(t.shape, ","));
    if (t.numel() > 0) std::cout << fmt::format(" first={}", t.at(0));
    std::cout << "\n";
  }
  if (!res.losses.empty()) std::cout << fmt::format("  losses: {}\n", fmt::join(res.losses, ", "));
}
}  // namespace

void add_run(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("run", "Replay one program through runners and the oracles");
  struct Opts {
    std::string file;
    std::string runners = "ts,ts-nnc,ts-legacy,frozen";
    bool json = false, values = false, in_process = false;
    int timeout = 60;
    int world = 0;
    std::string backend = "gloo", ranks = "threads";
    std::string envs;
    bool perf = false;
    double perf_threshold = 0.10;
    bool bisect = false;
    double fail_above = 1e-3;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("file", o->file, ".dlf program")->required();
  add_perf_options(cmd, o->perf, o->perf_threshold);
  add_strict_options(cmd);
  cmd->add_option("--runners", o->runners, "runners under test (references are added)")->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "seconds one runner may take")->capture_default_str();
  cmd->add_flag("--json", o->json, "print results and findings as JSON");
  cmd->add_flag("--values", o->values, "with --json: include tensor values");
  cmd->add_flag("--in-process", o->in_process, "run LibTorch runners in this process (no isolation, no oracles)");
  cmd->add_option("--world", o->world, "run over this many ranks instead of the program's world size")
      ->check(CLI::Range(1, 8));
  add_rank_options(cmd, o->backend, o->ranks);
  cmd->add_flag("--bisect", o->bisect,
                "name the pass inside each finding's layer (triage/pass_bisect.h: NNC's fusion decision for ts-nnc, "
                "PyTorch's compiler_bisector for torch.compile runners; minutes each)");
  cmd->add_option("--fail-above", o->fail_above, "with --bisect: the repro's max abs diff that still shows a bug")
      ->capture_default_str();
  cmd->add_option("--envs", o->envs,
                  "run each runner on these environments, oldest first (e.g. system,venv or build,build-pip; "
                  "`dlfuzz envs`), and compare them with the version oracle");
  cmd->callback([o, action] {
    *action = [o]() -> int {
      std::vector<std::string> names = CLI::detail::split(o->runners, ',');
      if (!check_runner_names("run", names)) return kExitUsage;
      auto p = load_or_report(o->file);
      if (!p) return kExitUsage;
      if (o->world > 0 && o->world != p->plan.world) {
        // A data-parallel program runs on any world (its shapes are per rank);
        // explicit collectives have shapes that depend on it.
        change_world(*p, o->world);
        if (std::string err = verify(*p); !err.empty()) {
          std::cerr << fmt::format("dlfuzz run: {} cannot run over {} ranks: {}\n", o->file, o->world, err);
          return kExitUsage;
        }
      }
      if (o->in_process) {
        int rc = kExitOk;
        for (const auto& name : names) {
          RunResult res;
          RunConfig cfg;
          cfg.backend = o->backend;
          cfg.rank_processes = o->ranks == "processes";
          if (is_distributed_run(name, *p)) {
            res = run_distributed(name, *p, cfg);
          } else {
            auto r = make_runner(name);
            if (!r) continue;
            res = r->run(*p, RunConfig{});
          }
          rc = res.ok() ? rc : kExitFinding;
          print_result(res);
        }
        return rc;
      }
      ExecutorOptions eo = default_executor_options();
      eo.timeout_ms = o->timeout * 1000;
      eo.backend = o->backend;
      eo.rank_processes = o->ranks == "processes";
      PerfOptions perf;
      perf.threshold = o->perf_threshold;
      if (o->perf) eo.timed_calls = perf.timed_calls;
      Executor ex(eo);
      std::vector<std::string> envs = CLI::detail::split(o->envs, ',');
      if (o->envs.empty()) envs.clear();
      if (!check_env_names("run", envs)) return kExitUsage;
      Evaluation ev = envs.empty() ? evaluate(ex, *p, names, /*recheck=*/true)
                                   : evaluate_versions(ex, *p, names, envs, /*recheck=*/true);
      if (o->perf)
        for (auto& f : performance_findings(eo, *p, ev.results, perf, nullptr, &ex)) ev.findings.push_back(f);
      // The pass inside each finding's layer, or why none is named.
      std::vector<std::string> passes(ev.findings.size());
      if (o->bisect)
        for (size_t i = 0; i < ev.findings.size(); ++i) {
          const Finding& f = ev.findings[i];
          std::string why = why_not_bisectable(f.test_runner, f.oracle);
          PassBisection b;
          if (why.empty()) b = bisect_pass(eo, *p, f.test_runner, f.signature(), o->fail_above);
          passes[i] = !b.pass.empty() ? b.pass : "not bisected: " + (why.empty() ? b.error : why);
        }
      if (o->json) {
        nlohmann::json j = {{"results", nlohmann::json::array()},
                            {"findings", nlohmann::json::array()},
                            {"skipped", ev.skipped},
                            {"versions", ev.versions}};
        for (const auto& r : ev.results) j["results"].push_back(to_json(r, o->values));
        for (size_t i = 0; i < ev.findings.size(); ++i) {
          const Finding& f = ev.findings[i];
          j["findings"].push_back({{"oracle", f.oracle},
                                   {"ref", f.ref_runner},
                                   {"test", f.test_runner},
                                   {"stage", f.stage},
                                   {"detail", f.detail},
                                   {"signature", f.signature()},
                                   {"kind", f.kind == FindingKind::performance ? "performance" : "correctness"},
                                   {"evidence", f.evidence},
                                   {"layer", f.layer},
                                   {"ablation", f.ablation},
                                   {"first_op", f.first_op},
                                   {"first_op_detail", f.first_op_detail},
                                   {"pass", passes[i]},
                                   {"flaky", f.flaky}});
        }
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      } else {
        for (const auto& r : ev.results) print_result(r);
        for (const auto& s : ev.skipped) std::cout << s << ": skipped (does not apply to this program)\n";
        for (size_t i = 0; i < ev.findings.size(); ++i) {
          const Finding& f = ev.findings[i];
          std::cout << fmt::format("FINDING [{}] {} vs {}{}: {}{}\n", f.oracle, f.test_runner, f.ref_runner,
                                   f.flaky ? " (flaky)" : "", f.detail,
                                   f.layer.empty() ? "" : " [layer: " + f.layer + "]");
          if (!f.first_op_detail.empty()) std::cout << "  first diverging op: " << f.first_op_detail << "\n";
          if (!passes[i].empty()) std::cout << "  pass: " << passes[i] << "\n";
        }
        if (ev.findings.empty()) std::cout << "no findings\n";
      }
      return ev.findings.empty() ? kExitOk : kExitFinding;
    };
  });
}

}  // namespace dlfuzz::cli
