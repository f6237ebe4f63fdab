#include "runners/worker_main.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>

#include "generator/dlf.h"
#include "oracles/perf_stats.h"
#include "runners/distributed/dist_runner.h"
#include "runners/distributed/rank_processes.h"
#include "runners/plugin_runner.h"
#include "runners/program_driver.h"
#include "runners/runner.h"
#include "runners/wire.h"

namespace dlfuzz {

int worker_main() {
  // One thread each: deterministic timings on a 2-core machine, and no thread
  // pools that could misbehave if anything forks.
  at::set_num_threads(1);
  at::set_num_interop_threads(1);
  std::map<std::string, std::unique_ptr<Runner>> runners;
  std::string payload;
  while (read_frame(3, payload, -1) == ReadStatus::ok) {
    nlohmann::json req = nlohmann::json::parse(payload, nullptr, false);
    if (!req.is_object()) req = nlohmann::json::object();
    ParseResult parsed = parse_program(req.value("program", ""), "<request>");
    RunConfig cfg;
    cfg.warmup = req.value("warmup", 3);
    cfg.timed_calls = req.value("timed_calls", 0);
    std::string profile_dir = req.value("profile_dir", "");
    cfg.profile_dir = profile_dir;
    cfg.backend = req.value("backend", "gloo");
    cfg.rank_processes = req.value("rank_processes", false);
    // One rank of a run whose ranks are processes: this process is that rank.
    int rank = req.value("rank", -1);
    auto run_named = [&](const std::string& n) {
      RunResult r;
      r.runner = n;
      if (!parsed.ok()) return failed_run(n, Stage::setup, "bad program: " + parsed.error->str());
      if (parsed.program.autocast)
        return failed_run(n, Stage::setup,
                          "autocast programs run in the Python worker: LibTorch's runners do not autocast");
      // World > 1: the ranks' runners are made per run, one per rank thread.
      bool distributed = is_distributed_run(n, parsed.program);
      auto& runner = runners[n];
      std::string error;
      if (!distributed && !runner) runner = make_runner(n, &error);
      if (!distributed && !runner) return failed_run(n, Stage::setup, error);
      auto t0 = std::chrono::steady_clock::now();
      try {
        if (rank >= 0)
          r = run_rank_in_this_process(n, parsed.program, cfg, rank, req.value("world", 1), req.value("store_port", 0));
        else r = distributed ? run_distributed(n, parsed.program, cfg) : runner->run(parsed.program, cfg);
        r.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      } catch (...) {  // runners return failures as data; this is the backstop
        record_exception(r);
      }
      return r;
    };
    std::vector<std::string> names;
    for (const auto& name : req.value("runners", nlohmann::json::array())) names.push_back(name.get<std::string>());
    int pairs = req.value("pairs", 0);
    // The worker idles while the parent works; the first runner of a timed
    // request then ran slower than the later ones (the reference is first:
    // stage 1 missed planted slowdowns). A CPU-frequency ramp is the likely
    // cause, not proven: be busy for a moment first, then time.
    if (cfg.timed_calls > 0 || pairs > 0) spin_for(30);
    if (pairs <= 0) {
      for (const auto& n : names)
        if (!write_frame(4, encode_result(run_named(n)))) return 1;
      continue;
    }
    // Paired timing: the runners take turns, in alternating order, `pairs`
    // times; each turn is one run whose timed calls give one median. Drift
    // of the machine (another process, frequency) then falls on every runner
    // alike. The first failure of a runner ends its series.
    if (cfg.timed_calls <= 0) cfg.timed_calls = 3;
    cfg.profile_dir.clear();  // the last pair profiles, so that profiling does not slow the others
    std::vector<RunResult> last(names.size());
    std::vector<std::vector<double>> series(names.size());
    for (int i = 0; i < pairs; ++i)
      for (size_t k = 0; k < names.size(); ++k) {
        size_t j = i % 2 ? names.size() - 1 - k : k;
        if (i > 0 && !last[j].ok()) continue;
        if (i == pairs - 1) cfg.profile_dir = profile_dir;
        last[j] = run_named(names[j]);
        if (last[j].ok()) series[j].push_back(median(last[j].call_ms));
      }
    for (size_t j = 0; j < names.size(); ++j) {
      last[j].call_ms = series[j];
      if (!write_frame(4, encode_result(last[j]))) return 1;
    }
  }
  return 0;
}

}  // namespace dlfuzz
