#include "generator/hop.h"

#include <algorithm>
#include <set>

#include "generator/op_spec.h"

namespace dlfuzz {

bool is_hop(const Node& n) { return infer_util::bool_arg(n, "hop", false); }

bool is_region(const Node& n) { return n.op == "loop" && infer_util::bool_arg(n, "region", false); }

bool is_while_loop(const Node& n) { return n.op == "loop" && is_hop(n) && infer_util::bool_arg(n, "while", false); }

namespace {

// Families whose ops break the graph or have no rule inside a subgraph.
const std::set<std::string> kNotInSubgraph = {"random",          "dynamic",  "subscript", "collective",
                                              "tensor_parallel", "autograd", "attention", "foreach"};

std::string block_error(const Block& b) {
  for (const auto& n : b.nodes) {
    if (is_structural(n.op)) return "no control flow inside a higher-order op's branch or body";
    const OpSpec* spec = find_op(n.op);
    if (!spec) return "unknown op '" + n.op + "'";
    if (kNotInSubgraph.count(spec->family)) return "'" + n.op + "' may not run inside a higher-order op";
    if (spec->inplace) return "no in-place op ('" + n.op + "') inside a higher-order op";
    for (const auto& a : n.args)
      if (const auto* r = std::get_if<ValueRef>(&a.value); r && r->item) return "no .item() inside a higher-order op";
  }
  return "";
}

// What a higher-order op and a nested compile region both need, `what`
// naming the construct: a torch2 program on one rank, a value yielded, and
// for a loop at least one trip (a scan under torch.compile needs one; a
// region of zero trips is never called).
std::string subgraph_error(const Program& p, const Node& n, const std::string& what) {
  if (p.target != Target::torch2) return what + " needs target=torch2";
  if (p.plan.world != 1) return what + " runs on one rank";
  if (n.blocks.empty() || n.blocks[0].yields.empty()) return what + " must yield a value";
  if (n.op != "loop") return "";
  const Arg* trips = n.arg("n");
  if (!trips || !std::holds_alternative<int64_t>(trips->value) || std::get<int64_t>(trips->value) < 1)
    return what + "'s loop needs at least one trip";
  return "";
}

}  // namespace

std::string hop_error(const Program& p, const Node& n) {
  if (n.op != "if" && n.op != "loop") return "only an if or a loop can be a higher-order op";
  if (auto e = subgraph_error(p, n, "a higher-order op"); !e.empty()) return e;
  if (n.op == "loop") {
    // Scan compares the strides of its init and each step's carry, and a
    // zero-size tensor's strides are whatever made it (contiguous() keeps them).
    for (int prm : n.blocks.at(0).params)
      if (p.type(prm).numel() == 0) return "a scan's carry may not be empty";
  }
  for (const auto& b : n.blocks)
    if (auto e = block_error(b); !e.empty()) return e;
  return "";
}

std::string region_error(const Program& p, const Node& n) {
  if (n.op != "loop") return "only a loop's body can be a nested compile region";
  if (is_hop(n)) return "a higher-order loop's body cannot also be a nested compile region";
  if (auto e = subgraph_error(p, n, "a nested compile region"); !e.empty()) return e;
  return block_error(n.blocks[0]);
}

std::vector<int> free_values(const Block& b) {
  std::set<int> defined(b.params.begin(), b.params.end());
  std::vector<int> free;
  auto read = [&](int id) {
    if (!defined.count(id) && std::find(free.begin(), free.end(), id) == free.end()) free.push_back(id);
  };
  for (const auto& n : b.nodes) {
    for (int id : node_inputs(n)) read(id);
    defined.insert(n.outputs.begin(), n.outputs.end());
  }
  for (int y : b.yields) read(y);
  return free;
}

}  // namespace dlfuzz
