// Drop collectives and shrink the world size. Only parallel plans (world > 1)
// have targets; while the generator makes world-1 programs only, this pass is
// a no-op that offers no candidates. Targets: world 1 (plan none, inputs
// replicated), half the world, and each collective replaced by its operand.
// Types are re-inferred since a gather or scatter changes shapes downstream.
#include <map>
#include <set>

#include "generator/op_spec.h"
#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

void reduce_collectives(Oracle& o, Program& p) {
  if (p.plan.world <= 1) return;
  bool keep_world = o.shouldKeep();
  bool keep_half = p.plan.world < 4 || o.shouldKeep();
  std::map<int, int> to;
  std::set<const Node*> drop;
  for (Node* n : all_nodes(p.body)) {
    const OpSpec* s = find_op(n->op);
    if (!s || s->family != "collective" || n->outputs.size() != 1) continue;
    if (!o.shouldKeep()) {
      to[n->outputs[0]] = node_inputs(*n).at(0);
      drop.insert(n);
    }
  }
  if (!keep_world) {
    p.plan = ParallelPlan{};
    for (auto& in : p.inputs) in.placement = Placement{};
  } else if (!keep_half) {
    p.plan.world /= 2;
  }
  erase_nodes(p.body, drop);
  substitute(p, to);
  // An error leaves a stale type behind, which verify() then rejects.
  reinfer(p);
}

}  // namespace dlfuzz::reduce
