// Remove nodes. Each use of a removed node's output is rerouted to a value of
// the same type that is visible there (the node's own operands first, then
// the latest such value in scope); a node left without an operand goes too,
// and a program output left without a value is dropped.
#include <map>
#include <set>

#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

namespace {
struct Remover {
  Program& p;
  const std::set<const Node*>& drop;
  std::map<int, int> to;
  std::set<int> dead;
  std::vector<std::vector<int>> scopes;  // visible values, innermost last

  // Rewrites an operand; false when it has no value anymore.
  bool reroute(int& id) {
    id = resolve(to, id);
    return !dead.count(id);
  }

  int same_typed(const TensorType& t, const std::vector<int>& prefer) const {
    for (int v : prefer)
      if (!dead.count(v) && p.type(v) == t) return v;
    for (auto s = scopes.rbegin(); s != scopes.rend(); ++s)
      for (auto v = s->rbegin(); v != s->rend(); ++v)
        if (p.type(*v) == t) return *v;
    return -1;
  }

  void block(Block& b) {
    std::vector<Node> kept;
    for (auto& n : b.nodes) {
      bool orphaned = false;
      for (auto& a : n.args) {
        if (auto* r = std::get_if<ValueRef>(&a.value)) orphaned |= !reroute(r->id);
        if (auto* l = std::get_if<ValueList>(&a.value))
          for (int& id : l->ids) orphaned |= !reroute(id);
      }
      if (orphaned || drop.count(&n)) {
        std::vector<int> operands = node_inputs(n);
        for (int o : n.outputs) {
          int s = same_typed(p.type(o), operands);
          if (s >= 0) to[o] = s;
          else dead.insert(o);
        }
        continue;
      }
      for (auto& inner : n.blocks) {
        scopes.push_back(inner.params);
        block(inner);
        scopes.pop_back();
      }
      scopes.back().insert(scopes.back().end(), n.outputs.begin(), n.outputs.end());
      kept.push_back(std::move(n));
    }
    b.nodes = std::move(kept);
    // A nested yield without a value leaves the program invalid: verify() rejects it.
    for (int& y : b.yields)
      if (!reroute(y)) y = -1;
  }
};
}  // namespace

void reduce_nodes(Oracle& o, Program& p) {
  std::set<const Node*> drop;
  for (Node* n : all_nodes(p.body))
    if (!o.shouldKeep()) drop.insert(n);
  if (drop.empty()) return;
  Remover r{p, drop, {}, {}, {{}}};
  for (const auto& in : p.inputs) r.scopes[0].push_back(in.value);
  r.block(p.body);
  std::vector<int> outputs;
  for (int y : p.body.yields)
    if (y >= 0) outputs.push_back(y);
  p.body.yields = std::move(outputs);
  if (p.train && !r.reroute(p.train->loss)) p.train->loss = -1;
}

}  // namespace dlfuzz::reduce
