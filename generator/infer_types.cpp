#include "generator/infer_types.h"

#include "generator/op_spec.h"

namespace dlfuzz {

namespace {
std::string infer_block(Program& p, Block& b) {
  for (auto& n : b.nodes) {
    std::vector<TensorType> outs;
    if (n.op == "loop") {
      const Arg* carry = n.arg("carry");
      const auto* ids = carry ? std::get_if<ValueList>(&carry->value) : nullptr;
      if (!ids || n.blocks.size() != 1 || n.blocks[0].params.size() != ids->ids.size()) return "malformed loop";
      for (size_t i = 0; i < ids->ids.size(); ++i) {
        outs.push_back(p.type(ids->ids[i]));
        p.values[n.blocks[0].params[i]].type = outs.back();
      }
      if (auto e = infer_block(p, n.blocks[0]); !e.empty()) return e;
    } else if (n.op == "checkpoint") {
      const Arg* inputs = n.arg("inputs");
      const auto* ids = inputs ? std::get_if<ValueList>(&inputs->value) : nullptr;
      if (!ids || n.blocks.size() != 1 || n.blocks[0].params.size() != ids->ids.size()) return "malformed checkpoint";
      for (size_t i = 0; i < ids->ids.size(); ++i) p.values[n.blocks[0].params[i]].type = p.type(ids->ids[i]);
      if (auto e = infer_block(p, n.blocks[0]); !e.empty()) return e;
      for (int y : n.blocks[0].yields) outs.push_back(p.type(y));
    } else if (n.op == "if") {
      for (auto& inner : n.blocks)
        if (auto e = infer_block(p, inner); !e.empty()) return e;
      if (n.blocks.empty()) return "malformed if";
      for (int y : n.blocks[0].yields) outs.push_back(p.type(y));
    } else {
      const OpSpec* s = find_op(n.op);
      if (!s) return "unknown op " + n.op;
      if (auto e = infer_node(*s, p, n, outs); !e.empty()) return n.op + ": " + e;
    }
    if (outs.size() != n.outputs.size()) return n.op + ": output count changed";
    for (const auto& t : outs)
      if (size_bound(t.shape) > kMaxElements) return n.op + ": result type " + type_str(t) + " is too large";
    for (size_t i = 0; i < outs.size(); ++i) p.values[n.outputs[i]].type = outs[i];
  }
  return "";
}
}  // namespace

std::string infer_types(Program& p) { return infer_block(p, p.body); }

}  // namespace dlfuzz
