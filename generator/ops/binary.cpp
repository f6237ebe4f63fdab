// Binary elementwise math with broadcasting and type promotion. `other` is a
// tensor or a Python number where ATen has a Scalar overload.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
OpSpec binary(const std::string& name, InferFn infer, bool other_number = true) {
  OpSpec s;
  s.name = name;
  s.family = "binary";
  s.aten = "aten::" + name;
  s.params = {T("self"), other_number ? TorN("other") : T("other")};
  s.infer = infer;
  s.generate = gen_binary;
  s.python = "torch." + name;
  return s;
}

// add/sub take alpha: an int for integer results, a float otherwise.
bool gen_add_sub(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_binary(g, s, n)) return false;
  std::vector<TensorType> out;
  if (!infer_binary(g.program(), n, out).empty()) return true;
  if (g.choices().coin(0.3))
    n.args.push_back({"alpha", is_float(out[0].dtype) ? ArgValue(g.choices().uniform(-2, 2))
                                                      : ArgValue(int64_t(g.choices().range(-2, 2)))});
  return true;
}

// Whether none of n's tensor arguments carries a gradient (in a training program).
bool no_grad_args(GenContext& g, const Node& n) {
  for (const auto& a : n.args)
    if (auto* r = std::get_if<ValueRef>(&a.value); r && g.carries_grad(r->id)) return false;
  return true;
}

// floor_divide and nextafter have no derivative: never on a value that carries a gradient.
bool gen_without_grad(GenContext& g, const OpSpec& s, Node& n) { return gen_binary(g, s, n) && no_grad_args(g, n); }

// heaviside(self, values): one dtype (it does not promote); self's sign and
// zeros pick the result, so self is a value with the same bits everywhere.
bool gen_heaviside(GenContext& g, const OpSpec& s, Node& n) {
  auto fits = [&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target); };
  auto v = g.first(fits);
  if (v && !g.is_exact(*v)) v.reset();
  if (!v) {
    if (g.focus()) return false;
    v = g.new_input({g.random_float_dtype(s.half_ok), g.random_shape(0, 4)});
  }
  const TensorType self = g.program().type(*v);
  TensorType want = broadcastable_type(g, self.shape, self.dtype);
  int values = g.pick_or_input([&](const TensorType& t) { return t == want; }, want);
  n.args = {{"self", ValueRef{*v}}, {"values", ValueRef{values}}};
  return no_grad_args(g, n);
}

std::string infer_heaviside(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  const TensorType* values = tensor_arg(p, n, "values");
  if (!self || !values) return "heaviside needs tensors self and values";
  if (self->dtype != values->dtype) return "heaviside needs self and values of one dtype";
  if (!dtype_allowed(*find_op(n.op), self->dtype, p.target))
    return std::string("dtype ") + dtype_name(self->dtype) + " not supported by heaviside";
  Shape shape;
  if (!broadcast(self->shape, values->shape, shape)) return "shapes do not broadcast";
  out = {{self->dtype, shape}};
  return "";
}

std::string infer_add_sub(const Program& p, const Node& n, std::vector<TensorType>& out) {
  if (auto e = infer_binary(p, n, out); !e.empty()) return e;
  const Arg* alpha = n.arg("alpha");
  if (alpha && std::holds_alternative<double>(alpha->value) && !is_float(out[0].dtype))
    return "alpha must be an integer for integer results";
  return "";
}

// div: true division gives a float; "trunc"/"floor" keep the promoted dtype.
bool gen_div(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_binary(g, s, n)) return false;
  int mode = static_cast<int>(g.choices().below(4));
  if (mode == 1) n.args.push_back({"rounding_mode", std::string("trunc")});
  if (mode == 2) n.args.push_back({"rounding_mode", std::string("floor")});
  return true;
}

std::string infer_div(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const Arg* mode = n.arg("rounding_mode");
  bool rounding = mode && std::holds_alternative<std::string>(mode->value);
  if (rounding) {
    std::string m = std::get<std::string>(mode->value);
    if (m != "trunc" && m != "floor") return "rounding_mode must be None, 'trunc' or 'floor'";
    return infer_binary(p, n, out);
  }
  return infer_binary_float(p, n, out);
}

