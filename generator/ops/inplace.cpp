// In-place variants. They mutate their first argument, which may be a view:
// the write then shows through the view's base. Targets come from
// GenContext::pick_mutable, which knows what autograd and aliasing allow.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
bool gen_inplace_unary(GenContext& g, const OpSpec& s, Node& n) {
  auto v = g.pick_mutable([&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target); });
  if (!v) return false;
  n.args = {{"self", ValueRef{*v}}};
  return true;
}

bool gen_inplace_binary(GenContext& g, const OpSpec& s, Node& n) {
  auto v = g.pick_mutable([&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target); });
  if (!v) return false;
  const TensorType self = g.program().type(*v);
  n.args = {{"self", ValueRef{*v}}};
  if (g.choices().coin(0.5)) {
    ArgValue num = random_number(g, self.dtype, -2, 2);
    if (s.name == "div_") num = g.choices().uniform(0.5, 2);
    n.args.push_back({"other", num});
  } else {
    TensorType want = broadcastable_type(g, self.shape, self.dtype);
    // Never the mutated tensor itself (x.mul_(x) breaks autograd's saved input).
    int o = g.pick_or_input([&](const TensorType& t) { return t == want; }, want);
    if (g.may_alias(o, *v)) o = g.new_input(want);
    if (s.name == "div_") o = g.in_domain(o, Domain::nonzero);
    n.args.push_back({"other", ValueRef{o}});
  }
  return true;
}

bool gen_clamp_(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_inplace_unary(g, s, n)) return false;
  DType t = g.program().type(std::get<ValueRef>(n.args[0].value).id).dtype;
  bool f = is_float(t);
  n.args.push_back({"min", f ? ArgValue(g.choices().uniform(-2, 0)) : ArgValue(int64_t(-1))});
  n.args.push_back({"max", f ? ArgValue(g.choices().uniform(0, 2)) : ArgValue(int64_t(3))});
  return true;
}

std::string infer_inplace_unary(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, self->dtype, p.target))
    return std::string("dtype ") + dtype_name(self->dtype) + " not supported by " + n.op;
  for (const char* bound : {"min", "max"})
    if (const Arg* a = n.arg(bound); a && std::holds_alternative<double>(a->value) && !is_float(self->dtype))
      return "a float bound can't be written into an integer tensor";
  out = {*self};
  return "";
}

OpSpec inplace(const std::string& name, bool binary_op) {
  OpSpec s;
  s.name = name;
  s.family = "inplace";
  s.aten = "aten::" + name;
  s.params = {T("self")};
  if (binary_op) s.params.push_back(TorN("other"));
  s.infer = binary_op ? infer_binary_inplace : infer_inplace_unary;
  s.generate = binary_op ? gen_inplace_binary : gen_inplace_unary;
  s.inplace = true;
  s.python = "." + name;
  return s;
}
}  // namespace

void register_ops_inplace(std::vector<OpSpec>& ops) {
  for (const char* name : {"add_", "sub_", "mul_"}) ops.push_back(inplace(name, true));
  OpSpec div = inplace("div_", true);
  div.float_only = true;
  ops.push_back(div);
  for (const char* name : {"relu_", "neg_", "abs_"}) ops.push_back(inplace(name, false));
  for (const char* name : {"sigmoid_", "tanh_"}) {
    OpSpec s = inplace(name, false);
    s.float_only = true;
    s.half_ok = false;
    s.saves_output = true;
    ops.push_back(s);
  }
  OpSpec clamp = inplace("clamp_", false);
  clamp.params = {T("self"), A("min", ParamKind::number, true), A("max", ParamKind::number, true)};
  clamp.generate = gen_clamp_;
  clamp.half_ok = false;
  ops.push_back(clamp);
  for (auto& s : ops)
    if (s.name == "relu_") s.saves_output = true, s.half_ok = false;
}

}  // namespace dlfuzz
