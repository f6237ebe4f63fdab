// Flatten control flow. Per `if`: take the then side, or the else side.
// Per `loop`: replace it by its carried inputs (zero trips), by its body run
// once (inlined), or keep it with a trip count of 1. Per `checkpoint`: its
// body in place (no recomputation), or a plain checkpoint for a selective one.
// A kept `if` or `loop` spelled as a higher-order op, or a loop whose body is
// a nested compile region: plain control flow.
#include <algorithm>
#include <map>

#include "generator/hop.h"
#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

namespace {
enum class Cut { keep, carry, inline_body, one_trip, then_side, else_side, not_selective, not_hop };

struct Flatten {
  std::map<const Node*, Cut> cut;
  std::map<int, int> to;  // value substitutions, applied at the end

  void block(Block& b) {
    std::vector<Node> out;
    for (auto& n : b.nodes) {
      for (auto& inner : n.blocks) block(inner);
      Cut c = cut.count(&n) ? cut.at(&n) : Cut::keep;
      if (c == Cut::keep) {
        out.push_back(std::move(n));
      } else if (c == Cut::not_selective || c == Cut::not_hop) {
        auto marked = [&](const Arg& a) {
          return c == Cut::not_hop ? a.name == "hop" || a.name == "while" || a.name == "region" : a.name == "selective";
        };
        n.args.erase(std::remove_if(n.args.begin(), n.args.end(), marked), n.args.end());
        out.push_back(std::move(n));
      } else if (c == Cut::one_trip) {
        n.arg("n")->value = int64_t(1);
        out.push_back(std::move(n));
      } else if (c == Cut::carry) {
        const auto& carry = std::get<ValueList>(n.arg("carry")->value).ids;
        for (size_t i = 0; i < n.outputs.size() && i < carry.size(); ++i) to[n.outputs[i]] = carry[i];
      } else {
        Block& taken = n.blocks[c == Cut::else_side ? 1 : 0];
        if (c == Cut::inline_body) {
          const auto& carry = std::get<ValueList>(n.arg(n.op == "loop" ? "carry" : "inputs")->value).ids;
          for (size_t i = 0; i < taken.params.size() && i < carry.size(); ++i) to[taken.params[i]] = carry[i];
        }
        for (size_t i = 0; i < n.outputs.size() && i < taken.yields.size(); ++i) to[n.outputs[i]] = taken.yields[i];
        for (auto& inner : taken.nodes) out.push_back(std::move(inner));
      }
    }
    b.nodes = std::move(out);
  }
};
}  // namespace

void reduce_control_flow(Oracle& o, Program& p) {
  Flatten f;
  // Ask about every structural node, nested ones too, before changing any.
  for (Node* n : all_nodes(p.body)) {
    if (n->op == "loop") {
      bool keep_loop = o.shouldKeep();
      bool keep_loop_structure = o.shouldKeep();
      const Arg* trips = n->arg("n");
      bool many = trips && std::holds_alternative<int64_t>(trips->value) && std::get<int64_t>(trips->value) > 1;
      bool keep_trips = !many || o.shouldKeep();
      bool keep_hop = !(is_hop(*n) || is_region(*n)) || o.shouldKeep();
      if (!keep_loop) f.cut[n] = Cut::carry;
      else if (!keep_loop_structure) f.cut[n] = Cut::inline_body;
      else if (!keep_trips) f.cut[n] = Cut::one_trip;
      else if (!keep_hop) f.cut[n] = Cut::not_hop;
    } else if (n->op == "checkpoint") {
      bool keep_checkpoint = o.shouldKeep();
      bool selective = n->arg("selective") != nullptr;
      bool keep_selective = !selective || o.shouldKeep();
      if (!keep_checkpoint) f.cut[n] = Cut::inline_body;
      else if (!keep_selective) f.cut[n] = Cut::not_selective;
    } else if (n->op == "if") {
      bool keep_else = o.shouldKeep();
      bool keep_then = o.shouldKeep();
      bool keep_hop = !is_hop(*n) || o.shouldKeep();
      if (!keep_else) f.cut[n] = Cut::then_side;
      else if (!keep_then) f.cut[n] = Cut::else_side;
      else if (!keep_hop) f.cut[n] = Cut::not_hop;
    }
  }
  if (f.cut.empty()) return;
  f.block(p.body);
  substitute(p, f.to);
}

}  // namespace dlfuzz::reduce
