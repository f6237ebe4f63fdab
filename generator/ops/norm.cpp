// Normalization layers: layer_norm, group_norm, batch_norm, instance_norm,
// with optional affine params. batch_norm runs either in eval mode on given
// running stats (mostly params in inference programs, as nn.BatchNorm's
// buffers) or in training mode on batch stats with no running stats (so no
// input is mutated); instance_norm always uses the input's stats, without
// running stats, for the same reason.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
std::string check_input(const Program& p, const Node& n, const TensorType*& in, int min_rank) {
  in = tensor_arg(p, n, "input");
  if (!in) return "missing tensor argument 'input'";
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, in->dtype, p.target))
    return std::string("dtype ") + dtype_name(in->dtype) + " not supported by " + n.op;
  if (in->rank() < min_rank) return n.op + " needs an input of rank >= " + std::to_string(min_rank);
  if (float_arg(n, "eps", 1e-5) <= 0) return "'eps' must be positive";
  return "";
}

// An optional per-feature tensor (weight, bias, running stats): None, absent,
// or `want`.
std::string check_optional(const Program& p, const Node& n, const std::string& name, const TensorType& want) {
  const Arg* a = n.arg(name);
  if (!a || std::holds_alternative<None>(a->value)) return "";
  const TensorType* t = tensor_arg(p, n, name);
  if (!t) return "'" + name + "' must be a tensor or None";
  if (*t != want) return "'" + name + "' must be " + type_str(want) + ", not " + type_str(*t);
  return "";
}

bool given(const Node& n, const std::string& name) {
  const Arg* a = n.arg(name);
  return a && !std::holds_alternative<None>(a->value);
}

// The per-feature tensors given (weight, bias, running stats): each `want`,
// or, in PyTorch 2.x, all float32 for a half input (the CPU kernels' mixed
// dtype: bf16 activations under autocast with the model's float32 params).
std::string check_features(const Program& p, const Node& n, std::vector<const char*> names, const TensorType& want) {
  bool mixed = p.target == Target::torch2 && is_half(want.dtype);
  if (mixed)
    for (const char* name : names) {
      const TensorType* t = given(n, name) ? tensor_arg(p, n, name) : nullptr;
      if (t && t->dtype != DType::f32) mixed = false;
    }
  TensorType f32{DType::f32, want.shape};
  for (const char* name : names)
    if (auto e = check_optional(p, n, name, mixed ? f32 : want); !e.empty()) return e;
  return "";
}

// layer_norm's and rms_norm's normalized_shape: the input's trailing dims.
std::string check_normalized_shape(const Node& n, const TensorType& in, const IntList*& ns) {
  ns = int_list_arg(n, "normalized_shape");
  if (!ns || ns->empty()) return "'normalized_shape' must be a non-empty int list";
  if (ns->size() > in.shape.size() || !std::equal(ns->begin(), ns->end(), in.shape.end() - ns->size()))
    return "'normalized_shape' must match the trailing dims of " + type_str(in);
  return "";
}

std::string infer_layer_norm(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* in;
  if (auto e = check_input(p, n, in, 1); !e.empty()) return e;
  const IntList* ns = nullptr;
  if (auto e = check_normalized_shape(n, *in, ns); !e.empty()) return e;
  if (auto e = check_features(p, n, {"weight", "bias"}, {in->dtype, *ns}); !e.empty()) return e;
  out = {*in};
  return "";
}

// F.rms_norm (PyTorch 2.4 on): layer_norm without the mean and the bias.
std::string infer_rms_norm(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* in;
  if (auto e = check_input(p, n, in, 1); !e.empty()) return e;
  const IntList* ns = nullptr;
  if (auto e = check_normalized_shape(n, *in, ns); !e.empty()) return e;
  if (auto e = check_features(p, n, {"weight"}, {in->dtype, *ns}); !e.empty()) return e;
  out = {*in};
  return "";
}

