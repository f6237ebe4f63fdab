// dlfuzz envs [--json]: the environments a runner can run in (RUNNER@ENV) and
// the PyTorch each has: a Python interpreter is asked for torch.__version__, a
// dlfuzz build for the LibTorch it links (`dlfuzz runners --json`).
#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "runners/executor.h"

namespace dlfuzz::cli {

namespace {
// stdout of an argument vector (no shell), or "" when it fails.
std::string output_of(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& a : argv) {
    std::string quoted = "'";
    for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    cmd += quoted + "' ";
  }
  FILE* f = popen((cmd + "2>/dev/null").c_str(), "r");
  if (!f) return "";
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  int status = pclose(f);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? out : "";
}

std::string version_of(const WorkerEnv& e) {
  if (e.path.empty() || !std::filesystem::exists(e.path)) return "";
  if (e.kind == WorkerKind::python) {
    std::string v = output_of({e.path, "-c", "import torch, sys; sys.stdout.write(torch.__version__)"});
    return v.empty() ? "" : "torch " + v;
  }
  try {
    return nlohmann::json::parse(output_of({e.path, "runners", "--json"})).value("version", "");
  } catch (const std::exception&) {
    return "";
  }
}
}  // namespace

void add_envs(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("envs", "List the environments (RUNNER@ENV) with their PyTorch versions");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "as JSON");
  cmd->callback([json, action] {
    *action = [json]() -> int {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& e : named_envs(default_executor_options().env_defaults()))
        rows.push_back(
            {{"name", e.name}, {"worker", worker_kind_name(e.kind)}, {"path", e.path}, {"version", version_of(e)}});
      if (*json) {
        std::cout << rows.dump(2) << "\n";
        return kExitOk;
      }
      for (const auto& r : rows) {
        std::string v = r["version"];
        std::cout << fmt::format("{:<14}{:<8}{:<42}{}\n", r["name"].get<std::string>(), r["worker"].get<std::string>(),
                                 r["path"].get<std::string>(), v.empty() ? "(not available)" : v);
      }
      return kExitOk;
    };
  });
}

}  // namespace dlfuzz::cli
