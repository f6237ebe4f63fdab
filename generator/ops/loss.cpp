// Losses with the default mean reduction (ATen's int `reduction` and Python's
// string one do not line up, so it is never spelled): a 0-d result of self's
// dtype. Regression losses compare same-typed tensors; cross_entropy and
// nll_loss take i64 class indices in [0, C).
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
std::string check_self(const Program& p, const Node& n, const TensorType*& self) {
  self = tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, self->dtype, p.target))
    return std::string("dtype ") + dtype_name(self->dtype) + " not supported by " + n.op;
  return "";
}

std::string infer_regression(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = check_self(p, n, self); !e.empty()) return e;
  const TensorType* target = tensor_arg(p, n, "target");
  if (!target) return "missing tensor argument 'target'";
  // ATen would broadcast (Python warns) and promote; only the plain form is allowed.
  if (*target != *self) return "target " + type_str(*target) + " must match self " + type_str(*self);
  if (n.arg("beta") && float_arg(n, "beta", 1.0) <= 0) return "'beta' must be positive";
  out = {{self->dtype, {}}};
  return "";
}

// Class-index target: self [C] with a 0-d target, or self [N, C, d...] with
// target [N, d...] (nll_loss: at most 2-d).
std::string infer_classify(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = check_self(p, n, self); !e.empty()) return e;
  int max_rank = n.op == "nll_loss" ? 2 : 8;
  if (self->rank() < 1 || self->rank() > max_rank)
    return n.op + " needs self of rank 1 to " + std::to_string(max_rank) + ", not " + type_str(*self);
  const TensorType* target = tensor_arg(p, n, "target");
  if (!target) return "missing tensor argument 'target'";
  Shape want = self->shape;
  want.erase(want.begin() + (self->rank() == 1 ? 0 : 1));
  if (target->dtype != DType::i64 || target->shape != want)
    return "target must be " + type_str({DType::i64, want}) + ", not " + type_str(*target);
  double ls = float_arg(n, "label_smoothing", 0.0);
  if (ls < 0 || ls > 1) return "'label_smoothing' must be in [0, 1]";
  out = {{self->dtype, {}}};
  return "";
}

// self: a float tensor with elements (the mean over nothing is NaN).
std::optional<int> loss_input(GenContext& g, const OpSpec& s, int min_rank, int max_rank) {
  auto fits = [&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && t.rank() >= min_rank && t.rank() <= max_rank &&
           t.numel() > 0;
  };
  auto v = g.first(fits);
  if (v || g.focus()) return v;
  TensorType fresh{g.random_float_dtype(s.half_ok), g.random_shape(min_rank, max_rank)};
  if (!fits(fresh)) return std::nullopt;
  return g.new_input(fresh);
}

bool gen_regression(GenContext& g, const OpSpec& s, Node& n) {
  auto v = loss_input(g, s, 0, 4);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  int y = g.pick_or_input([&](const TensorType& t) { return t == x; }, x);
  n.args = {{"self", ValueRef{*v}}, {"target", ValueRef{y}}};
  if (s.param("beta") && g.choices().coin(0.3)) n.args.push_back({"beta", g.choices().uniform(0.5, 2)});
  return true;
}

bool gen_classify(GenContext& g, const OpSpec& s, Node& n) {
  auto v = loss_input(g, s, 1, s.name == "nll_loss" ? 2 : 3);
  if (!v) return false;
  int x = *v;
  const TensorType xt = g.program().type(x);
  Choices& c = g.choices();
  int cdim = xt.rank() == 1 ? 0 : 1;
  int64_t classes = xt.shape[cdim];
  // nll_loss reads log-probabilities: usually feed it a log_softmax.
  if (s.name == "nll_loss" && c.coin(0.7)) x = g.emit1("log_softmax", {{"self", ValueRef{x}}, {"dim", int64_t(cdim)}});
  Shape ts = xt.shape;
  ts.erase(ts.begin() + cdim);
  TensorType tt{DType::i64, ts};
  // An index tensor already in [0, C), else i64 data folded into it: remainder by
  // a positive int is Python-style, so its results lie in [0, C).
  auto y = g.pick([&](const TensorType& t) { return t == tt; });
  if (!y || !g.range_of(*y).within(0, double(classes - 1))) {
    int raw = g.new_input(tt);
    y = g.emit1("remainder", {{"self", ValueRef{raw}}, {"other", classes}});
  }
  n.args = {{"self", ValueRef{x}}, {"target", ValueRef{*y}}};
  if (s.param("label_smoothing") && c.coin(0.3)) n.args.push_back({"label_smoothing", c.uniform(0.05, 0.3)});
  return true;
}

OpSpec loss(const std::string& name, const std::string& python, std::vector<ParamSpec> params, InferFn infer,
            GenFn gen) {
  OpSpec s;
  s.name = name;
  s.family = "loss";
  s.aten = "aten::" + name;
  s.params = std::move(params);
  s.infer = infer;
  s.generate = gen;
  s.float_only = true;
  s.half_ok = false;  // 1.13 CPU: no bf16 mse_loss, no f16 log_softmax/nll_loss
  s.python = "torch.nn.functional." + python;
  return s;
}
}  // namespace

void register_ops_loss(std::vector<OpSpec>& ops) {
  ops.push_back(loss("mse_loss", "mse_loss", {T("self"), T("target")}, infer_regression, gen_regression));
  ops.push_back(loss("l1_loss", "l1_loss", {T("self"), T("target")}, infer_regression, gen_regression));
  ops.push_back(loss("smooth_l1_loss", "smooth_l1_loss", {T("self"), T("target"), A("beta", ParamKind::float_)},
                     infer_regression, gen_regression));
  // F.cross_entropy is aten::cross_entropy_loss (log_softmax + nll).
  OpSpec ce = loss("cross_entropy", "cross_entropy", {T("self"), T("target"), A("label_smoothing", ParamKind::float_)},
                   infer_classify, gen_classify);
  ce.aten = "aten::cross_entropy_loss";
  ops.push_back(ce);
  // F.nll_loss goes through aten::nll_loss_nd, which is aten::nll_loss for the
  // 1-d and 2-d inputs allowed here.
  ops.push_back(loss("nll_loss", "nll_loss", {T("self"), T("target")}, infer_classify, gen_classify));
}

}  // namespace dlfuzz