std::string infer_group_norm(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* in;
  if (auto e = check_input(p, n, in, 2); !e.empty()) return e;
  int64_t groups = int_arg(n, "num_groups", 0);
  if (!n.arg("num_groups") || groups < 1 || in->shape[1] % groups != 0)
    return "'num_groups' must divide the " + std::to_string(in->shape[1]) + " channels";
  if (auto e = check_features(p, n, {"weight", "bias"}, {in->dtype, {in->shape[1]}}); !e.empty()) return e;
  // F.group_norm's check: each group must hold more than one value (N * C/G * spatial).
  if (in->numel() > 0 && in->numel() / in->shape[1] * (in->shape[1] / groups) == 1)
    return "group_norm needs more than one value per group";
  out = {*in};
  return "";
}

// ATen's batch_norm has no defaults: every argument must be spelled.
std::string infer_batch_norm(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* in;
  if (auto e = check_input(p, n, in, 2); !e.empty()) return e;
  for (const char* name :
       {"weight", "bias", "running_mean", "running_var", "training", "momentum", "eps", "cudnn_enabled"})
    if (!n.arg(name)) return std::string("missing argument '") + name + "'";
  TensorType feat{in->dtype, {in->shape[1]}};
  if (auto e = check_features(p, n, {"weight", "bias", "running_mean", "running_var"}, feat); !e.empty()) return e;
  const Arg* tr = n.arg("training");
  if (!std::holds_alternative<bool>(tr->value)) return "'training' must be a bool";
  bool stats = given(n, "running_mean"), var = given(n, "running_var");
  if (std::get<bool>(tr->value)) {
    // Training mode would update given running stats in place: not modelled.
    if (stats || var) return "batch_norm in training mode takes no running stats here";
    // F.batch_norm's check: batch size times spatial size must not be 1.
    if (in->numel() / std::max<int64_t>(in->shape[1], 1) == 1 && in->shape[1] > 0)
      return "batch_norm in training mode needs more than one value per channel";
  } else if (!stats || !var) {
    return "batch_norm in eval mode needs running_mean and running_var";
  } else if (p.is_training()) {
    // Autograd refuses running stats that require grad, as params do in training.
    for (const char* name : {"running_mean", "running_var"}) {
      const auto* ref = std::get_if<ValueRef>(&n.arg(name)->value);
      const InputDecl* decl = ref ? p.input_of(ref->id) : nullptr;
      if (decl && decl->kind == InputKind::param)
        return std::string("batch_norm's ") + name + " cannot be a param in a training program";
    }
  }
  out = {*in};
  return "";
}

// ATen's instance_norm has no defaults either. It normalizes each (sample,
// channel) over its spatial dims: F.instance_norm needs more than one spatial
// value, and ATen a rank >= 3 input.
std::string infer_instance_norm(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* in;
  if (auto e = check_input(p, n, in, 3); !e.empty()) return e;
  for (const char* name :
       {"weight", "bias", "running_mean", "running_var", "use_input_stats", "momentum", "eps", "cudnn_enabled"})
    if (!n.arg(name)) return std::string("missing argument '") + name + "'";
  if (auto e = check_features(p, n, {"weight", "bias"}, {in->dtype, {in->shape[1]}}); !e.empty()) return e;
  // Running stats would be written back in place (even with use_input_stats
  // false): not modelled.
  if (given(n, "running_mean") || given(n, "running_var")) return "instance_norm takes no running stats here";
  const Arg* stats = n.arg("use_input_stats");
  if (!std::holds_alternative<bool>(stats->value) || !std::get<bool>(stats->value))
    return "instance_norm without running stats needs use_input_stats=True";
  if (in->numel() == 0) return "instance_norm needs a non-empty input";
  if (in->numel() / (in->shape[0] * in->shape[1]) == 1) return "instance_norm needs more than one spatial value";
  out = {*in};
  return "";
}

// The input: a float tensor of rank >= min_rank with no zero-size dims.
std::optional<int> norm_input(GenContext& g, const OpSpec& s, int min_rank) {
  auto fits = [&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && t.rank() >= min_rank && t.numel() > 0;
  };
  auto v = g.first(fits);
  if (v || g.focus()) return v;
  TensorType fresh{g.random_float_dtype(s.half_ok), g.random_shape(min_rank, 4)};
  if (!fits(fresh)) return std::nullopt;
  return g.new_input(fresh);
}

