// Checking what a subcommand was given: .dlf files (errors printed as
// file:line:col) and runner names.
#pragma once
#include <algorithm>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/dlf.h"
#include "runners/distributed/dist_runner.h"
#include "runners/executor.h"
#include "runners/runner.h"

namespace dlfuzz::cli {

inline std::optional<Program> load_or_report(const std::string& path) {
  ParseResult r = load_program(path);
  if (!r.ok()) {
    std::cerr << "dlfuzz: " << r.error->str() << "\n";
    return std::nullopt;
  }
  return std::move(r.program);
}

// True when every name is a runner this build has; else prints which is not.
inline bool check_runner_names(const std::string& cmd, const std::vector<std::string>& names) {
  const auto& dist = distributed_fault_names();
  for (const auto& given : names) {
    std::string name = is_one_process_runner(given) ? given.substr(0, given.size() - 2) : given;
    if (!is_python_runner(name) && !make_runner(name) && std::find(dist.begin(), dist.end(), name) == dist.end()) {
      std::cerr << fmt::format("dlfuzz {}: unknown runner '{}' (known: {}, {}, {}; RUNNER@1 for one process)\n", cmd, given,
                               fmt::join(runner_names(), ", "), fmt::join(python_runner_names(), ", "),
                               fmt::join(dist, ", "));
      return false;
    }
  }
  return true;
}

}  // namespace dlfuzz::cli
