// Checking what a subcommand was given: .dlf files (errors printed as
// file:line:col) and runner names.
#pragma once
#include <algorithm>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/dlf.h"
#include "runners/runner.h"
#include "runners/runner_spec.h"

namespace dlfuzz::cli {

inline std::optional<Program> load_or_report(const std::string& path) {
  ParseResult r = load_program(path);
  if (!r.ok()) {
    std::cerr << "dlfuzz: " << r.error->str() << "\n";
    return std::nullopt;
  }
  return std::move(r.program);
}

// True when every name is a runner of the table (`dlfuzz runners`) that this
// build has; else prints which is not and why.
inline bool check_runner_names(const std::string& cmd, const std::vector<std::string>& names) {
  for (const auto& given : names) {
    std::string error;
    auto spec = parse_runner(given, &error);
    if (spec && spec->worker() == WorkerKind::native && spec->env.empty() && !spec->one_process &&
        spec->row->needs != RunnerNeeds::dp && !make_runner(given, &error))
      spec.reset();
    if (!spec) {
      std::vector<std::string> known;
      for (const auto& row : runner_table()) known.push_back(row.name);
      std::cerr << fmt::format("dlfuzz {}: {} (known: {}; `dlfuzz runners` lists them with their suffixes)\n", cmd,
                               error, fmt::join(known, ", "));
      return false;
    }
  }
  return true;
}

// The environments of --envs (`dlfuzz envs`); else prints which is not one.
inline bool check_env_names(const std::string& cmd, const std::vector<std::string>& envs) {
  for (const auto& e : envs) {
    if (is_env_name(e)) continue;
    std::cerr << fmt::format(
        "dlfuzz {}: --envs: '{}' is not an environment (a path, or one of venv, venv-VERSION, "
        "system, build, build-pip; `dlfuzz envs` lists them)\n",
        cmd, e);
    return false;
  }
  return true;
}

}  // namespace dlfuzz::cli
