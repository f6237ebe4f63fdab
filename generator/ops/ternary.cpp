// Three-operand elementwise ops, broadcasting across every operand:
// where(condition, self, other), addcmul, addcdiv, lerp.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// Broadcast the named operands that are tensors into `shape`.
std::string broadcast_all(const Program& p, const Node& n, const std::vector<std::string>& names, Shape& shape) {
  shape.clear();
  for (const auto& name : names) {
    const TensorType* t = tensor_arg(p, n, name);
    if (!t) continue;
    Shape next;  // broadcast() writes its output before reading: no aliasing
    if (!broadcast(shape, t->shape, next)) return "operand '" + name + "' " + type_str(*t) + " does not broadcast";
    shape = next;
  }
  return "";
}

// A tensor of dtype `dt` that broadcasts against `shape` (picked or fresh).
int operand(GenContext& g, const Shape& shape, DType dt) {
  TensorType want = broadcastable_type(g, shape, dt);
  return g.pick_or_input([&](const TensorType& t) { return t == want; }, want);
}

// --- where: condition is bool; self and other are tensors or Python numbers
// (where.self / ScalarSelf / ScalarOther / Scalar), promoted together.
std::string infer_where(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* cond = tensor_arg(p, n, "condition");
  if (!cond) return "missing tensor argument 'condition'";
  if (!is_bool(cond->dtype)) return "condition must be bool, not " + type_str(*cond);
  for (const char* name : {"self", "other"}) {
    const Arg* a = n.arg(name);
    if (!a) return std::string("missing argument '") + name + "'";
    if (!std::holds_alternative<ValueRef>(a->value) && scalar_kind(a->value) == ScalarKind::none)
      return std::string("'") + name + "' must be a tensor or a number";
  }
  Shape shape;
  if (auto e = broadcast_all(p, n, {"condition", "self", "other"}, shape); !e.empty()) return e;
  auto t = promoted(p, n, {"self", "other"});
  if (!t) return infer_util::kNoPromotion;
  out = {{*t, shape}};
  return "";
}

bool gen_where(GenContext& g, const OpSpec& s, Node& n) {
  auto v = g.first([&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target); });
  if (!v) {
    if (g.focus()) return false;
    v = g.new_input({g.random_dtype(), g.random_shape(0, 4)});
  }
  const TensorType x = g.program().type(*v);
  Choices& c = g.choices();
  // The condition: usually a comparison of x itself (where(x > 0, x, 0) is the
  // common idiom), else any bool tensor that broadcasts to x.
  int cond;
  if (!is_bool(x.dtype) && c.coin(0.5)) {
    // uint16/32/64 have no gt kernel: x != c.
    const char* cmp = is_wide_unsigned(x.dtype) ? "ne" : "gt";
    cond = g.emit1(cmp, {{"self", ValueRef{*v}}, {"other", random_number(g, x.dtype, -1, 1)}});
  } else {
    cond = operand(g, x.shape, DType::b8);
  }
  ArgValue other;
  if (c.coin(0.3)) {
    other = random_number(g, x.dtype, -2, 2);
  } else {
    DType dt = c.coin(0.8) ? x.dtype : g.random_dtype();
    other = ValueRef{operand(g, x.shape, dt)};
  }
  bool swap = c.coin(0.2);  // x as `other`: where.ScalarSelf when the rest is a number
  ArgValue x_ref = ValueRef{*v};
  n.args = {{"condition", ValueRef{cond}}, {"self", swap ? other : x_ref}, {"other", swap ? x_ref : other}};
  return true;
}

// --- addcmul / addcdiv: self + value * tensor1 (* or /) tensor2.
std::string infer_addc(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const OpSpec* s = find_op(n.op);
  for (const char* name : {"self", "tensor1", "tensor2"}) {
    const TensorType* t = tensor_arg(p, n, name);
    if (!t) return std::string("missing tensor argument '") + name + "'";
    if (s && !dtype_allowed(*s, t->dtype, p.target))
      return std::string("dtype ") + dtype_name(t->dtype) + " not supported by " + n.op;
  }
  Shape shape;
  if (auto e = broadcast_all(p, n, {"self", "tensor1", "tensor2"}, shape); !e.empty()) return e;
  auto promo = promoted(p, n, {"self", "tensor1", "tensor2"});
  if (!promo) return infer_util::kNoPromotion;
  DType t = *promo;
  if (s && !dtype_allowed(*s, t, p.target)) return std::string("dtype ") + dtype_name(t) + " not supported by " + n.op;
  if (const Arg* v = n.arg("value")) {
    ScalarKind k = scalar_kind(v->value);
    if (k == ScalarKind::none) return "'value' must be a number";
    // ATen truncates a float value for integer results; the docs call it an error.
    if (k == ScalarKind::floating && !is_float(t)) return "'value' must be an integer for integer results";
  }
  out = {{t, shape}};
  return "";
}

