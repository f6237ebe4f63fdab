#include "generator/verify.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "generator/checkpoint.h"
#include "generator/hop.h"
#include "generator/op_spec.h"

namespace dlfuzz {

namespace {

class Verifier {
 public:
  explicit Verifier(const Program& p) : p_(p) {}

  std::string run() {
    std::set<std::string> names;
    for (const auto& v : p_.values)
      if (!names.insert(v.name).second) return fmt::format("value name %{} is defined twice", v.name);
    std::vector<std::set<int>> scopes(1);
    for (const auto& in : p_.inputs) {
      if (in.value < 0 || in.value >= int(p_.values.size())) return "input refers to no value";
      if (!scopes[0].insert(in.value).second) return fmt::format("input %{} declared twice", name(in.value));
      if (in.kind == InputKind::param && !is_float(p_.type(in.value).dtype))
        return fmt::format("param %{} must be floating point", name(in.value));
      if (in.placement.shard_dim >= p_.type(in.value).rank())
        return fmt::format("input %{}: shard dim {} out of range", name(in.value), in.placement.shard_dim);
      if (auto e = uneven_shards(in); !e.empty()) return fmt::format("input %{}: {}", name(in.value), e);
      if (init_has_bounds(in.init) && in.init != Init::normal && !(in.lo <= in.hi))
        return fmt::format("input %{}: empty {}({}, {})", name(in.value),
                           in.init == Init::uniform ? "range" : init_name(in.init), in.lo, in.hi);
      if (in.init == Init::special && !is_float(p_.type(in.value).dtype))
        return fmt::format("input %{}: special values need a floating dtype", name(in.value));
    }
    if (auto e = block(p_.body, scopes); !e.empty()) return e;
    for (size_t i = 0; i < p_.body.nodes.size(); ++i)
      if (p_.body.nodes[i].op == "checkpoint")
        if (auto e = checkpoint_hazard(p_, i); !e.empty()) return "checkpoint: " + e;
    for (int y : p_.body.yields)
      if (!defined(y, scopes)) return fmt::format("return: %{} is not defined", name(y));
    if (p_.train) {
      const TrainStep& s = *p_.train;
      if (s.loss < 0 || !defined(s.loss, scopes)) return "loss: value is not defined at top level";
      const TensorType& t = p_.type(s.loss);
      if (t.rank() != 0 || !is_float(t.dtype))
        return fmt::format("loss %{} must be a 0-d float tensor, not {}", name(s.loss), type_str(t));
      if (s.steps < 1) return "step: steps must be at least 1";
      if (!(s.lr > 0)) return "step: lr must be positive";
      if (s.amsgrad && !has_amsgrad(s.optimizer)) return "step: amsgrad is Adam's and AdamW's";
      if (s.nesterov && !s.nesterov_applies()) return "step: nesterov needs SGD with momentum";
    }
    if (p_.plan.world < 1) return "world size must be at least 1";
    if (p_.device != "cpu" && p_.device != "cuda") return "device must be cpu or cuda, not '" + p_.device + "'";
    return "";
  }

 private:
  // Uneven shards: rank 0's slice is the program's size, every rank gets at
  // least one element, and they do not happen to be even.
  std::string uneven_shards(const InputDecl& in) const {
    const Placement& pl = in.placement;
    if (pl.whole == 0) return "";
    int world = p_.plan.world;
    if (pl.shard_dim < 0 || pl.whole < 0) return "an uneven size needs a shard dim";
    int64_t local = p_.type(in.value).shape[pl.shard_dim];
    if (pl.whole >= local * world || pl.whole < world || pl.slice(local, 0, world).second != local)
      return fmt::format("uneven shards of {} over {} ranks cannot give rank 0 {}", pl.whole, world, local);
    return "";
  }

  std::string name(int id) const {
    return id >= 0 && id < int(p_.values.size()) ? p_.values[id].name : std::to_string(id);
  }
  bool defined(int id, const std::vector<std::set<int>>& scopes) const {
    for (const auto& s : scopes)
      if (s.count(id)) return true;
    return false;
  }
  bool fresh(int id) const { return id >= 0 && id < int(p_.values.size()) && !seen_.count(id); }

  std::string block(const Block& b, std::vector<std::set<int>>& scopes) {
    for (const auto& n : b.nodes) {
      std::string where = n.outputs.empty() ? n.op : fmt::format("%{} ({})", name(n.outputs[0]), n.op);
      for (int v : node_inputs(n))
        if (v < 0 || v >= int(p_.values.size()) || !defined(v, scopes))
          return fmt::format("node {}: operand %{} is not defined here", where, name(v));
      if (auto e = garbage_read(n, scopes.size()); !e.empty()) return fmt::format("node {}: {}", where, e);
      if (auto e = node(n, scopes); !e.empty()) return fmt::format("node {}: {}", where, e);
      for (int o : n.outputs) {
        if (!fresh(o)) return fmt::format("node {}: output %{} defined twice", where, name(o));
        seen_.insert(o);
        scopes.back().insert(o);
      }
      if (n.op == "empty_like" || n.op == "new_empty") unwritten_[n.outputs.at(0)] = scopes.size();
    }
    for (int y : b.yields) {
      if (!defined(y, scopes)) return fmt::format("yield: %{} is not defined", name(y));
      if (unwritten_.count(y)) return fmt::format("yield: %{} is an empty tensor not yet overwritten", name(y));
    }
    return "";
  }

