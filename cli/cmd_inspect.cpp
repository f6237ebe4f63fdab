// dlfuzz inspect FILE... [--json]
#include <iostream>

#include "cli/commands.h"
#include "cli/load.h"
#include "generator/summary.h"

namespace dlfuzz::cli {

void add_inspect(CLI::App& app, std::function<int()>* action) {
  auto* cmd =
      app.add_subcommand("inspect", "Summarize programs: nodes, op histogram, training, control flow, in-place");
  struct Opts {
    std::vector<std::string> files;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("files", o->files, ".dlf programs")->required();
  cmd->add_flag("--json", o->json, "one JSON object per line");
  cmd->callback([o, action] {
    *action = [o]() -> int {
      int rc = kExitOk;
      for (const auto& f : o->files) {
        auto p = load_or_report(f);
        if (!p) {
          rc = kExitUsage;
          continue;
        }
        ProgramSummary s = summarize(*p);
        if (o->json) {
          nlohmann::json j = to_json(s);
          j["file"] = f;
          std::cout << j.dump() << "\n";
        } else {
          std::cout << f << ": " << s.nodes << " nodes, " << s.ops.size() << " distinct ops"
                    << (s.training ? ", training" : ", inference") << (s.control_flow ? ", control flow" : "")
                    << (s.inplace ? ", in-place" : "") << (s.inplace_on_view ? " (through a view)" : "") << ", world "
                    << s.world << "\n";
        }
      }
      return rc;
    };
  });
}

}  // namespace dlfuzz::cli
