// Cut a node's upstream cone: its results become new program inputs of the
// same types (llvm-reduce's operands-to-args). A bug in `masked_fill` at the
// end of an attention block keeps the two matmuls that make its operand's
// shape, since no other value has that type for `nodes` to reroute to; here
// the operand becomes an input and the matmuls die. New float inputs are
// uniform in [-1, 1], integer and bool ones zeros (a valid index anywhere);
// input-values simplifies them further. Loops and branches are
// control-flow's.
#include <map>
#include <set>
#include <string>

#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

namespace {
// "x<next>", the first such name not in `taken` (which it joins).
std::string fresh_name(std::set<std::string>& taken, int& next) {
  std::string name;
  do name = "x" + std::to_string(next++);
  while (taken.count(name));
  taken.insert(name);
  return name;
}
}  // namespace

void reduce_inputize(Oracle& o, Program& p) {
  std::map<int, int> to;
  std::set<const Node*> drop;
  int next = static_cast<int>(p.inputs.size());
  std::set<std::string> taken;
  for (const auto& v : p.values) taken.insert(v.name);
  for (Node* n : all_nodes(p.body)) {
    if (is_structural(n->op) || o.shouldKeep()) continue;
    drop.insert(n);
    for (int out : n->outputs) {
      TensorType t = p.type(out);
      InputDecl in;
      in.value = p.add_value(fresh_name(taken, next), t);
      in.init = is_float(t.dtype) ? Init::uniform : Init::zeros;
      p.inputs.push_back(in);
      to[out] = in.value;
    }
  }
  if (drop.empty()) return;
  erase_nodes(p.body, drop);
  substitute(p, to);
  remove_dead_nodes(p);  // the cone above the cut
}

}  // namespace dlfuzz::reduce
