// dlfuzz gen --seed S [--count N] [--world W] [-o PATH] [--policy FILE] [--ops a,b]
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/policy_options.h"
#include "generator/dlf.h"
#include "generator/generator.h"

namespace dlfuzz::cli {

void add_gen(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("gen", "Generate programs as .dlf text");
  struct Opts {
    uint64_t seed = 0;
    int count = 1, world = 1;
    std::string out, device = "cpu", policy, ops, target = "auto";
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--seed", o->seed, "first seed")->required();
  cmd->add_option("--count", o->count, "number of programs (seeds S, S+1, ...)")->check(CLI::PositiveNumber);
  cmd->add_option("-o,--out", o->out, "output file (count 1) or directory (count > 1); default stdout");
  cmd->add_option("--world", o->world, "ranks: above 1, data-parallel training plans and collectives")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();
  cmd->add_option("--device", o->device, "where the runners put the tensors: cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  add_policy_options(cmd, o->policy, o->ops, o->target);
  cmd->callback([o, action] {
    *action = [o]() -> int {
      GenPolicy base;
      if (!read_policy("gen", o->policy, o->ops, base)) return kExitUsage;
      GenPolicy policy = policy_for_world(o->world, with_target(base, o->target, false));
      policy.device = o->device;
      if (o->count > 1 && !o->out.empty()) std::filesystem::create_directories(o->out);
      for (int i = 0; i < o->count; ++i) {
        uint64_t seed = o->seed + i;
        std::string text = print_program(generate_program(policy, seed));
        if (o->out.empty()) {
          std::cout << text << (o->count > 1 ? "\n" : "");
          continue;
        }
        std::string path = o->count > 1 ? o->out + "/seed_" + std::to_string(seed) + ".dlf" : o->out;
        if (!write_output("dlfuzz gen", path, text)) return kExitCannotWrite;
      }
      return kExitOk;
    };
  });
}

}  // namespace dlfuzz::cli