bool gen_addc(GenContext& g, const OpSpec& s, Node& n) {
  auto ok = [&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target); };
  auto v = g.first(ok);
  if (!v) {
    if (g.focus()) return false;
    DType dt = s.float_only ? g.random_float_dtype(s.half_ok) : g.random_dtype();
    if (!dtype_allowed(s, dt, g.program().target)) return false;
    v = g.new_input({dt, g.random_shape(0, 4)});
  }
  const TensorType x = g.program().type(*v);
  Choices& c = g.choices();
  auto dtype = [&] {
    DType dt = c.coin(0.85) ? x.dtype : (s.float_only ? g.random_float_dtype(s.half_ok) : g.random_dtype());
    return dtype_allowed(s, dt, g.program().target) ? dt : x.dtype;
  };
  int t1 = operand(g, x.shape, dtype());
  int t2 = operand(g, x.shape, dtype());
  if (s.name == "addcdiv") t2 = g.in_domain(t2, Domain::nonzero);
  n.args = {{"self", ValueRef{*v}}, {"tensor1", ValueRef{t1}}, {"tensor2", ValueRef{t2}}};
  // Mixed dtypes can promote to one the op lacks (i8 with u8 gives i16).
  std::vector<TensorType> out;
  if (!infer_addc(g.program(), n, out).empty()) return false;
  if (c.coin(0.4)) {
    n.args.push_back(
        {"value", is_float(out[0].dtype) ? ArgValue(c.uniform(-2, 2)) : ArgValue(int64_t(c.range(-2, 2)))});
  }
  return true;
}

// --- lerp(self, end, weight): float only; end and a tensor weight share self's dtype.
std::string infer_lerp(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  const TensorType* end = tensor_arg(p, n, "end");
  const Arg* w = n.arg("weight");
  if (!self || !end || !w) return "lerp needs self, end and weight";
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, self->dtype, p.target))
    return std::string("dtype ") + dtype_name(self->dtype) + " not supported by lerp";
  if (end->dtype != self->dtype) return "lerp: end must have self's dtype";
  if (const TensorType* wt = tensor_arg(p, n, "weight")) {
    if (wt->dtype != self->dtype) return "lerp: weight must have self's dtype";
  } else if (scalar_kind(w->value) == ScalarKind::none) {
    return "'weight' must be a tensor or a number";
  }
  Shape shape;
  if (auto e = broadcast_all(p, n, {"self", "end", "weight"}, shape); !e.empty()) return e;
  out = {{self->dtype, shape}};
  return "";
}

bool gen_lerp(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_unary(g, s, n)) return false;
  const TensorType x = g.program().type(std::get<ValueRef>(n.args[0].value).id);
  n.args.push_back({"end", ValueRef{operand(g, x.shape, x.dtype)}});
  Choices& c = g.choices();
  // Weights outside [0, 1] extrapolate; keep them near it so values stay tame.
  if (c.coin(0.5)) n.args.push_back({"weight", c.uniform(-0.5, 1.5)});
  else n.args.push_back({"weight", ValueRef{g.in_domain(operand(g, x.shape, x.dtype), Domain::bounded)}});
  return true;
}

OpSpec ternary(const std::string& name, std::vector<ParamSpec> params, InferFn infer, GenFn gen) {
  OpSpec s;
  s.name = name;
  s.family = "ternary";
  s.aten = "aten::" + name;
  s.params = std::move(params);
  s.infer = infer;
  s.generate = gen;
  s.half_ok = false;  // 1.13's CPU addcmul/addcdiv/lerp have no f16 kernels
  s.python = "torch." + name;
  return s;
}
}  // namespace

void register_ops_ternary(std::vector<OpSpec>& ops) {
  // Python names where's operands (condition, input, other): all positional.
  OpSpec where = ternary("where", {T("condition"), TorN("self"), TorN("other")}, infer_where, gen_where);
  where.bool_ok = true;
  where.half_ok = true;
  ops.push_back(where);
  ops.push_back(
      ternary("addcmul", {T("self"), T("tensor1"), T("tensor2"), A("value", ParamKind::number)}, infer_addc, gen_addc));
  OpSpec addcdiv =
      ternary("addcdiv", {T("self"), T("tensor1"), T("tensor2"), A("value", ParamKind::number)}, infer_addc, gen_addc);
  addcdiv.float_only = true;  // integer division through addcdiv was removed
  ops.push_back(addcdiv);
  OpSpec lerp = ternary("lerp", {T("self"), T("end"), TorN("weight")}, infer_lerp, gen_lerp);
  lerp.float_only = true;
  ops.push_back(lerp);
}

}  // namespace dlfuzz
