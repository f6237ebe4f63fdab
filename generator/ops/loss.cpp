// Losses with a reduction (ATen's int `reduction`, Python's string one:
// ParamSpec::python_strings): mean (the default) or sum give a 0-d result of
// self's dtype, none the unreduced elementwise loss. Regression losses compare same-typed tensors (margin_ranking_loss
// three of them); cross_entropy and nll_loss take i64 class indices in [0, C).
// Each has a decomposition of its own in PyTorch 2.x, which Inductor compiles.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
std::string check_self(const Program& p, const Node& n, const TensorType*& self) {
  self = tensor_arg(p, n, n.arg("input1") ? "input1" : "self");
  if (!self) return "missing tensor argument 'self'";
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, self->dtype, p.target))
    return std::string("dtype ") + dtype_name(self->dtype) + " not supported by " + n.op;
  return "";
}

enum Reduction { kNone = 0, kMean = 1, kSum = 2 };

// The result of a loss whose unreduced form is `unreduced`.
std::string reduced(const Node& n, const TensorType& unreduced, std::vector<TensorType>& out) {
  int64_t r = int_arg(n, "reduction", kMean);
  if (r < kNone || r > kSum) return "reduction must be 0 (none), 1 (mean) or 2 (sum)";
  out = {{unreduced.dtype, r == kNone ? unreduced.shape : Shape{}}};
  return "";
}

std::string infer_regression(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = check_self(p, n, self); !e.empty()) return e;
  const TensorType* target = tensor_arg(p, n, "target");
  if (!target) return "missing tensor argument 'target'";
  // ATen would broadcast (Python warns) and promote; only the plain form is allowed.
  if (*target != *self) return "target " + type_str(*target) + " must match self " + type_str(*self);
  if (const TensorType* second = tensor_arg(p, n, "input2"); second && *second != *self)
    return "input2 " + type_str(*second) + " must match input1 " + type_str(*self);
  for (const char* name : {"beta", "delta"})
    if (n.arg(name) && float_arg(n, name, 1.0) <= 0) return std::string("'") + name + "' must be positive";
  return reduced(n, *self, out);
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
  return reduced(n, {self->dtype, want}, out);
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

// Mostly the default mean; sometimes none (a tensor for later ops) or sum.
void add_reduction(GenContext& g, Node& n) {
  Choices& c = g.choices();
  if (c.coin(0.35)) n.args.push_back({"reduction", c.pick(std::vector<int64_t>{kNone, kNone, kSum, kMean})});
}

bool gen_regression(GenContext& g, const OpSpec& s, Node& n) {
  auto v = loss_input(g, s, 0, 4);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  Choices& c = g.choices();
  auto same = [&] { return g.pick_or_input([&](const TensorType& t) { return t == x; }, x); };
  int self = *v, y = same();
  // soft_margin_loss has no gradient for its target.
  if (s.name == "soft_margin_loss" && g.carries_grad(y)) y = g.new_input(x);
  // binary_cross_entropy reads probabilities (and rejects NaN): sigmoid of a
  // bounded value keeps them inside (0, 1), away from the log's clamp at 0 and 1.
  if (s.name == "binary_cross_entropy") {
    auto probability = [&](int value) {
      int finite = g.emit1("nan_to_num", {{"self", ValueRef{value}}});
      return g.emit1("sigmoid", {{"self", ValueRef{g.in_domain(finite, Domain::bounded)}}});
    };
    self = probability(self);
    y = probability(y);
  }
  bool log_target = s.param("log_target") && c.coin(0.4);
  // kl_div takes the log of a target given as probabilities: keep it positive.
  if (s.name == "kl_div" && !log_target) y = g.in_domain(y, Domain::positive);
  if (s.name == "margin_ranking_loss") {
    n.args = {{"input1", ValueRef{self}}, {"input2", ValueRef{same()}}, {"target", ValueRef{y}}};
  } else {
    n.args = {{"self", ValueRef{self}}, {"target", ValueRef{y}}};
  }
  for (const char* name : {"beta", "delta"})
    if (s.param(name) && c.coin(0.3)) n.args.push_back({name, c.uniform(0.5, 2)});
  if (s.param("margin") && c.coin(0.4)) n.args.push_back({"margin", c.uniform(-0.5, 1.5)});
  if (log_target) n.args.push_back({"log_target", true});
  add_reduction(g, n);
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
  add_reduction(g, n);
  return true;
}

OpSpec loss(const std::string& name, const std::string& python, std::vector<ParamSpec> params, InferFn infer,
            GenFn gen) {
  // 1.13 CPU: no bf16 mse_loss, no f16 log_softmax/nll_loss.
  OpSpec s = float_op(name, "loss", "torch.nn.functional." + python, std::move(params), infer, gen);
  ParamSpec reduction = A("reduction", ParamKind::int_);
  reduction.python_strings = {"none", "mean", "sum"};
  s.params.push_back(reduction);
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

  using K = ParamKind;
  ops.push_back(loss("huber_loss", "huber_loss", {T("self"), T("target"), A("delta", K::float_)}, infer_regression,
                     gen_regression));
  ops.push_back(loss("soft_margin_loss", "soft_margin_loss", {T("self"), T("target")}, infer_regression,
                     gen_regression));
  ops.push_back(loss("kl_div", "kl_div", {T("self"), T("target"), A("log_target", K::bool_)}, infer_regression,
                     gen_regression));
  ops.push_back(loss("binary_cross_entropy", "binary_cross_entropy", {T("self"), T("target")}, infer_regression,
                     gen_regression));
  ops.push_back(loss("binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits",
                     {T("self"), T("target")}, infer_regression, gen_regression));
  // hinge_embedding_loss only compares its target with 1 and -1: no gradient flows to it.
  OpSpec hinge = loss("hinge_embedding_loss", "hinge_embedding_loss", {T("self"), T("target"), A("margin", K::float_)},
                      infer_regression, gen_regression);
  hinge.params[1].grad = false;
  ops.push_back(hinge);
  ops.push_back(loss("margin_ranking_loss", "margin_ranking_loss",
                     {T("input1"), T("input2"), T("target"), A("margin", K::float_)}, infer_regression,
                     gen_regression));
}

}  // namespace dlfuzz
