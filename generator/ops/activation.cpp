// Activations, with their attributes: gelu's approximation, leaky_relu's slope,
// clamp's int/float/None bounds, threshold's two numbers, glu's halved dim,
// prelu's per-channel weight, ...
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
struct Attr {
  std::string name;
  ParamKind kind;
  double lo, hi;  // sampled range for numeric attrs
};

OpSpec activation(const std::string& name, const std::string& python, std::vector<Attr> attrs,
                  bool saves_output = false) {
  OpSpec s;
  s.name = name;
  s.family = "activation";
  s.aten = "aten::" + name;
  s.params = {T("self")};
  for (const auto& a : attrs) s.params.push_back(A(a.name, a.kind, a.kind == ParamKind::number));
  s.infer = infer_same;
  s.generate = [](GenContext& g, const OpSpec& spec, Node& n) -> bool {
    if (!gen_unary(g, spec, n)) return false;
    for (const auto& p : spec.params) {
      if (p.kind == ParamKind::tensor || !g.choices().coin(0.6)) continue;
      if (p.name == "approximate") n.args.push_back({p.name, std::string(g.choices().coin(0.5) ? "tanh" : "none")});
      else if (p.name == "negative_slope") n.args.push_back({p.name, g.choices().uniform(0.01, 0.3)});
      else if (p.name == "min_val") n.args.push_back({p.name, g.choices().uniform(-2, -0.5)});
      else if (p.name == "max_val") n.args.push_back({p.name, g.choices().uniform(0.5, 2)});
      else if (p.name == "beta") n.args.push_back({p.name, g.choices().uniform(0.5, 2)});
      else if (p.name == "threshold") n.args.push_back({p.name, g.choices().uniform(1, 20)});
      else if (p.name == "alpha") n.args.push_back({p.name, g.choices().uniform(0.1, 2)});
      else if (p.name == "lambd") n.args.push_back({p.name, g.choices().uniform(0.1, 1)});
    }
    return true;
  };
  s.float_only = true;
  s.saves_output = saves_output;
  s.python = python;
  return s;
}

// clamp(self, min, max): each bound an int, a float or None (not both None).
bool gen_clamp(GenContext& g, const OpSpec& spec, Node& n) {
  if (!gen_unary(g, spec, n)) return false;
  DType t = g.program().type(std::get<ValueRef>(n.args[0].value).id).dtype;
  Choices& c = g.choices();
  int which = static_cast<int>(c.below(3));  // 0: both, 1: min only, 2: max only
  auto bound = [&](double lo, double hi) -> ArgValue {
    if (is_float(t) && c.coin(0.7)) return c.uniform(lo, hi);
    return static_cast<int64_t>(c.range(static_cast<int64_t>(lo), static_cast<int64_t>(hi)));
  };
  n.args.push_back({"min", which == 2 ? ArgValue(None{}) : bound(-3, -0.5)});
  n.args.push_back({"max", which == 1 ? ArgValue(None{}) : bound(0.5, 3)});
  return true;
}

std::string infer_clamp(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = infer_util::tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  if (is_bool(self->dtype)) return "clamp is not defined for bool tensors";
  const Arg* lo = n.arg("min");
  const Arg* hi = n.arg("max");
  bool lo_none = !lo || std::holds_alternative<None>(lo->value);
  bool hi_none = !hi || std::holds_alternative<None>(hi->value);
  if (lo_none && hi_none) return "clamp needs at least one of 'min' and 'max'";
  // clamp promotes with its scalar bounds (an int tensor clamped by 0.5 is float).
  ResultType rt;
  rt.add_tensor(self->dtype, self->rank());
  if (!lo_none) rt.add_scalar(infer_util::scalar_kind(lo->value));
  if (!hi_none) rt.add_scalar(infer_util::scalar_kind(hi->value));
  if (!rt.valid()) return infer_util::kNoPromotion;
  out = {{rt.result(), self->shape}};
  return "";
}
// threshold(self, threshold, value): both numbers are required.
bool gen_threshold(GenContext& g, const OpSpec& spec, Node& n) {
  if (!gen_unary(g, spec, n)) return false;
  n.args.push_back({"threshold", g.choices().uniform(-1, 1)});
  n.args.push_back({"value", g.choices().coin(0.5) ? 0.0 : g.choices().uniform(-2, 2)});
  return true;
}

// glu(self, dim): the first half of dim times the sigmoid of the second.
std::string infer_glu(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t dim = int_arg(n, "dim", -1);
  if (self->rank() == 0 || !wrap_dim(dim, self->rank())) return "glu needs a dim of self";
  if (self->shape[dim] % 2 != 0) return "glu halves dim " + std::to_string(dim) + ", whose size is odd";
  Shape shape = self->shape;
  shape[dim] /= 2;
  out = {{self->dtype, shape}};
  return "";
}

