// dlfuzz libfuzzer [--db F] [--runners a,b] [-- LIBFUZZER_ARGS...]
// Runs the coverage-guided fuzz target (build/dlfuzz-libfuzzer, built where
// clang with libFuzzer is installed) with libFuzzer's usual flags.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "oracles/evaluate.h"

namespace dlfuzz::cli {

void add_libfuzzer(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand(
      "libfuzzer",
      "Coverage-guided fuzzing: libFuzzer over the generator's choices (flags after --: -max_total_time, -jobs, CORPUS)");
  struct Opts {
    std::string db = "libfuzzer.db", runners = "ts,ts-nnc,ts-legacy,frozen,static";
    std::vector<std::string> args;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--db", o->db, "SQLite store for findings")->capture_default_str();
  cmd->add_option("--runners", o->runners, "LibTorch runners under test")->capture_default_str();
  cmd->add_option("args", o->args, "libFuzzer's arguments: corpus directories and -flags (after --)");
  cmd->callback([o, action] {
    *action = [o]() -> int {
      std::filesystem::path self = default_executor_options().dlfuzz_binary;
      std::string target = (self.parent_path() / "dlfuzz-libfuzzer").string();
      if (access(target.c_str(), X_OK) != 0) {
        std::cerr << "dlfuzz libfuzzer: " << target
                  << " is not built (it needs clang with libFuzzer: apt-get install clang, then rebuild)\n";
        return kExitUsage;
      }
      setenv("DLFUZZ_DB", o->db.c_str(), 1);
      setenv("DLFUZZ_RUNNERS", o->runners.c_str(), 1);
      std::vector<char*> argv = {const_cast<char*>(target.c_str())};
      for (auto& a : o->args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(target.c_str(), argv.data());
      std::cerr << "dlfuzz libfuzzer: cannot run " << target << "\n";
      return kExitUsage;
    };
  });
}

}  // namespace dlfuzz::cli
