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

// fill_ and copy_ overwrite every element of their target: an existing tensor
// the rules let us mutate (a view writes through to its base), or, half the
// time, a fresh torch.empty_like / new_empty, whose memory is garbage until
// then (verify() rejects reading one before it is overwritten).
bool gen_overwrite(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  auto ok = [&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target); };
  // The target, or for a fresh empty the tensor it is made like (same type).
  bool fresh = c.coin(0.5);
  std::optional<int> target = fresh ? g.pick(ok) : g.pick_mutable(ok);
  if (!target) return false;
  const TensorType self = g.program().type(*target);
  n.args = {{"self", ValueRef{*target}}};
  if (s.name == "fill_") {
    // (TorchScript takes no bool for a Scalar; an int tensor takes an int.)
    ArgValue v = is_bool(self.dtype) ? ArgValue(int64_t(c.below(2))) : random_number(g, self.dtype, -3, 3);
    if (!is_float(self.dtype) && std::holds_alternative<double>(v)) v = int64_t(1);
    n.args.push_back({"value", v});
  } else {
    // From a tensor that broadcasts to the target, of its dtype or (floats)
    // another float dtype: no float-to-int conversion of out-of-range values.
    DType dt = is_float(self.dtype) && c.coin(0.3) ? g.random_float_dtype() : self.dtype;
    if (!ok({dt, self.shape})) dt = self.dtype;
    TensorType want = broadcastable_type(g, self.shape, dt);
    Shape b;
    if (!broadcast(self.shape, want.shape, b) || b != self.shape) want.shape = self.shape;
    int src = g.pick_or_input([&](const TensorType& t) { return t == want; }, want);
    if (g.may_alias(src, *target)) src = g.new_input(want);
    n.args.push_back({"src", ValueRef{src}});
  }
  // The empty is made last, once the node is known to be valid: an empty left
  // behind unwritten would fail verify().
  std::vector<TensorType> out;
  if (!infer_node(s, g.program(), n, out).empty()) return false;
  if (fresh) {
    int like = *target;
    n.args[0].value = ValueRef{c.coin(0.5) ? g.emit1("empty_like", {{"self", ValueRef{like}}})
                                           : g.emit1("new_empty", {{"self", ValueRef{like}}, {"size", IntList(self.shape)}})};
  }
  return true;
}

std::string infer_fill(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  const Arg* v = n.arg("value");
  if (!v || scalar_kind(v->value) == ScalarKind::none) return "fill_ needs a number 'value'";
  if (scalar_kind(v->value) == ScalarKind::floating && !is_float(self->dtype))
    return "a float value written into an integer tensor";  // ATen truncates; kept apart
  out = {*self};
  return "";
}

std::string infer_copy(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  const TensorType* src = tensor_arg(p, n, "src");
  if (!self || !src) return "copy_ needs tensors 'self' and 'src'";
  Shape shape;
  if (!broadcast(self->shape, src->shape, shape) || shape != self->shape)
    return "src " + type_str(*src) + " does not broadcast to " + type_str(*self);
  if (is_float(src->dtype) && !is_float(self->dtype)) return "a float src copied into an integer tensor";
  if (is_int(src->dtype) && src->dtype != self->dtype) return "copy_ between integer dtypes is left out";
  out = {*self};
  return "";
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
  OpSpec fill = inplace("fill_", false);
  fill.params = {T("self"), {"value", ParamKind::number, false, true}};
  fill.infer = infer_fill;
  fill.generate = gen_overwrite;
  fill.bool_ok = true;
  ops.push_back(fill);
  OpSpec copy = inplace("copy_", false);
  copy.params = {T("self"), T("src")};
  copy.infer = infer_copy;
  copy.generate = gen_overwrite;
  copy.bool_ok = true;
  ops.push_back(copy);
  OpSpec clamp = inplace("clamp_", false);
  clamp.params = {T("self"), A("min", ParamKind::number, true), A("max", ParamKind::number, true)};
  clamp.generate = gen_clamp_;
  clamp.half_ok = false;
  ops.push_back(clamp);
  for (auto& s : ops)
    if (s.name == "relu_") s.saves_output = true, s.half_ok = false;
}

}  // namespace dlfuzz