bool gen_glu(GenContext& g, const OpSpec& s, Node& n) {
  auto even_dims = [](const TensorType& t) {
    IntList dims;
    for (int i = 0; i < t.rank(); ++i)
      if (t.shape[i] % 2 == 0 && t.shape[i] > 0) dims.push_back(i);
    return dims;
  };
  auto v = g.first([&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && !even_dims(t).empty();
  });
  if (!v) {
    if (g.focus()) return false;
    Shape shape = g.random_shape(1, 4);
    shape[g.choices().below(shape.size())] = 2 * g.choices().range(1, 4);
    v = g.new_input({g.random_float_dtype(s.half_ok), shape});
  }
  const TensorType t = g.program().type(*v);
  int64_t dim = g.choices().pick(even_dims(t));
  if (g.choices().coin(0.3)) dim -= t.rank();
  n.args = {{"self", ValueRef{*v}}, {"dim", dim}};
  return true;
}

// prelu(self, weight): one slope, or one per channel (dim 1), of self's dtype.
std::string infer_prelu(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const TensorType* w = tensor_arg(p, n, "weight");
  if (!w || w->dtype != self->dtype || w->rank() != 1) return "prelu needs a 1-d weight of self's dtype";
  if (self->rank() == 0) return "prelu needs an input of rank 1 or more";
  int64_t channels = self->rank() >= 2 ? self->shape[1] : 1;
  if (w->shape[0] != 1 && w->shape[0] != channels)
    return "prelu's weight must have 1 or " + std::to_string(channels) + " elements";
  out = {{self->dtype, self->shape}};
  return "";
}

bool gen_prelu(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 1);
  if (!v) return false;
  const TensorType t = g.program().type(*v);
  int64_t channels = t.rank() >= 2 && g.choices().coin(0.7) ? t.shape[1] : 1;
  TensorType want{t.dtype, {channels}};
  int w = g.pick_or_input([&](const TensorType& x) { return x == want; }, want);
  n.args = {{"self", ValueRef{*v}}, {"weight", ValueRef{w}}};
  return true;
}
}  // namespace

void register_ops_activation(std::vector<OpSpec>& ops) {
  const std::string F = "torch.nn.functional.";
  ops.push_back(activation("relu", "torch.relu", {}, true));
  ops.push_back(activation("relu6", F + "relu6", {}));
  ops.push_back(activation("gelu", F + "gelu", {{"approximate", ParamKind::str, 0, 0}}));
  ops.push_back(activation("silu", F + "silu", {}));
  ops.push_back(activation("mish", F + "mish", {}));
  ops.push_back(activation("softplus", F + "softplus",
                           {{"beta", ParamKind::number, 0, 0}, {"threshold", ParamKind::number, 0, 0}}));
  ops.push_back(activation("elu", F + "elu", {{"alpha", ParamKind::number, 0, 0}}, true));
  ops.push_back(activation("leaky_relu", F + "leaky_relu", {{"negative_slope", ParamKind::number, 0, 0}}));
  ops.push_back(activation("hardtanh", F + "hardtanh",
                           {{"min_val", ParamKind::number, 0, 0}, {"max_val", ParamKind::number, 0, 0}}));
  ops.push_back(activation("hardswish", F + "hardswish", {}));
  ops.push_back(activation("hardsigmoid", F + "hardsigmoid", {}));
  ops.push_back(activation("hardshrink", F + "hardshrink", {{"lambd", ParamKind::number, 0, 0}}));
  ops.push_back(activation("softshrink", F + "softshrink", {{"lambd", ParamKind::number, 0, 0}}));
  ops.push_back(activation("log_sigmoid", F + "logsigmoid", {}));
  ops.push_back(activation("celu", F + "celu", {{"alpha", ParamKind::number, 0, 0}}));
  ops.push_back(activation("selu", F + "selu", {}));
  OpSpec threshold = activation("threshold", F + "threshold", {});
  threshold.params.push_back(A("threshold", ParamKind::number));
  threshold.params.push_back(A("value", ParamKind::number));
  threshold.generate = gen_threshold;
  ops.push_back(threshold);
  OpSpec glu = activation("glu", F + "glu", {});
  glu.params.push_back(A("dim", ParamKind::int_));
  glu.infer = infer_glu;
  glu.generate = gen_glu;
  ops.push_back(glu);
  OpSpec prelu = activation("prelu", F + "prelu", {});
  prelu.params.push_back(T("weight"));
  prelu.infer = infer_prelu;
  prelu.generate = gen_prelu;
  ops.push_back(prelu);
  for (auto& s : ops) {
    if (s.family != "activation") continue;
    if (s.name == "relu" || s.name == "relu6" || s.name == "hardtanh") s.float_only = false;
    // LibTorch 1.13 CPU activation kernels lack f16 (relu is clamp_min; mish also lacks bf16).
    s.half_ok = false;
  }

  OpSpec clamp;
  clamp.name = "clamp";
  clamp.family = "activation";
  clamp.aten = "aten::clamp";
  clamp.params = {T("self"), A("min", ParamKind::number, true), A("max", ParamKind::number, true)};
  clamp.infer = infer_clamp;
  clamp.generate = gen_clamp;
  clamp.python = "torch.clamp";
  clamp.half_ok = false;  // no f16 clamp kernel on CPU in LibTorch 1.13
  ops.push_back(clamp);
}

}  // namespace dlfuzz
