#include "runners/worker_main.h"

#include <ATen/Parallel.h>

#include <chrono>

#include "generator/dlf.h"
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
    ParseResult parsed = parse_program(req.is_object() ? req.value("program", "") : "", "<request>");
    RunConfig cfg;
    cfg.warmup = req.is_object() ? req.value("warmup", 3) : 3;
    cfg.backend = req.is_object() ? req.value("backend", "gloo") : "gloo";
    cfg.rank_processes = req.is_object() && req.value("rank_processes", false);
    // One rank of a run whose ranks are processes: this process is that rank.
    int rank = req.is_object() ? req.value("rank", -1) : -1;
    for (const auto& name : req.is_object() ? req["runners"] : nlohmann::json::array()) {
      std::string n = name.get<std::string>();
      RunResult r;
      r.runner = n;
      if (!parsed.ok()) {
        r = failed_run(n, Stage::setup, "bad program: " + parsed.error->str());
      } else {
        // World > 1: the ranks' runners are made per run, one per rank thread.
        bool distributed = is_distributed_run(n, parsed.program);
        auto& runner = runners[n];
        std::string error;
        if (!distributed && !runner) runner = make_runner(n, &error);
        if (!distributed && !runner) {
          r = failed_run(n, Stage::setup, error);
        } else {
          auto t0 = std::chrono::steady_clock::now();
          try {
            if (rank >= 0)
              r = run_rank_in_this_process(n, parsed.program, cfg, rank, req.value("world", 1),
                                           req.value("store_port", 0));
            else r = distributed ? run_distributed(n, parsed.program, cfg) : runner->run(parsed.program, cfg);
            r.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          } catch (...) {  // runners return failures as data; this is the backstop
            record_exception(r);
          }
        }
      }
      if (!write_frame(4, encode_result(r))) return 1;
    }
  }
  return 0;
}

}  // namespace dlfuzz
