// dlfuzz run FILE --runners eager,eager64 [--json]
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/load.h"
#include "runners/runner.h"

namespace dlfuzz::cli {

void add_run(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("run", "Run one program through runners and report each result");
  struct Opts {
    std::string file;
    std::string runners = "eager";
    bool json = false, values = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("file", o->file, ".dlf program")->required();
  cmd->add_option("--runners", o->runners, "comma-separated runner names")->capture_default_str();
  cmd->add_flag("--json", o->json, "print results as JSON");
  cmd->add_flag("--values", o->values, "with --json: include tensor values");
  cmd->callback([o, action] {
    *action = [o]() -> int {
      std::vector<std::unique_ptr<Runner>> runners;
      for (const auto& name : CLI::detail::split(o->runners, ',')) {
        auto r = make_runner(name);
        if (!r) {
          std::cerr << fmt::format("dlfuzz run: unknown runner '{}' (known: {})\n", name, fmt::join(runner_names(), ", "));
          return kExitUsage;
        }
        runners.push_back(std::move(r));
      }
      auto p = load_or_report(o->file);
      if (!p) return kExitUsage;
      int rc = kExitOk;
      nlohmann::json all = nlohmann::json::array();
      for (auto& r : runners) {
        if (!r->supports(*p)) {
          if (!o->json) std::cout << r->name() << ": skipped (does not apply to this program)\n";
          continue;
        }
        RunResult res = r->run(*p, RunConfig{});
        if (!res.ok()) rc = kExitFinding;
        if (o->json) {
          all.push_back(to_json(res, o->values));
          continue;
        }
        std::cout << fmt::format("{}: {}", res.runner, status_name(res.status));
        if (!res.ok()) std::cout << fmt::format(" at {}: {}", stage_name(res.stage), res.error);
        std::cout << fmt::format(" ({:.1f} ms)\n", res.run_ms);
        for (size_t i = 0; i < res.outputs.size(); ++i) {
          const auto& t = res.outputs[i];
          std::cout << fmt::format("  output {}: {}[{}]", i, dtype_name(t.dtype), fmt::join(t.shape, ","));
          if (t.numel() > 0) std::cout << fmt::format(" first={}", t.at(0));
          std::cout << "\n";
        }
        if (!res.losses.empty()) std::cout << fmt::format("  losses: {}\n", fmt::join(res.losses, ", "));
      }
      if (o->json) std::cout << all.dump(2) << "\n";
      return rc;
    };
  });
}

}  // namespace dlfuzz::cli
