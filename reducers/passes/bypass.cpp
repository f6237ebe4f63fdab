// Replace a node by one of its operands of the output's type: relu(%x) -> %x,
// add(%x, %y) -> %x or %y. One target per (node, operand) pair; the first
// pair dropped for a node wins. Loops and branches are control-flow's.
#include <algorithm>
#include <map>
#include <set>

#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

void reduce_bypass(Oracle& o, Program& p) {
  std::map<int, int> to;
  std::set<const Node*> drop;
  for (Node* n : all_nodes(p.body)) {
    if (is_structural(n->op) || n->outputs.size() != 1) continue;
    const TensorType& t = p.type(n->outputs[0]);
    std::vector<int> seen;
    for (int v : node_inputs(*n)) {
      if (p.type(v) != t || std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
      seen.push_back(v);
      if (!o.shouldKeep() && !drop.count(n)) {
        to[n->outputs[0]] = v;
        drop.insert(n);
      }
    }
  }
  if (drop.empty()) return;
  erase_nodes(p.body, drop);
  substitute(p, to);
}

}  // namespace dlfuzz::reduce
