#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/dlf.h"
#include "generator/op_spec.h"

namespace dlfuzz {

namespace {

std::string num(double d) {
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";  // keep float-ness
  return s;
}

std::string vname(const Program& p, int id) { return "%" + p.values.at(id).name; }

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

struct Printer {
  const Program& p;
  std::string out;

  void line(int depth, const std::string& s) {
    out.append(depth * 2, ' ');
    out += s;
    out += '\n';
  }

  std::string outputs(const Node& n) {
    std::vector<std::string> parts;
    for (int o : n.outputs) parts.push_back(vname(p, o) + " : " + type_str(p.type(o)));
    return fmt::format("{}", fmt::join(parts, ", "));
  }

  std::string args(const Node& n) {
    const OpSpec* spec = find_op(n.op);
    std::vector<std::string> parts;
    for (const auto& a : n.args) {
      const ParamSpec* ps = spec ? spec->param(a.name) : nullptr;
      std::string v = print_arg_value(p, a.value);
      parts.push_back(ps && ps->positional ? v : a.name + "=" + v);
    }
    return fmt::format("{}", fmt::join(parts, ", "));
  }

  void block_body(const Block& b, int depth) {
    for (const auto& n : b.nodes) node(n, depth);
    std::vector<std::string> ys;
    for (int y : b.yields) ys.push_back(vname(p, y));
    line(depth, "yield " + fmt::format("{}", fmt::join(ys, ", ")));
  }

  void node(const Node& n, int depth) {
    std::string head = outputs(n);
    head += (head.empty() ? "" : " = ") + n.op;
    std::string a = args(n);
    if (!a.empty()) head += " " + a;
    if (n.op == "loop" || n.op == "checkpoint") {
      std::vector<std::string> params;
      for (int prm : n.blocks[0].params) params.push_back(vname(p, prm) + " : " + type_str(p.type(prm)));
      line(depth, head + fmt::format(" ({}) {{", fmt::join(params, ", ")));
      block_body(n.blocks[0], depth + 1);
      line(depth, "}");
    } else if (n.op == "if") {
      line(depth, head + " {");
      block_body(n.blocks[0], depth + 1);
      line(depth, "} else {");
      block_body(n.blocks[1], depth + 1);
      line(depth, "}");
    } else {
      line(depth, head);
    }
  }

  void input(const InputDecl& in) {
    std::string s = fmt::format("{} {} : {}", input_kind_name(in.kind), vname(p, in.value), type_str(p.type(in.value)));
    if (in.layout == Layout::channels_last) s += " channels_last";
    if (in.layout == Layout::strided) s += " strided";
    if (in.placement.shard_dim >= 0 && in.placement.whole > 0)
      s += fmt::format(" shard({},{})", in.placement.shard_dim, in.placement.whole);
    else if (in.placement.shard_dim >= 0) s += fmt::format(" shard({})", in.placement.shard_dim);
    switch (in.init) {
      case Init::uniform: s += fmt::format(" range({},{})", num(in.lo), num(in.hi)); break;
      case Init::normal: s += fmt::format(" normal({},{})", num(in.lo), num(in.hi)); break;
      case Init::zeros: s += " zeros"; break;
      case Init::ones: s += " ones"; break;
      case Init::special:
      case Init::ints:
      case Init::decimals: s += fmt::format(" {}({},{})", init_name(in.init), num(in.lo), num(in.hi)); break;
    }
    line(0, s);
  }

  void program() {
    // A 1.13 program prints no target: texts written before targets existed stay the same.
    std::string target = p.target == Target::torch113 ? "" : fmt::format(" target={}", target_name(p.target));
    if (p.autocast) target += fmt::format(" autocast={}", dtype_name(*p.autocast));
    line(0, fmt::format("dlfuzz {} seed={} policy={:016x} mode={} device={} world={} plan={}{}", p.version, p.seed,
                        p.policy_hash, p.is_training() ? "train" : "infer", p.device, p.plan.world,
                        plan_name(p.plan.kind), target));
    for (const auto& in : p.inputs) input(in);
    for (const auto& n : p.body.nodes) node(n, 0);
    std::vector<std::string> ys;
    for (int y : p.body.yields) ys.push_back(vname(p, y));
    line(0, "return " + fmt::format("{}", fmt::join(ys, ", ")));
    if (p.train) {
      const TrainStep& t = *p.train;
      line(0, "loss " + vname(p, t.loss));
      // Flags only where set: texts written before they existed print the same.
      std::string flags;
      for (const auto& f : t.flags()) flags += " " + f + "=true";
      line(0, fmt::format("step {} lr={} momentum={} weight_decay={} steps={}{}", optimizer_name(t.optimizer),
                          num(t.lr), num(t.momentum), num(t.weight_decay), t.steps, flags));
    }
  }
};

}  // namespace

std::string print_arg_value(const Program& p, const ArgValue& v) {
  struct V {
    const Program& p;
    std::string operator()(const None&) const { return "None"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return num(d); }
    std::string operator()(const IntList& l) const { return fmt::format("[{}]", fmt::join(l, ",")); }
    std::string operator()(const std::string& s) const { return quote(s); }
    std::string operator()(DType t) const { return dtype_name(t); }
    std::string operator()(MemFormat m) const { return mem_format_name(m); }
    std::string operator()(const ValueRef& r) const { return r.item ? "item(" + vname(p, r.id) + ")" : vname(p, r.id); }
    std::string operator()(const ValueList& l) const {
      std::vector<std::string> parts;
      for (int id : l.ids) parts.push_back(vname(p, id));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    }
  };
  return std::visit(V{p}, v);
}

std::string print_program(const Program& p) {
  Printer pr{p, {}};
  pr.program();
  return pr.out;
}

}  // namespace dlfuzz
