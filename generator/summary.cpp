#include "generator/summary.h"

#include <cmath>
#include <set>

#include "generator/op_spec.h"
#include "generator/vmappable.h"

namespace dlfuzz {

ProgramSummary summarize(const Program& p) {
  ProgramSummary s;
  s.training = p.is_training();
  s.world = p.plan.world;
  s.not_vmappable = why_not_vmappable(p);
  s.not_jacfwd = why_not_vmappable_tangents(p);
  for (const auto& in : p.inputs) {
    (in.kind == InputKind::param ? s.params : s.inputs)++;
    s.special_values = s.special_values || in.init == Init::special;
    s.written_values = s.written_values || in.init == Init::ints || in.init == Init::decimals;
  }
  std::set<int> views;
  for_each_node(p.body, [&](const Node& n) {
    s.nodes++;
    s.ops[n.op]++;
    for (const auto& a : n.args)
      if (auto* d = std::get_if<double>(&a.value); d && is_special_number(*d)) s.special_values = true;
    if (n.op == "loop" || n.op == "if") s.control_flow = true;
    const OpSpec* spec = find_op(n.op);
    if (!spec) return;
    auto ins = node_inputs(n);
    if (spec->view)
      for (int o : n.outputs) views.insert(o);
    if (spec->inplace) {
      s.inplace = true;
      if (!ins.empty() && views.count(ins[0])) s.inplace_on_view = true;
    }
  });
  return s;
}

bool is_special_number(double d) {
  if (!std::isfinite(d) || (d == 0 && std::signbit(d))) return true;
  return (d != 0 && std::fabs(d) < 1e-20) || std::fabs(d) >= 65504;
}

nlohmann::json to_json(const ProgramSummary& s) {
  return {{"nodes", s.nodes},
          {"ops", s.ops},
          {"training", s.training},
          {"control_flow", s.control_flow},
          {"inplace", s.inplace},
          {"inplace_on_view", s.inplace_on_view},
          {"world", s.world},
          {"inputs", s.inputs},
          {"params", s.params},
          {"special_values", s.special_values},
          {"written_values", s.written_values},
          {"vmappable", s.not_vmappable.empty()},
          {"not_vmappable", s.not_vmappable},
          {"jacfwd", s.not_jacfwd.empty()},
          {"not_jacfwd", s.not_jacfwd}};
}

std::string op_set(const Program& p) {
  ProgramSummary s = summarize(p);
  std::string out;
  for (const auto& [op, n] : s.ops) out += (out.empty() ? "" : ",") + op;
  if (out.empty()) out = "none";  // reduced to inputs passed through
  return s.training ? out + "+train" : out;
}

}  // namespace dlfuzz
