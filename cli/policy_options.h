// Steering the generator from the command line: `--policy FILE` (a GenPolicy
// as JSON, generator/gen_policy.h) and `--ops a,b` (focus on these ops), for
// the subcommands that generate programs (fuzz, gen).
#pragma once
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "generator/gen_policy.h"

namespace dlfuzz::cli {

inline void add_policy_options(CLI::App* cmd, std::string& policy_file, std::string& ops, std::string& target) {
  cmd->add_option("--policy", policy_file,
                  "generator policy as JSON: any GenPolicy knob (sizes, p_training, p_special_values, "
                  "dtype_weights, family_weights, focus_ops, exclude_ops); the rest keep their defaults");
  cmd->add_option("--ops", ops, "focus on these ops, e.g. index_put_,scatter_reduce (most ops drawn from the list)");
  cmd->add_option("--target", target,
                  "the PyTorch programs are written for: torch1.13 (what every runner runs), torch2 (int16, half "
                  "everywhere, rms_norm, scaled_dot_product_attention), or auto: torch2 where only PyTorch 2.x's "
                  "runners run a program, else the policy's (torch1.13 by default); the C++ runners of a LibTorch 1.13 "
                  "build run torch1.13 programs under torch2 too")
      ->check(CLI::IsMember({"auto", "torch1.13", "torch2"}))
      ->capture_default_str();
}

// The policy's target for programs that `python_only` runners (the Python
// worker's, PyTorch 2.x) run: --target when given, torch2 under auto.
inline GenPolicy with_target(GenPolicy policy, const std::string& target, bool python_only) {
  if (target == "torch2" || (target == "auto" && python_only)) policy.target = Target::torch2;
  if (target == "torch1.13") policy.target = Target::torch113;
  return policy;
}

// The policy the options describe; false (after a message naming the command
// and the file) when the file is unreadable or wrong, or an op is unknown.
inline bool read_policy(const std::string& command, const std::string& policy_file, const std::string& ops,
                        GenPolicy& policy) {
  if (!policy_file.empty()) {
    std::ifstream f(policy_file);
    if (!f) {
      std::cerr << "dlfuzz " << command << ": cannot read policy file " << policy_file << "\n";
      return false;
    }
    std::stringstream text;
    text << f.rdbuf();
    if (auto e = policy_from_json(text.str(), policy); !e.empty()) {
      std::cerr << "dlfuzz " << command << ": " << policy_file << ": " << e << "\n";
      return false;
    }
  }
  if (!ops.empty()) {
    policy.focus_ops = CLI::detail::split(ops, ',');
    if (auto e = check_policy_ops(policy); !e.empty()) {
      std::cerr << "dlfuzz " << command << ": --ops: " << e << "\n";
      return false;
    }
  }
  return true;
}

}  // namespace dlfuzz::cli