  // An empty_like / new_empty result holds garbage until a fill_ or copy_ in
  // its own block overwrites it (as self): any other use first reads garbage.
  std::string garbage_read(const Node& n, size_t depth) {
    auto ref = [&](const char* arg) {  // the value an argument names, or -1
      const Arg* a = n.arg(arg);
      const ValueRef* r = a ? std::get_if<ValueRef>(&a->value) : nullptr;
      return r ? r->id : -1;
    };
    for (int v : node_inputs(n)) {
      auto it = unwritten_.find(v);
      if (it == unwritten_.end()) continue;
      bool overwrite =
          (n.op == "fill_" || n.op == "copy_") && it->second == depth && ref("self") == v && ref("src") != v;
      if (!overwrite) return fmt::format("reads %{}, an empty tensor not yet overwritten", name(v));
      unwritten_.erase(it);
    }
    return "";
  }

  std::string args_match(const OpSpec& s, const Node& n) {
    for (const auto& a : n.args) {
      const ParamSpec* ps = s.param(a.name);
      if (!ps) return fmt::format("{} has no argument '{}'", s.name, a.name);
      const ArgValue& v = a.value;
      bool none = std::holds_alternative<None>(v);
      if (none && !ps->optional) return fmt::format("argument '{}' may not be None", a.name);
      if (none) continue;
      const auto* ref = std::get_if<ValueRef>(&v);
      if (ref && ref->item && p_.type(ref->id).rank() != 0)
        return fmt::format("item(%{}) of a tensor that is not 0-d", name(ref->id));
      bool tensor = ref && !ref->item;
      bool number = std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v) ||
                    std::holds_alternative<bool>(v) || (ref && ref->item);
      bool ok = false;
      switch (ps->kind) {
        case ParamKind::tensor: ok = tensor; break;
        case ParamKind::tensor_list: ok = std::holds_alternative<ValueList>(v); break;
        case ParamKind::tensor_or_number: ok = tensor || number; break;
        case ParamKind::number: ok = number; break;
        case ParamKind::int_: ok = std::holds_alternative<int64_t>(v); break;
        case ParamKind::float_: ok = std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v); break;
        case ParamKind::bool_: ok = std::holds_alternative<bool>(v); break;
        case ParamKind::int_list: ok = std::holds_alternative<IntList>(v); break;
        case ParamKind::str: ok = std::holds_alternative<std::string>(v); break;
        case ParamKind::dtype: ok = std::holds_alternative<DType>(v); break;
        case ParamKind::mem_format: ok = std::holds_alternative<MemFormat>(v); break;
      }
      if (!ok) return fmt::format("argument '{}' has the wrong kind", a.name);
    }
    for (size_t i = 0; i < n.args.size(); ++i)
      for (size_t j = i + 1; j < n.args.size(); ++j)
        if (n.args[i].name == n.args[j].name) return fmt::format("argument '{}' given twice", n.args[i].name);
    return "";
  }

