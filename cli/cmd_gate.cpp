// dlfuzz gate --baseline ts-nnc --candidate plugin:PATH.so [--time 5m] [--junit out.xml]
#include <iostream>

#include "cli/commands.h"
#include "cli/gate.h"
#include "cli/load.h"
#include "cli/options.h"
#include "cli/policy_options.h"
#include "runners/runner_spec.h"

namespace dlfuzz::cli {

void add_gate(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand(
      "gate", "Fuzz a candidate optimization against its baseline: exit 0 may land, 1 new findings or slower, 2 usage");
  struct Opts {
    GateOptions g;
    std::string time = "5m", worlds = "1";
    std::string policy, ops, target = "auto";
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--baseline", o->g.baseline, "baseline runner, e.g. ts-nnc")->required();
  cmd->add_option("--candidate", o->g.candidate,
                  "candidate: plugin:PATH.so (the baseline plus the plugin's graph passes) or a runner name")
      ->required();
  cmd->add_option("--time", o->time, "budget: 90s, 5m, 1h")->capture_default_str();
  cmd->add_option("--programs", o->g.programs, "a number of programs instead of a time budget")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", o->g.seed, "first seed")->capture_default_str();
  cmd->add_option("--world", o->worlds, "ranks per program, e.g. 1,2")->capture_default_str();
  cmd->add_option("--threshold", o->g.threshold, "slowdown that counts as a regression (0.10 = 10%)")
      ->capture_default_str();
  cmd->add_flag("--keep-going", o->g.keep_going, "fuzz the whole budget even after a new finding");
  cmd->add_option("--timeout", o->g.timeout_ms, "milliseconds one runner may take on one program")
      ->capture_default_str();
  cmd->add_option("--reduce", o->g.reduce_seconds, "seconds to reduce each new finding")->capture_default_str();
  cmd->add_option("--db", o->g.db, "SQLite store for new findings")->capture_default_str();
  cmd->add_option("-o,--out", o->g.out_dir, "directory for reduced programs and reports")->capture_default_str();
  cmd->add_option("--junit", o->g.junit, "write a JUnit XML report here");
  add_policy_options(cmd, o->policy, o->ops, o->target);
  cmd->callback([o, action] {
    *action = [o]() -> int {
      GateOptions g = o->g;
      g.seconds = parse_duration(o->time);
      if (g.seconds < 0) {
        std::cerr << "dlfuzz gate: --time '" << o->time << "' is not a duration (90s, 5m, 1h)\n";
        return kExitUsage;
      }
      g.worlds = parse_worlds(o->worlds);
      if (g.worlds.empty()) {
        std::cerr << "dlfuzz gate: --world '" << o->worlds << "' is not a list of world sizes from 1 to 8\n";
        return kExitUsage;
      }
      if (!read_policy("gate", o->policy, o->ops, g.policy)) return kExitUsage;
      if (!check_runner_names("gate", {g.baseline})) return kExitUsage;
      if (g.candidate.rfind("plugin:", 0) != 0 && !check_runner_names("gate", {g.candidate})) return kExitUsage;
      bool plugin = g.candidate.rfind("plugin:", 0) == 0;
      auto python = [](const std::string& r) { return runner_spec(r).worker() == WorkerKind::python; };
      g.policy = with_target(g.policy, o->target, !plugin && python(g.baseline) && python(g.candidate));
      return run_gate(g);
    };
  });
}

}  // namespace dlfuzz::cli