// pow: a positive base, a small exponent; integer bases only to non-negative
// integer powers.
bool gen_pow(GenContext& g, const OpSpec& s, Node& n) {
  auto v = g.first([&](const TensorType& t) {
    return (is_float(t.dtype) || is_int(t.dtype)) && dtype_allowed(s, t.dtype, g.program().target);
  });
  if (!v) {
    if (g.focus()) return false;
    v = g.new_input({g.random_float_dtype(s.half_ok), g.random_shape(0, 4)});
  }
  const TensorType self = g.program().type(*v);
  Choices& c = g.choices();
  n.args = {{"self", ValueRef{g.in_domain(*v, Domain::positive)}}};
  if (!is_float(self.dtype) || c.coin(0.5)) {
    n.args.push_back({"exponent", is_float(self.dtype) && c.coin(0.5) ? ArgValue(c.uniform(-2, 3))
                                                                      : ArgValue(int64_t(c.range(0, 3)))});
  } else {
    TensorType want = broadcastable_type(g, self.shape, self.dtype);
    int e = g.pick_or_input([&](const TensorType& t) { return t == want; }, want);
    n.args.push_back({"exponent", ValueRef{g.in_domain(e, Domain::bounded)}});
  }
  return true;
}

// Shift amounts 0..5: beyond an operand's width the result is defined by
// PyTorch's kernels alone, not by C++.
bool gen_shift(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_binary(g, s, n)) return false;
  auto& other = n.args[1].value;
  if (auto* r = std::get_if<ValueRef>(&other))
    r->id = g.emit1("clamp", {{"self", ValueRef{r->id}}, {"min", int64_t{0}}, {"max", int64_t{5}}});
  else
    other = int64_t(g.choices().range(0, 5));
  return true;
}

std::string infer_pow(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  const Arg* e = n.arg("exponent");
  if (!self || !e) return "pow needs self and exponent";
  if (is_bool(self->dtype)) return "pow is not defined for bool tensors";
  if (!dtype_allowed(*find_op(n.op), self->dtype, p.target))
    return std::string("dtype ") + dtype_name(self->dtype) + " not supported by pow";
  Shape shape = self->shape;
  ResultType rt;
  rt.add_tensor(self->dtype, self->rank());
  if (auto* r = std::get_if<ValueRef>(&e->value)) {
    if (!broadcast(self->shape, p.type(r->id).shape, shape)) return "shapes do not broadcast";
    rt.add_tensor(p.type(r->id).dtype, p.type(r->id).rank());
  } else {
    if (auto* i = std::get_if<int64_t>(&e->value); i && *i < 0 && !is_float(self->dtype))
      return "integers to negative integer powers are not allowed";
    rt.add_scalar(scalar_kind(e->value));
  }
  if (!rt.valid()) return infer_util::kNoPromotion;
  out = {{rt.result(), shape}};
  return "";
}

// float_power: pow computed, and returned, in float64.
std::string infer_float_power(const Program& p, const Node& n, std::vector<TensorType>& out) {
  if (auto e = infer_pow(p, n, out); !e.empty()) return e;
  out[0].dtype = DType::f64;
  return "";
}
}  // namespace

