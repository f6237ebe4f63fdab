#include "generator/vmappable.h"

#include <set>

#include "generator/hop.h"
#include "generator/op_spec.h"

namespace dlfuzz {

namespace {
// The tensor operands of a node, and the values it reads as Python numbers.
struct Operands {
  std::vector<int> ids;
  std::vector<int> items;
};

Operands operands_of(const Node& n) {
  Operands o;
  for (const auto& a : n.args) {
    if (const auto* r = std::get_if<ValueRef>(&a.value)) (r->item ? o.items : o.ids).push_back(r->id);
    if (const auto* l = std::get_if<ValueList>(&a.value)) o.ids.insert(o.ids.end(), l->ids.begin(), l->ids.end());
  }
  return o;
}

std::vector<int> list_arg(const Node& n, const char* name) {
  const Arg* a = n.arg(name);
  const auto* l = a ? std::get_if<ValueList>(&a->value) : nullptr;
  return l ? l->ids : std::vector<int>{};
}

// A value is batched when it depends on a data input (params are shared).
// Over a batch of tangents (`tangents`, the jacfwd runner) a float value is
// batched when it depends on any float input: its tangent is; the primals
// are not batched, so what vmap refuses of a batched value's contents (an
// `if`, `.item()`, a mask, a size) is no matter, and a random op draws once
// for the batch (randomness="same").
struct Batching {
  const Program& p;
  std::set<int> batched;
  bool tangents = false;

  bool is(int id) const { return batched.count(id) > 0; }
  // Marks `to[i]` batched where `from[i]` is; true if that added one.
  bool carry(const std::vector<int>& from, const std::vector<int>& to) {
    bool grew = false;
    for (size_t i = 0; i < from.size() && i < to.size(); ++i)
      if (is(from[i])) grew = batched.insert(to[i]).second || grew;
    return grew;
  }

  bool reads_a_tangent(const Node& n, const OpSpec& s) const {
    for (const auto& a : n.args) {
      if (const ParamSpec* param = s.param(a.name); param && !param->grad) continue;
      if (const auto* r = std::get_if<ValueRef>(&a.value); r && !r->item && is(r->id)) return true;
      if (const auto* l = std::get_if<ValueList>(&a.value))
        for (int id : l->ids)
          if (is(id)) return true;
    }
    return false;
  }

  std::string block(const Block& b) {
    for (const Node& n : b.nodes)
      if (auto why = node(n); !why.empty()) return why;
    return "";
  }

  // A Python `if` on an unbatched value and a Python `for` are plain Python
  // around ops; their higher-order spellings (torch.cond, scan, while_loop)
  // are left out.
  std::string structural(const Node& n) {
    if (is_hop(n)) return "higher-order " + n.op;
    if (n.op == "if") {
      for (int id : operands_of(n).ids)
        if (is(id) && !tangents) return "an if on a batched value";
      for (const auto& branch : n.blocks) {
        if (auto why = block(branch); !why.empty()) return why;
        carry(branch.yields, n.outputs);
      }
      return "";
    }
    // loop: a carry is batched if its initial value or its next one is
    // (walked again until that settles); checkpoint: its inputs.
    const Block& body = n.blocks[0];
    std::vector<int> in = list_arg(n, n.op == "loop" ? "carry" : "inputs");
    carry(in, body.params);
    for (;;) {
      if (auto why = block(body); !why.empty()) return why;
      if (n.op != "loop" || !carry(body.yields, body.params)) break;
    }
    carry(body.yields, n.outputs);
    return "";
  }

  std::string node(const Node& n) {
    if (!n.blocks.empty()) return structural(n);
    const OpSpec* s = find_op(n.op);
    if (!s) return "unknown op " + n.op;
    if (s->aten.rfind("higher_order::", 0) == 0) return "higher-order op " + n.op;
    // dropout with train=false draws nothing.
    const Arg* train = n.arg("train");
    if (s->family == "random" && !tangents &&
        !(train && std::holds_alternative<bool>(train->value) && !std::get<bool>(train->value)))
      return "random op " + n.op;
    if (is_collective(*s)) return "collective " + n.op;
    Operands o = operands_of(n);
    // A tangent flows only through the arguments autograd differentiates,
    // and out of an op that has a derivative (zeros_like's has none).
    bool any = tangents && s->differentiable && reads_a_tangent(n, *s);
    if (!tangents) {
      for (int id : o.ids) any = any || is(id);
      // Ops over tensor lists have no batching rule and no fallback (their
      // forward formulas are per-tensor ops: a batched tangent is fine).
      if (s->family == "foreach") return "tensor-list op " + n.op;
      for (int id : o.items)
        if (is(id)) return ".item() of a batched value (" + n.op + ")";
      if (any && n.arg("count")) return "data-dependent size of a batched value (" + n.op + ")";
      // x[mask] (= v): vmap refuses a batched boolean mask, even where the
      // result's size does not depend on it.
      if (s->subscript || out_of_place_name(n.op) == "index_put")
        for (int id : o.ids)
          if (is(id) && p.type(id).dtype == DType::b8) return "a batched boolean mask in " + n.op;
    }
    // clone(memory_format=channels_last) of a batched value is "NYI" in vmap.
    for (const auto& a : n.args)
      if (const auto* m = std::get_if<MemFormat>(&a.value); m && *m == MemFormat::channels_last && any)
        return "channels_last memory_format of a batched value in " + n.op;
    // The written tensor is the first operand; writing a batched value into
    // an unbatched one would need a batch dim it lacks.
    if (s->inplace && !o.ids.empty() && !is(o.ids[0]) && any)
      return "in-place " + n.op + " writes a batched value into an unbatched tensor";
    if (any)
      for (int out : n.outputs)
        if (!tangents || is_float(p.type(out).dtype)) batched.insert(out);  // an integer has no tangent
    return "";
  }
};
}  // namespace

std::string why_not_vmappable(const Program& p) {
  if (p.is_training()) return "a training program";
  // Autocast's casts are not applied inside vmap's batching rules: a conv,
  // linear or trace computes in another dtype than without vmap (pytorch#192617,
  // open; corpus/bugs/vmap-autocast-conv-float32.dlf). Left out until fixed, so
  // that this one gap is not found again on every op it reaches.
  if (p.autocast) return "autocast (pytorch#192617: not applied inside vmap's batching rules)";
  if (p.plan.world > 1) return "a program over ranks";
  Batching b{p, {}};
  for (const auto& in : p.inputs)
    if (in.kind == InputKind::data) b.batched.insert(in.value);
  return b.block(p.body);
}

std::string why_not_vmappable_tangents(const Program& p) {
  if (p.is_training()) return "a training program";
  if (p.autocast) return "autocast (pytorch#192617: not applied inside vmap's batching rules)";
  if (p.plan.world > 1) return "a program over ranks";
  Batching b{p, {}, /*tangents=*/true};
  for (const auto& in : p.inputs)  // every float input may get a tangent
    if (is_float(p.type(in.value).dtype)) b.batched.insert(in.value);
  return b.block(p.body);
}

}  // namespace dlfuzz
