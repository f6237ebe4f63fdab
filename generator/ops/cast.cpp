// Dtype conversions: x.to(dtype=...) and x.type_as(other). Conversions whose
// result C++ leaves undefined (a float out of an integer type's range, a
// negative float to u8, a value past f16's range) get a clamp in front.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// The interval a source of dtype `from` must lie in to convert to `to` safely,
// or false when any value converts (ints wrap, floats widen, anything -> bool).
bool safe_interval(DType from, DType to, double& lo, double& hi) {
  if (is_bool(to)) return false;
  if (is_unsigned(to) && is_float(from)) return lo = 0, hi = 100, true;
  if (is_int(to) && is_float(from)) return lo = -100, hi = 100, true;
  // Integers narrower than i32 always fit f16 (and clamp rejects bounds they can't hold).
  if (to == DType::f16 && from != DType::f16 && (is_float(from) || dtype_size(from) >= 4))
    return lo = -6e4, hi = 6e4, true;
  return false;
}

int guard_cast(GenContext& g, int v, DType to) {
  DType from = g.program().type(v).dtype;
  double lo, hi;
  if (!safe_interval(from, to, lo, hi) || is_bool(from) || g.range_of(v).within(lo, hi)) return v;
  // clamp promotes with its bounds: int sources take int bounds to keep their dtype.
  auto lit = [&](double x) -> ArgValue { return is_float(from) ? ArgValue(x) : ArgValue(int64_t(x)); };
  // LibTorch 1.13 has no f16 clamp on CPU: clamp in f32 (f16 -> f32 is exact).
  if (from == DType::f16) v = g.emit1("to", {{"self", ValueRef{v}}, {"dtype", DType::f32}});
  return g.emit1("clamp", {{"self", ValueRef{v}}, {"min", lit(lo)}, {"max", lit(hi)}});
}

// A conversion target: any dtype outside training, f32/f64 in training (the
// policy keeps low-precision training out); mostly different from `from`.
DType random_target(GenContext& g, DType from) {
  Choices& c = g.choices();
  DType to = g.training() ? (c.coin(0.5) ? DType::f32 : DType::f64) : g.random_dtype();
  if (to == from && c.coin(0.7)) to = g.training() ? (from == DType::f32 ? DType::f64 : DType::f32) : g.random_dtype();
  return to;
}

std::string infer_to(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  const Arg* dt = n.arg("dtype");
  const DType* to = dt ? std::get_if<DType>(&dt->value) : nullptr;
  if (!to) return "missing dtype argument 'dtype'";
  out = {{*to, self->shape}};
  return "";
}

bool gen_to(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_unary(g, s, n)) return false;
  int v = std::get<ValueRef>(n.args[0].value).id;
  DType to = random_target(g, g.program().type(v).dtype);
  n.args = {{"self", ValueRef{guard_cast(g, v, to)}}, {"dtype", to}};
  // copy=True always makes a new tensor; without it a same-dtype cast aliases.
  if (g.choices().coin(0.15)) n.args.push_back({"copy", true});
  return true;
}

std::string infer_type_as(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  const TensorType* other = tensor_arg(p, n, "other");
  if (!self || !other) return "type_as needs tensors self and other";
  out = {{other->dtype, self->shape}};
  return "";
}

bool gen_type_as(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_unary(g, s, n)) return false;
  int v = std::get<ValueRef>(n.args[0].value).id;
  DType from = g.program().type(v).dtype;
  DType to = random_target(g, from);
  // Any tensor of the target dtype serves; its shape does not matter. A fresh one
  // is data, not a param: only its dtype is read, so it would get no gradient.
  auto other = g.pick([&](const TensorType& t) { return t.dtype == to; });
  if (!other) other = g.new_input({to, g.random_shape(0, 2)});
  n.args = {{"self", ValueRef{guard_cast(g, v, to)}}, {"other", ValueRef{*other}}};
  return true;
}
}  // namespace

void register_ops_cast(std::vector<OpSpec>& ops) {
  OpSpec to;
  to.name = "to";
  to.family = "cast";
  to.aten = "aten::to";  // the to.dtype overload
  to.params = {T("self"), A("dtype", ParamKind::dtype), A("copy", ParamKind::bool_)};
  to.infer = infer_to;
  to.generate = gen_to;
  to.bool_ok = true;
  to.may_alias = true;  // to() of the same dtype returns self
  to.python = ".to";
  ops.push_back(to);

  OpSpec type_as;
  type_as.name = "type_as";
  type_as.family = "cast";
  type_as.aten = "aten::type_as";
  type_as.params = {T("self"), T("other")};
  type_as.params[1].grad = false;  // only other's dtype is read
  type_as.infer = infer_type_as;
  type_as.generate = gen_type_as;
  type_as.bool_ok = true;
  type_as.may_alias = true;
  type_as.python = ".type_as";
  ops.push_back(type_as);
}

}  // namespace dlfuzz
