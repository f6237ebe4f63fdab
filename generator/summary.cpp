#include "generator/summary.h"

#include <set>

#include "generator/op_spec.h"

namespace dlfuzz {

ProgramSummary summarize(const Program& p) {
  ProgramSummary s;
  s.training = p.is_training();
  s.world = p.plan.world;
  for (const auto& in : p.inputs) (in.kind == InputKind::param ? s.params : s.inputs)++;
  std::set<int> views;
  for_each_node(p.body, [&](const Node& n) {
    s.nodes++;
    s.ops[n.op]++;
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

nlohmann::json to_json(const ProgramSummary& s) {
  return {{"nodes", s.nodes},       {"ops", s.ops},
          {"training", s.training}, {"control_flow", s.control_flow},
          {"inplace", s.inplace},   {"inplace_on_view", s.inplace_on_view},
          {"world", s.world},       {"inputs", s.inputs},
          {"params", s.params}};
}

std::string op_set(const Program& p) {
  ProgramSummary s = summarize(p);
  std::string out;
  for (const auto& [op, n] : s.ops) out += (out.empty() ? "" : ",") + op;
  if (out.empty()) out = "none";  // reduced to inputs passed through
  return s.training ? out + "+train" : out;
}

}  // namespace dlfuzz
