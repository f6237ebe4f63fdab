// Replace each collective by its operand. Types are re-inferred since a
// gather or scatter changes shapes downstream.
#include <map>
#include <set>

#include "generator/infer_types.h"
#include "generator/op_spec.h"
#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

void reduce_collectives(Oracle& o, Program& p) {
  std::map<int, int> to;
  std::set<const Node*> drop;
  for (Node* n : all_nodes(p.body)) {
    const OpSpec* s = find_op(n->op);
    if (!s || !is_collective(*s) || n->outputs.size() != 1) continue;
    if (!o.shouldKeep()) {
      to[n->outputs[0]] = node_inputs(*n).at(0);
      drop.insert(n);
    }
  }
  if (drop.empty()) return;
  erase_nodes(p.body, drop);
  substitute(p, to);
  // An error leaves a stale type behind, which verify() then rejects.
  infer_types(p);
}

}  // namespace dlfuzz::reduce