  std::string node(const Node& n, std::vector<std::set<int>>& scopes) {
    std::vector<TensorType> outs;
    if (n.op == "loop" || n.op == "if") {
      for (const auto& a : n.args) {
        bool known = a.name == "hop" ||
                     (n.op == "loop" ? a.name == "n" || a.name == "carry" || a.name == "while" || a.name == "region"
                                     : a.name == "cond");
        if (!known) return fmt::format("{} takes no argument '{}'", n.op, a.name);
        if ((a.name == "hop" || a.name == "while" || a.name == "region") && !std::holds_alternative<bool>(a.value))
          return a.name + " takes true or false";
      }
      if (n.arg("while") && !is_hop(n)) return "while=true marks a loop that is a higher-order op (hop=true)";
      if (is_hop(n))
        if (auto e = hop_error(p_, n); !e.empty()) return e;
      if (is_region(n))
        if (auto e = region_error(p_, n); !e.empty()) return e;
    }
    if (n.op == "loop") {
      const Arg* trips = n.arg("n");
      const Arg* carry = n.arg("carry");
      if (!trips || !std::holds_alternative<int64_t>(trips->value) || std::get<int64_t>(trips->value) < 0)
        return "loop needs a non-negative trip count n";
      if (!carry || !std::holds_alternative<ValueList>(carry->value)) return "loop needs carry(...)";
      const auto& ids = std::get<ValueList>(carry->value).ids;
      if (n.blocks.size() != 1) return "loop needs exactly one body";
      const Block& b = n.blocks[0];
      if (b.params.size() != ids.size() || b.yields.size() != ids.size())
        return "loop body must take and yield one value per carried value";
      for (size_t i = 0; i < ids.size(); ++i) {
        if (p_.type(b.params[i]) != p_.type(ids[i])) return "loop parameter type differs from carried value";
        outs.push_back(p_.type(ids[i]));
      }
      scopes.emplace_back();
      for (int prm : b.params) {
        if (!fresh(prm)) return fmt::format("loop parameter %{} defined twice", name(prm));
        seen_.insert(prm);
        scopes.back().insert(prm);
      }
      if (auto e = block(b, scopes); !e.empty()) return e;
      for (size_t i = 0; i < ids.size(); ++i)
        if (p_.type(b.yields[i]) != outs[i]) return "loop yield type differs from carried value";
      scopes.pop_back();
    } else if (n.op == "checkpoint") {
      if (p_.target != Target::torch2) return "checkpoint needs target=torch2";
      if (scopes.size() != 1) return "checkpoint only at the top level";
      const Arg* inputs = n.arg("inputs");
      if (!inputs || !std::holds_alternative<ValueList>(inputs->value)) return "checkpoint needs inputs=[...]";
      for (const auto& a : n.args)
        if (a.name != "inputs" && !(a.name == "selective" && std::holds_alternative<bool>(a.value)))
          return "checkpoint takes inputs=[...] and selective=true|false, not '" + a.name + "'";
      const auto& ids = std::get<ValueList>(inputs->value).ids;
      if (n.blocks.size() != 1) return "checkpoint needs exactly one body";
      const Block& b = n.blocks[0];
      if (b.params.size() != ids.size()) return "checkpoint body must take one value per input";
      scopes.emplace_back();
      for (size_t i = 0; i < ids.size(); ++i) {
        int prm = b.params[i];
        if (!fresh(prm)) return fmt::format("checkpoint parameter %{} defined twice", name(prm));
        if (p_.type(prm) != p_.type(ids[i])) return "checkpoint parameter type differs from its input";
        seen_.insert(prm);
        scopes.back().insert(prm);
      }
      if (auto e = block(b, scopes); !e.empty()) return e;
      scopes.pop_back();
      if (b.yields.empty()) return "checkpoint yields nothing";
      for (int y : b.yields) outs.push_back(p_.type(y));
    } else if (n.op == "if") {
      const Arg* cond = n.arg("cond");
      if (!cond || !std::holds_alternative<ValueRef>(cond->value)) return "if needs a condition value";
      const TensorType& ct = p_.type(std::get<ValueRef>(cond->value).id);
      if (ct.rank() != 0 || !is_bool(ct.dtype)) return "if condition must be a 0-d bool tensor, not " + type_str(ct);
      if (n.blocks.size() != 2) return "if needs a then and an else block";
      for (const auto& b : n.blocks) {
        scopes.emplace_back();
        if (auto e = block(b, scopes); !e.empty()) return e;
        scopes.pop_back();
      }
      if (n.blocks[0].yields.size() != n.blocks[1].yields.size()) return "branches yield different counts";
      for (size_t i = 0; i < n.blocks[0].yields.size(); ++i) {
        if (p_.type(n.blocks[0].yields[i]) != p_.type(n.blocks[1].yields[i])) return "branches yield different types";
        outs.push_back(p_.type(n.blocks[0].yields[i]));
      }
    } else {
      const OpSpec* s = find_op(n.op);
      if (!s) return fmt::format("unknown op '{}'", n.op);
      if (!n.blocks.empty()) return "only loop, if and checkpoint have blocks";
      if (auto e = args_match(*s, n); !e.empty()) return e;
      if (auto e = infer_node(*s, p_, n, outs); !e.empty()) return e;
    }
    if (outs.size() != n.outputs.size())
      return fmt::format("has {} outputs, its type rule gives {}", n.outputs.size(), outs.size());
    for (size_t i = 0; i < outs.size(); ++i)
      if (n.outputs[i] < 0 || n.outputs[i] >= int(p_.values.size()) || p_.type(n.outputs[i]) != outs[i])
        return fmt::format(
            "output {} is declared {}, its type rule gives {}", i,
            n.outputs[i] >= 0 && n.outputs[i] < int(p_.values.size()) ? type_str(p_.type(n.outputs[i])) : "?",
            type_str(outs[i]));
    return "";
  }

  const Program& p_;
  std::set<int> seen_;
  std::map<int, size_t> unwritten_;  // empty_like / new_empty results, by block depth
};

}  // namespace

std::string verify(const Program& p) { return Verifier(p).run(); }

}  // namespace dlfuzz