void register_ops_binary(std::vector<OpSpec>& ops) {
  OpSpec add = binary("add", infer_add_sub);
  add.params.push_back(A("alpha", ParamKind::number));
  add.generate = gen_add_sub;
  ops.push_back(add);
  OpSpec sub = add;
  sub.name = "sub";
  sub.aten = "aten::sub";
  sub.python = "torch.sub";
  ops.push_back(sub);
  ops.push_back(binary("mul", infer_binary));

  OpSpec div = binary("div", infer_div);
  div.params.push_back(A("rounding_mode", ParamKind::str, true));
  div.generate = gen_div;
  div.domain = Domain::nonzero;
  ops.push_back(div);

  OpSpec rem = binary("remainder", infer_binary);
  rem.domain = Domain::nonzero;
  ops.push_back(rem);
  OpSpec fmod = binary("fmod", infer_binary);
  fmod.domain = Domain::nonzero;
  ops.push_back(fmod);

  // floor_divide: Python's //, rounding toward -inf (trunc before PyTorch 1.13).
  OpSpec floor_divide = binary("floor_divide", infer_binary);
  floor_divide.domain = Domain::nonzero;
  floor_divide.generate = gen_without_grad;
  floor_divide.differentiable = false;
  ops.push_back(floor_divide);

  ops.push_back(binary("maximum", infer_binary, false));
  ops.push_back(binary("minimum", infer_binary, false));
  OpSpec atan2 = binary("atan2", infer_binary_float, false);
  atan2.half_ok = false;
  ops.push_back(atan2);
  OpSpec lae = binary("logaddexp", infer_binary, false);
  lae.float_only = true;
  lae.half_ok = false;
  ops.push_back(lae);

  // Float math with its own NaN and sign rules (fmax/fmin ignore a NaN,
  // copysign reads -0.0, xlogy(0, y) is 0 whatever y).
  for (const char* name : {"hypot", "logaddexp2"}) {
    OpSpec s = binary(name, infer_binary, false);
    s.float_only = true;
    s.half_ok = false;
    s.saves_output = s.name == "hypot";  // its backward reads the result
    ops.push_back(s);
  }
  for (const char* name : {"fmax", "fmin"}) {
    OpSpec s = binary(name, infer_binary, false);
    s.half_ok = false;
    ops.push_back(s);
  }
  OpSpec copysign = binary("copysign", infer_binary_float);
  copysign.half_ok = false;
  copysign.saves_output = true;  // its backward reads the result
  ops.push_back(copysign);
  OpSpec xlogy = binary("xlogy", infer_binary_float);
  xlogy.domain = Domain::positive;  // of `other`, whose log it takes
  xlogy.half_ok = false;
  ops.push_back(xlogy);

  // Integer ops (bools too for the bitwise ones): exact on every backend.
  for (const char* name : {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
                           "gcd", "lcm"}) {
    const std::string op = name;
    const bool bitwise = op.rfind("bitwise_", 0) == 0, shift = op.find("shift") != std::string::npos;
    OpSpec s = binary(op, infer_binary, bitwise);  // gcd and lcm have no Scalar overload
    s.int_only = true;
    s.bool_ok = bitwise && !shift;
    s.differentiable = false;
    if (shift) s.generate = gen_shift;
    ops.push_back(s);
  }

  OpSpec pow;
  pow.name = "pow";
  pow.family = "binary";
  pow.aten = "aten::pow";
  pow.params = {T("self"), TorN("exponent")};
  pow.infer = infer_pow;
  pow.generate = gen_pow;
  pow.half_ok = false;
  pow.python = "torch.pow";
  pow.saves_output = true;  // pow(Tensor, Tensor)'s backward reads its result
  ops.push_back(pow);
  OpSpec float_power = pow;
  float_power.name = "float_power";
  float_power.aten = "aten::float_power";
  float_power.python = "torch.float_power";
  float_power.infer = infer_float_power;
  float_power.half_ok = true;  // it computes in float64 whatever the input
  ops.push_back(float_power);

  // nextafter: the next float after self toward other (exact; no derivative).
  OpSpec nextafter = binary("nextafter", infer_binary, false);
  nextafter.float_only = true;
  nextafter.half_ok = false;
  nextafter.differentiable = false;
  nextafter.generate = gen_without_grad;
  ops.push_back(nextafter);
  OpSpec heaviside = binary("heaviside", infer_heaviside, false);
  heaviside.params[1].name = "values";
  heaviside.generate = gen_heaviside;
  heaviside.float_only = true;
  heaviside.half_ok = false;
  heaviside.differentiable = false;
  heaviside.reads_bits = true;
  ops.push_back(heaviside);
}

}  // namespace dlfuzz