// Affine params: a scale near 1 and a small shift, each sometimes absent
// (left out, or spelled None where the schema has no default).
void affine(GenContext& g, Node& n, const TensorType& feat, bool spell_none, bool bias_needs_weight = false) {
  Choices& c = g.choices();
  bool weight = c.coin(0.7);
  if (weight) {
    int w = c.coin(0.3) ? g.new_param(feat, Init::ones, 1, 1) : g.new_param(feat, Init::uniform, 0.5, 1.5);
    n.args.push_back({"weight", ValueRef{w}});
  } else if (spell_none) {
    n.args.push_back({"weight", None{}});
  }
  if ((weight || !bias_needs_weight) && c.coin(0.6))
    n.args.push_back({"bias", ValueRef{g.new_param(feat, Init::uniform, -0.5, 0.5)}});
  else if (spell_none) n.args.push_back({"bias", None{}});
}

ArgValue random_eps(Choices& c) { return c.pick(std::vector<double>{1e-5, 1e-3, 0.1}); }

// A normalized_shape for x: its last 1..rank dims.
IntList trailing_dims(Choices& c, const TensorType& x) {
  size_t k = c.range(1, x.rank());
  return IntList(x.shape.end() - k, x.shape.end());
}

bool gen_layer_norm(GenContext& g, const OpSpec& s, Node& n) {
  auto v = norm_input(g, s, 1);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  Choices& c = g.choices();
  IntList ns = trailing_dims(c, x);
  n.args = {{"input", ValueRef{*v}}, {"normalized_shape", ns}};
  affine(g, n, {x.dtype, ns}, false);
  if (c.coin(0.4)) n.args.push_back({"eps", random_eps(c)});
  return true;
}

bool gen_rms_norm(GenContext& g, const OpSpec& s, Node& n) {
  auto v = norm_input(g, s, 1);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  Choices& c = g.choices();
  IntList ns = trailing_dims(c, x);
  n.args = {{"input", ValueRef{*v}}, {"normalized_shape", ns}};
  if (c.coin(0.7)) n.args.push_back({"weight", ValueRef{g.new_param({x.dtype, ns}, Init::uniform, 0.5, 1.5)}});
  if (c.coin(0.4)) n.args.push_back({"eps", random_eps(c)});  // else the dtype's epsilon
  return true;
}

bool gen_group_norm(GenContext& g, const OpSpec& s, Node& n) {
  auto v = norm_input(g, s, 2);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  Choices& c = g.choices();
  int64_t ch = x.shape[1];
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= ch; ++d)
    if (ch % d == 0) divisors.push_back(d);
  int64_t groups = c.pick(divisors);
  if (x.numel() / ch * (ch / groups) == 1) groups = 1;  // one value per group: F.group_norm raises
  if (x.numel() == 1) return false;
  n.args = {{"input", ValueRef{*v}}, {"num_groups", groups}};
  // 1.13's group_norm backward fails ("tensor does not have a device") for a
  // bias without a weight.
  affine(g, n, {x.dtype, {ch}}, false, true);
  if (c.coin(0.4)) n.args.push_back({"eps", random_eps(c)});
  return true;
}

bool gen_batch_norm(GenContext& g, const OpSpec& s, Node& n) {
  auto v = norm_input(g, s, 2);
  if (!v) return false;
  TensorType x = g.program().type(*v);
  Choices& c = g.choices();
  TensorType feat{x.dtype, {x.shape[1]}};
  bool training = x.numel() / x.shape[1] > 1 && c.coin(0.5);
  // Eval mode scales by 1/sqrt(running_var): bounded input and running_var >= 0.5
  // keep the output small.
  int in = training ? *v : g.in_domain(*v, Domain::bounded);
  n.args = {{"input", ValueRef{in}}};
  affine(g, n, feat, true);
  if (training) {
    n.args.push_back({"running_mean", None{}});
    n.args.push_back({"running_var", None{}});
  } else if (!g.training() && c.coin(0.7)) {
    // An inference program's running stats are mostly params, as nn.BatchNorm
    // holds them in eval mode: what freezing folds into a conv before it.
    n.args.push_back({"running_mean", ValueRef{g.new_param(feat, Init::uniform, -1, 1)}});
    n.args.push_back({"running_var", ValueRef{g.new_param(feat, Init::uniform, 0.5, 2)}});
  } else {
    n.args.push_back({"running_mean", ValueRef{g.new_input(feat)}});
    n.args.push_back({"running_var", ValueRef{g.in_domain(g.new_input(feat), Domain::positive)}});
  }
  n.args.push_back({"training", training});
  n.args.push_back({"momentum", 0.1});
  n.args.push_back({"eps", c.coin(0.5) ? 1e-5 : 1e-3});
  n.args.push_back({"cudnn_enabled", true});
  return true;
}

