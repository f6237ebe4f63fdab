// Remove nodes. Each use of a removed node's output is rerouted to a value of
// the same type that is visible there (the node's own operands first, then
// the latest such value in scope); a node left without an operand goes too.
// A program output left without a value moves up to the removed node's
// nearest surviving operands (outputs may have any type), so the value that
// shows a divergence can get closer to where it starts.
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
  std::map<int, std::vector<int>> operands_of;  // dead value -> its node's operands
  std::vector<std::vector<int>> scopes;         // visible values, innermost last

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
          if (s >= 0) {
            to[o] = s;
          } else {
            dead.insert(o);
            operands_of[o] = operands;
          }
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

  // The live values a dead program output falls back to, nearest first.
  void surviving(int id, std::vector<int>& out, std::set<int>& seen) {
    id = resolve(to, id);
    if (!seen.insert(id).second) return;
    if (!dead.count(id)) {
      out.push_back(id);
      return;
    }
    for (int v : operands_of[id]) surviving(v, out, seen);
  }
};
}  // namespace

void reduce_nodes(Oracle& o, Program& p) {
  std::set<const Node*> drop;
  for (Node* n : all_nodes(p.body))
    if (!o.shouldKeep()) drop.insert(n);
  if (drop.empty()) return;
  std::vector<int> yields = p.body.yields;
  Remover r{p, drop, {}, {}, {}, {{}}};
  for (const auto& in : p.inputs) r.scopes[0].push_back(in.value);
  r.block(p.body);
  std::vector<int> outputs;
  std::set<int> seen;
  for (int y : yields) r.surviving(y, outputs, seen);
  p.body.yields = std::move(outputs);
  if (p.train && !r.reroute(p.train->loss)) p.train->loss = -1;
}

}  // namespace dlfuzz::reduce
