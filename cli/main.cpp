// dlfuzz: differential testing and fuzzing of deep-learning compilers.
#include <iostream>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace dlfuzz::cli;
  CLI::App app{
      "dlfuzz: differential testing and fuzzing of deep-learning compilers\n"
      "exit codes: 0 ok, 1 finding (the system under test failed or differed), 2 usage or input error"};
  app.require_subcommand(1);
  std::function<int()> action;
  add_gen(app, &action);
  add_run(app, &action);
  add_emit(app, &action);
  add_inspect(app, &action);
  add_fuzz(app, &action);
  add_reduce(app, &action);
  add_triage(app, &action);
  add_gate(app, &action);
  add_libfuzzer(app, &action);
  add_runners(app, &action);
  add_envs(app, &action);
  add_worker(app, &action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  return action ? action() : kExitUsage;
}
