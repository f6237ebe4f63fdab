// dlfuzz emit FILE --to torchscript|python|worker-json [-o OUT]
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/load.h"
#include "generator/emit.h"

namespace dlfuzz::cli {

void add_emit(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand(
      "emit", "Print a program as TorchScript source, a standalone Python repro, or the Python worker's request");
  struct Opts {
    std::string file, to = "python", out;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("file", o->file, ".dlf program")->required();
  cmd->add_option("--to", o->to,
                  "torchscript | python | worker-json (the program as the Python worker reads it: "
                  "bench/python_phases.py)")
      ->check(CLI::IsMember({"torchscript", "python", "worker-json"}));
  cmd->add_option("-o,--out", o->out, "output file; default stdout");
  cmd->callback([o, action] {
    *action = [o]() -> int {
      auto p = load_or_report(o->file);
      if (!p) return kExitUsage;
      std::string text = o->to == "python"        ? emit_python(*p)
                         : o->to == "worker-json" ? python_worker_program(*p).dump() + "\n"
                                                  : emit_torchscript(*p);
      if (o->out.empty()) {
        std::cout << text;
        return kExitOk;
      }
      return write_output("dlfuzz emit", o->out, text) ? kExitOk : kExitCannotWrite;
    };
  });
}

}  // namespace dlfuzz::cli
