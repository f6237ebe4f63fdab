// dlfuzz runners [--json]: the runner table (runners/Runners.def) and the
// environments a runner name can select with @ENV.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "runners/executor.h"
#include "runners/runner.h"

namespace dlfuzz::cli {

void add_runners(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("runners", "List the runners (the runner table) and the environments");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "as JSON: {runners: [...], environments: [...]}");
  cmd->callback([json, action] {
    *action = [json]() -> int {
      ExecutorOptions eo = default_executor_options();
      std::vector<std::string> built = runner_names();
      auto in_build = [&](const RunnerRow& r) {
        return r.worker == WorkerKind::python ? !eo.python.empty()
                                              : std::find(built.begin(), built.end(), r.name) != built.end();
      };
      nlohmann::json envs = nlohmann::json::array();
      for (const auto& e : named_envs(eo.env_defaults()))
        envs.push_back({{"name", e.name}, {"worker", worker_kind_name(e.kind)}, {"path", e.path}});
      if (*json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& r : runner_table()) {
          nlohmann::json j = to_json(r);
          j["available"] = in_build(r);
          rows.push_back(j);
        }
        // "version": what this binary links; `dlfuzz envs` asks each build for it.
        std::cout
            << nlohmann::json{{"version", torch_version_string()}, {"runners", rows}, {"environments", envs}}.dump(2)
            << "\n";
        return kExitOk;
      }
      // The name and layer columns are as wide as their longest entry.
      size_t name_w = 6, layer_w = 5;
      for (const auto& r : runner_table()) {
        name_w = std::max(name_w, std::string(r.name).size() + 2);
        layer_w = std::max(layer_w, std::string(r.layer).size() + 2);
      }
      const std::string row = "{:<{}}{:<8}{:<10}{:<20}{:<7}{:<6}{:<{}}{}{}\n";
      std::cout << fmt::format(fmt::runtime(row), "runner", name_w, "worker", "family", "reference", "modes", "ranks",
                               "layer", layer_w, "repro backend", "");
      for (const auto& r : runner_table())
        std::cout << fmt::format(fmt::runtime(row), r.name, name_w, worker_kind_name(r.worker), r.family, r.reference,
                                 modes_name(r.modes), r.multi_rank ? "yes" : "no", r.layer, layer_w, r.repro_backend,
                                 in_build(r) ? "" : "  (not available here)");
      std::cout << "\nSuffixes: +plugin:PATH, @1 (one-process reference), @cpu (program on the CPU), @ENV.\n"
                   "Environments (@NAME, or @PATH to a Python interpreter or a dlfuzz binary):\n";
      for (const auto& e : envs)
        std::cout << fmt::format(
            "  {:<12} {:<7} {}\n", e["name"].get<std::string>(), e["worker"].get<std::string>(),
            e["path"].get<std::string>().empty() ? "(not configured)" : e["path"].get<std::string>());
      return kExitOk;
    };
  });
}

}  // namespace dlfuzz::cli
