// dlfuzz worker: the crash-isolated runner process (internal; the campaign and
// `run --isolate` start it). Requests on fd 3, results on fd 4.
#include "cli/commands.h"
#include "runners/worker_main.h"

namespace dlfuzz::cli {

void add_worker(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("worker", "");  // empty description: hidden from --help
  cmd->callback([action] { *action = [] { return worker_main(); }; });
}

}  // namespace dlfuzz::cli
