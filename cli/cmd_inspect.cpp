// dlfuzz inspect FILE... [--json] [--totals]
#include <fmt/format.h>

#include <iostream>
#include <map>

#include "cli/commands.h"
#include "cli/load.h"
#include "generator/summary.h"

namespace dlfuzz::cli {

namespace {
// Shares of programs over many files: what a generator change moved.
struct Totals {
  int programs = 0, nodes = 0;
  std::map<std::string, int> with;  // property -> programs that have it
  std::map<std::string, int> ops;   // op -> programs that use it

  void add(const ProgramSummary& s) {
    ++programs;
    nodes += s.nodes;
    const std::pair<const char*, bool> props[] = {{"training", s.training},
                                                  {"control_flow", s.control_flow},
                                                  {"inplace", s.inplace},
                                                  {"inplace_on_view", s.inplace_on_view},
                                                  {"world>1", s.world > 1},
                                                  {"special_values", s.special_values},
                                                  {"written_values", s.written_values},
                                                  {"vmappable", s.not_vmappable.empty()},
                                                  {"jacfwd", s.not_jacfwd.empty()}};
    for (const auto& [name, has] : props) with[name] += has;
    for (const auto& [op, n] : s.ops) ops[op]++;
  }

  void print(bool json) const {
    auto share = [&](int n) { return programs ? double(n) / programs : 0.0; };
    if (json) {
      nlohmann::json j = {{"programs", programs}, {"nodes", nodes}};
      for (const auto& [k, n] : with) j["share"][k] = share(n);
      for (const auto& [op, n] : ops) j["op_share"][op] = share(n);
      std::cout << j.dump() << "\n";
      return;
    }
    std::cout << programs << " programs, " << nodes << " nodes\n";
    for (const auto& [k, n] : with) std::cout << fmt::format("  {:<16} {:6.1f}%\n", k, 100 * share(n));
    std::cout << "programs using each op:\n";
    for (const auto& [op, n] : ops) std::cout << fmt::format("  {:<16} {:6.1f}%\n", op, 100 * share(n));
  }
};
}  // namespace

void add_inspect(CLI::App& app, std::function<int()>* action) {
  auto* cmd =
      app.add_subcommand("inspect", "Summarize programs: nodes, op histogram, training, control flow, in-place");
  struct Opts {
    std::vector<std::string> files;
    bool json = false, totals = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("files", o->files, ".dlf programs")->required();
  cmd->add_flag("--json", o->json, "one JSON object per line");
  cmd->add_flag("--totals", o->totals,
                "only the totals over all files: share of programs per property and per op (with --json: one object)");
  cmd->callback([o, action] {
    *action = [o]() -> int {
      int rc = kExitOk;
      Totals totals;
      for (const auto& f : o->files) {
        auto p = load_or_report(f);
        if (!p) {
          rc = kExitUsage;
          continue;
        }
        ProgramSummary s = summarize(*p);
        if (o->totals) {
          totals.add(s);
          continue;
        }
        if (o->json) {
          nlohmann::json j = to_json(s);
          j["file"] = f;
          std::cout << j.dump() << "\n";
        } else {
          std::cout << f << ": " << s.nodes << " nodes, " << s.ops.size() << " distinct ops"
                    << (s.training ? ", training" : ", inference") << (s.control_flow ? ", control flow" : "")
                    << (s.inplace ? ", in-place" : "") << (s.inplace_on_view ? " (through a view)" : "")
                    << (s.special_values ? ", special values" : "") << ", world " << s.world
                    << (s.not_vmappable.empty() ? ", vmappable" : ", not vmappable: " + s.not_vmappable)
                    << (s.not_jacfwd.empty() ? ", jacfwd" : ", not jacfwd: " + s.not_jacfwd) << "\n";
        }
      }
      if (o->totals) totals.print(o->json);
      return rc;
    };
  });
}

}  // namespace dlfuzz::cli
