// Options more than one subcommand parses: durations, world lists, --backend
// and --ranks.
#pragma once
#include <cctype>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "oracles/oracle_table.h"

namespace dlfuzz::cli {

// "90", "90s", "10m", "2h" -> seconds; -1 if malformed.
inline double parse_duration(const std::string& s) {
  if (s.empty()) return -1;
  char unit = s.back();
  double mult = unit == 'h' ? 3600 : unit == 'm' ? 60 : 1;
  std::string num = std::isdigit(static_cast<unsigned char>(unit)) ? s : s.substr(0, s.size() - 1);
  try {
    size_t used;
    double v = std::stod(num, &used);
    return used == num.size() && v >= 0 ? v * mult : -1;
  } catch (...) {
    return -1;
  }
}

// "2,4" -> {2, 4}; empty if any is not a world size from 1 to 8.
inline std::vector<int> parse_worlds(const std::string& s) {
  std::vector<int> worlds;
  for (const auto& w : CLI::detail::split(s, ',')) {
    int n = std::atoi(w.c_str());
    if (n < 1 || n > 8 || std::to_string(n) != w) return {};
    worlds.push_back(n);
  }
  return worlds;
}

// --backend and --ranks, for the subcommands that run programs with world > 1.
inline void add_rank_options(CLI::App* cmd, std::string& backend, std::string& ranks) {
  cmd->add_option("--backend", backend,
                  "process groups of programs with world > 1: gloo (CPU) or nccl (a GPU per rank)")
      ->check(CLI::IsMember({"gloo", "nccl"}))
      ->capture_default_str();
  cmd->add_option("--ranks", ranks,
                  "Gloo ranks as threads of the worker (HashStore) or as processes of their own "
                  "(TCPStore on 127.0.0.1)")
      ->check(CLI::IsMember({"threads", "processes"}))
      ->capture_default_str();
}

// --perf and --perf-threshold: the timing oracle (oracles/perf_oracle.h).
inline void add_perf_options(CLI::App* cmd, bool& perf, double& threshold) {
  cmd->add_flag("--perf", perf,
                "timings too: steady-state calls timed after warm-up; a candidate slower than its reference is "
                "confirmed by paired calls in fresh workers and stored as a performance finding");
  cmd->add_option("--perf-threshold", threshold,
                  "a performance finding needs the 95% interval of the time ratio above 1 + this")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
}

// The oracles that are off by default (oracles/oracle_table.h).
inline void add_strict_options(CLI::App* cmd) {
  cmd->add_flag_callback(
      "--strict-zeros", [] { oracle_settings().strict_zeros = true; },
      "strict mode: a zero of the other sign (where float64 agrees with the reference) is a finding of its own, "
      "low-severity class (oracle signed-zero)");
}

}  // namespace dlfuzz::cli
