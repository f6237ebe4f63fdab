// Each subcommand registers itself on the CLI11 app; main() runs the chosen one.
// Exit codes (all subcommands): 0 success, 1 the system under test failed or
// differed (a finding), 2 usage error or bad input (malformed .dlf, unknown runner),
// 3 the store or an output file cannot be written (disk full, read-only).
#pragma once
#include <CLI/CLI.hpp>

#include <functional>

namespace dlfuzz::cli {

constexpr int kExitOk = 0, kExitFinding = 1, kExitUsage = 2, kExitCannotWrite = 3;

// Sets *action to the code to run when this subcommand is chosen.
void add_gen(CLI::App& app, std::function<int()>* action);
void add_run(CLI::App& app, std::function<int()>* action);
void add_emit(CLI::App& app, std::function<int()>* action);
void add_inspect(CLI::App& app, std::function<int()>* action);
void add_worker(CLI::App& app, std::function<int()>* action);
void add_fuzz(CLI::App& app, std::function<int()>* action);
void add_reduce(CLI::App& app, std::function<int()>* action);
void add_triage(CLI::App& app, std::function<int()>* action);
void add_gate(CLI::App& app, std::function<int()>* action);
void add_libfuzzer(CLI::App& app, std::function<int()>* action);
void add_runners(CLI::App& app, std::function<int()>* action);
void add_envs(CLI::App& app, std::function<int()>* action);

}  // namespace dlfuzz::cli