bool gen_instance_norm(GenContext& g, const OpSpec& s, Node& n) {
  auto fits = [&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && t.rank() >= 3 && t.numel() > 0 &&
           t.numel() / (t.shape[0] * t.shape[1]) > 1;
  };
  auto v = g.first(fits);
  if (!v) {
    if (g.focus()) return false;
    TensorType fresh{g.random_float_dtype(s.half_ok), g.random_shape(3, 4)};
    if (!fits(fresh)) return false;
    v = g.new_input(fresh);
  }
  const TensorType x = g.program().type(*v);
  n.args = {{"input", ValueRef{*v}}};
  affine(g, n, {x.dtype, {x.shape[1]}}, true);
  n.args.push_back({"running_mean", None{}});
  n.args.push_back({"running_var", None{}});
  n.args.push_back({"use_input_stats", true});
  n.args.push_back({"momentum", 0.1});
  n.args.push_back({"eps", random_eps(g.choices())});
  n.args.push_back({"cudnn_enabled", true});
  return true;
}

ParamSpec opt_tensor(const std::string& name, bool positional) { return {name, ParamKind::tensor, true, positional}; }

OpSpec norm(const std::string& name, std::vector<ParamSpec> params, InferFn infer, GenFn gen) {
  OpSpec s;
  s.name = name;
  s.family = "norm";
  s.aten = "aten::" + name;
  s.params = std::move(params);
  s.infer = infer;
  s.generate = gen;
  s.float_only = true;
  s.half_ok = false;  // 1.13's CPU norms have no f16 kernels
  s.python = "torch.nn.functional." + name;
  return s;
}
}  // namespace

void register_ops_norm(std::vector<OpSpec>& ops) {
  // cudnn_enable(d) of layer_norm and group_norm has a default and is left out.
  ops.push_back(norm("layer_norm",
                     {T("input"), A("normalized_shape", ParamKind::int_list), opt_tensor("weight", false),
                      opt_tensor("bias", false), A("eps", ParamKind::float_)},
                     infer_layer_norm, gen_layer_norm));
  OpSpec rms = norm("rms_norm",
                    {T("input"), A("normalized_shape", ParamKind::int_list), opt_tensor("weight", false),
                     A("eps", ParamKind::float_, true)},
                    infer_rms_norm, gen_rms_norm);
  rms.torch2_only = true;
  ops.push_back(rms);
  ops.push_back(norm("group_norm",
                     {T("input"), A("num_groups", ParamKind::int_), opt_tensor("weight", false),
                      opt_tensor("bias", false), A("eps", ParamKind::float_)},
                     infer_group_norm, gen_group_norm));
  OpSpec bn = norm("batch_norm",
                   {T("input"),
                    opt_tensor("weight", true),
                    opt_tensor("bias", true),
                    opt_tensor("running_mean", true),
                    opt_tensor("running_var", true),
                    A("training", ParamKind::bool_),
                    A("momentum", ParamKind::float_),
                    A("eps", ParamKind::float_),
                    {"cudnn_enabled", ParamKind::bool_, false, false, false}},
                   infer_batch_norm, gen_batch_norm);
  // F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
  bn.python_positional = {"input", "running_mean", "running_var", "weight", "bias"};
  ops.push_back(bn);
  // F.instance_norm names the same arguments (all but cudnn_enabled), in
  // another order: every one but input is spelled by name.
  ops.push_back(norm("instance_norm",
                     {T("input"),
                      opt_tensor("weight", false),
                      opt_tensor("bias", false),
                      opt_tensor("running_mean", false),
                      opt_tensor("running_var", false),
                      A("use_input_stats", ParamKind::bool_),
                      A("momentum", ParamKind::float_),
                      A("eps", ParamKind::float_),
                      {"cudnn_enabled", ParamKind::bool_, false, false, false}},
                     infer_instance_norm, gen_instance_norm));
}

}  // namespace dlfuzz
