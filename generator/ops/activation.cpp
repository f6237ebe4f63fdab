// Activations, with their attributes: gelu's approximation, leaky_relu's slope,
// clamp's int/float/None bounds, ...
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
