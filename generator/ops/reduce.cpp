// Reductions, and the dim-wise ops that share their dim handling: sum, mean,
// prod, amax/amin, argmax/argmin, var/std, logsumexp, softmax/log_softmax, cumsum,
// cumprod, logcumsumexp, nansum/nanmean (which skip NaNs), the two-result
// var_mean/std_mean/aminmax, linalg_vector_norm (with an `ord`) and
// count_nonzero.
#include <cmath>
#include <map>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// How an op takes `dim`, following its ATen schema.
enum class Dims {
  list_opt,  // int[1]? dim (sum, mean, var, std): absent reduces everything
  list_all,  // int[1] dim=[] (amax, amin): absent or [] reduces everything
  list_req,  // int[1] dim (logsumexp)
  int_opt,   // int? dim (argmax, argmin, prod's two overloads)
  int_req,   // int dim (softmax, log_softmax, cumsum): the shape is kept
};

struct Rule {
  Dims dims;
  int64_t min_count;  // reduced elements the generator needs: 1 (mean of nothing is NaN), 2 (var)
  bool long_ints;     // integer/bool inputs give i64 (sum, prod, cumsum)
  bool long_out;      // the result is an index (argmax, argmin)
  bool empty_error;   // reducing a zero-size dim is a runtime error, not a value
};

const Rule* rule_of(const std::string& op) {
  static const std::map<std::string, Rule> rules = {
      {"sum", {Dims::list_opt, 0, true, false, false}},     {"mean", {Dims::list_opt, 1, false, false, false}},
      {"prod", {Dims::int_opt, 0, true, false, false}},     {"amax", {Dims::list_all, 1, false, false, true}},
      {"amin", {Dims::list_all, 1, false, false, true}},    {"argmax", {Dims::int_opt, 1, false, true, true}},
      {"argmin", {Dims::int_opt, 1, false, true, true}},    {"var", {Dims::list_opt, 2, false, false, false}},
      {"std", {Dims::list_opt, 2, false, false, false}},    {"logsumexp", {Dims::list_req, 1, false, false, false}},
      {"softmax", {Dims::int_req, 0, false, false, false}}, {"log_softmax", {Dims::int_req, 0, false, false, false}},
      {"cumsum", {Dims::int_req, 0, true, false, false}},   {"cumprod", {Dims::int_req, 0, true, false, false}},
      {"nansum", {Dims::list_opt, 0, true, false, false}},  {"nanmean", {Dims::list_opt, 1, false, false, false}},
      {"logcumsumexp", {Dims::int_req, 0, false, false, false}},
      {"var_mean", {Dims::list_opt, 2, false, false, false}},
      {"std_mean", {Dims::list_opt, 2, false, false, false}},
      {"aminmax", {Dims::int_opt, 1, false, false, true}},
      {"linalg_vector_norm", {Dims::list_opt, 1, false, false, false}},
      {"count_nonzero", {Dims::int_opt, 0, false, true, false}},
  };
  auto it = rules.find(op);
  return it == rules.end() ? nullptr : &it->second;
}

bool is_list(Dims d) { return d == Dims::list_opt || d == Dims::list_all || d == Dims::list_req; }

std::string infer_reduce(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  const OpSpec* s = find_op(n.op);
  const Rule* r = rule_of(n.op);
  if (!s || !r) return "no reduction rule for " + n.op;
  if (!dtype_allowed(*s, self->dtype, p.target))
    return std::string("dtype ") + dtype_name(self->dtype) + " not supported by " + n.op;
  const int rank = self->rank();
  std::vector<bool> reduced(rank, true);  // no dim: everything
  const Arg* dim = n.arg("dim");
  bool has_dim = dim && !std::holds_alternative<None>(dim->value);
  if (has_dim) {
    IntList dims;
    if (is_list(r->dims)) {
      auto* l = std::get_if<IntList>(&dim->value);
      if (!l) return "'dim' must be a list of ints";
      // sum(dim=[]) changed meaning across releases; amax(dim=[]) is "all" in each.
      if (l->empty() && r->dims != Dims::list_all) return "'dim' must not be empty";
      dims = *l;
    } else {
      auto* i = std::get_if<int64_t>(&dim->value);
      if (!i) return "'dim' must be an int";
      dims = {*i};
    }
    if (!dims.empty()) reduced.assign(rank, false);
    std::vector<bool> seen(std::max(rank, 1), false);
    for (int64_t d : dims) {
      if (!wrap_dim(d, rank)) return "dim " + std::to_string(d) + " out of range for " + type_str(*self);
      if (seen[d]) return "dim " + std::to_string(d) + " appears twice";
      seen[d] = true;
      if (rank > 0) reduced[d] = true;
    }
  } else if (r->dims == Dims::list_req || r->dims == Dims::int_req) {
    return "missing argument 'dim'";
  }
  bool keepdim = bool_arg(n, "keepdim", false);
  // Overloads without dim have no keepdim (sum, var in 1.13, argmax's flat form).
  if (n.arg("keepdim") && !has_dim && r->dims != Dims::list_all) return "'keepdim' needs 'dim'";

  DType t = self->dtype;
  if (r->long_out) t = DType::i64;
  else if (r->long_ints && !is_float(t)) t = DType::i64;
  else if (n.op == "logsumexp") t = to_float_default(t);
  if (const Arg* dt = n.arg("dtype"); dt && !std::holds_alternative<None>(dt->value)) {
    auto* want = std::get_if<DType>(&dt->value);
    if (!want) return "'dtype' must be a dtype";
    if ((n.op == "softmax" || n.op == "log_softmax") && !is_float(*want)) return "softmax needs a float dtype";
    t = *want;
  }

  Shape shape;
  for (int i = 0; i < rank; ++i) {
    if (r->empty_error && reduced[i] && self->shape[i] == 0)
      return n.op + " can't reduce the zero-size dim " + std::to_string(i);
    if (r->dims == Dims::int_req || !reduced[i]) shape.push_back(self->shape[i]);
    else if (keepdim) shape.push_back(1);
  }
  out = {{t, shape}};
  // var_mean, std_mean: (var or std, mean); aminmax: (min, max).
  if (n.op == "var_mean" || n.op == "std_mean" || n.op == "aminmax") out.push_back(out[0]);
  if (n.op == "linalg_vector_norm" && !n.arg("ord")) return "linalg_vector_norm needs an 'ord'";
  return "";
}

// 1..rank distinct dims, in any order, some spelled negative.
IntList random_dims(Choices& c, int rank) {
  if (rank == 0) return {c.coin(0.5) ? 0 : -1};
  IntList all;
  for (int i = 0; i < rank; ++i) all.push_back(i);
  for (int i = rank - 1; i > 0; --i) std::swap(all[i], all[c.below(i + 1)]);
  all.resize(c.range(1, rank));
  if (c.coin(0.7)) std::sort(all.begin(), all.end());
  for (auto& d : all)
    if (c.coin(0.25)) d -= rank;
  return all;
}

int64_t reduced_count(const TensorType& t, const IntList& dims) {
  int64_t k = 1;
  for (int64_t d : dims) {
    if (t.rank() == 0) continue;
    k = mul_saturating(k, t.shape[d < 0 ? d + t.rank() : d]);
  }
  return k;
}

bool gen_reduce(GenContext& g, const OpSpec& s, Node& n) {
  const Rule& r = *rule_of(s.name);
  Choices& c = g.choices();
  // Every reduced extent is at least min_count when the whole tensor is.
  auto fits = [&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && t.numel() >= r.min_count;
  };
  auto v = g.first(fits);
  // argmax/argmin only of values with the same bits on every backend
  // (GenContext::is_exact): of computed floats, near-ties differ in the last
  // bit between builds and ISAs (atan2(x, x) on AVX-512 vs AVX2), and the index
  // of the larger one is compared exactly.
  if (v && r.long_out && !g.is_exact(*v)) v.reset();
  if (!v) {
    if (g.focus()) return false;
    DType t = s.float_only ? g.random_float_dtype(s.half_ok) : g.random_dtype();
    TensorType fresh{t, g.random_shape(0, 4)};
    if (!fits(fresh)) return false;
    v = g.new_input(fresh);
  }
  // prod of up to max_dim values in [-6, 6] stays well inside f16's range.
  // (Bools need no guard, and clamp has no bool kernel.)
  bool guard = (s.name == "prod" || s.name == "cumprod") && !is_bool(g.program().type(*v).dtype);
  int x = guard ? g.in_domain(*v, Domain::bounded) : *v;
  const TensorType t = g.program().type(x);
  n.args = {{"self", ValueRef{x}}};

  // aminmax has no derivative in LibTorch 1.13.
  if (s.name == "aminmax" && g.carries_grad(x)) return false;
  bool has_dim = false;
  if (is_list(r.dims)) {
    if (r.dims == Dims::list_req || c.coin(0.75)) {
      IntList dims = random_dims(c, t.rank());
      // var/std need two reduced elements, else fall back to reducing everything.
      if (reduced_count(t, dims) >= r.min_count || r.dims == Dims::list_req) {
        n.args.push_back({"dim", dims});
        has_dim = true;
      }
    }
  } else if (r.dims == Dims::int_req || c.coin(0.75) || s.name == "prod") {
    // prod reduces a single dim: a product over everything can overflow.
    n.args.push_back({"dim", random_dim_index(g, t.rank())});
    has_dim = true;
  }
  // (aminmax of a 0-d tensor with keepdim is 1-d in LibTorch 1.13, 0-d in 2.x.)
  if (has_dim && s.param("keepdim") && c.coin(0.5) && !(s.name == "aminmax" && t.rank() == 0))
    n.args.push_back({"keepdim", c.coin(0.6)});
  if (s.param("unbiased") && c.coin(0.2)) n.args.push_back({"unbiased", false});
  // Norms whose gradients stay finite at 0 (not 0 < ord < 1), and the max/min ones.
  if (s.name == "linalg_vector_norm")
    n.args.push_back({"ord", c.pick(std::vector<ArgValue>{int64_t{2}, int64_t{1}, int64_t{3}, 1.5, INFINITY,
                                                          -INFINITY})});
  // An explicit accumulation dtype: widening only, so results stay comparable.
  if (s.param("dtype") && c.coin(0.1)) {
    bool to_float = is_float(t.dtype) || s.name == "softmax" || s.name == "log_softmax" || c.coin(0.5);
    n.args.push_back({"dtype", to_float ? DType::f64 : DType::i64});
  }
  return true;
}

OpSpec reduction(const std::string& name, bool keepdim, bool dtype_param, bool float_only, bool half_ok) {
  OpSpec s;
  s.name = name;
  s.family = "reduce";
  s.aten = "aten::" + name;
  const Rule& r = *rule_of(name);
  ParamKind dk = is_list(r.dims) ? ParamKind::int_list : ParamKind::int_;
  // `None` is only spelled for the optional int dims; lists are left out instead.
  s.params = {T("self"), A("dim", dk, r.dims == Dims::int_opt)};
  if (keepdim) s.params.push_back(A("keepdim", ParamKind::bool_));
  if (dtype_param) s.params.push_back(A("dtype", ParamKind::dtype, true));
  s.infer = infer_reduce;
  s.generate = gen_reduce;
  s.float_only = float_only;
  s.half_ok = half_ok;
  s.differentiable = !r.long_out;
  s.reads_bits = r.long_out;
  s.bool_ok = !float_only && !r.long_out;  // argmax has no bool kernel in 1.13
  // Backward formulas that read the result: a later in-place write to it breaks them.
  s.saves_output = name == "prod" || name == "cumprod" || name == "amax" || name == "amin" || name == "std" ||
                   name == "logsumexp" || name == "softmax" || name == "log_softmax" || name == "logcumsumexp" ||
                   name == "std_mean" || name == "linalg_vector_norm" || name == "aminmax";
  s.python = "torch." + name;
  return s;
}
}  // namespace

void register_ops_reduce(std::vector<OpSpec>& ops) {
  // Flags from LibTorch 1.13's CPU kernels: prod, logsumexp, softmax and cumsum
  // lack f16; var/std in half are left out as numerically fragile.
  ops.push_back(reduction("sum", true, true, false, true));
  ops.push_back(reduction("mean", true, false, true, true));
  OpSpec prod = reduction("prod", true, false, false, false);
  prod.params[1].optional = false;  // prod.dim_int takes `int dim`; no dim is aten::prod(self)
  ops.push_back(prod);
  ops.push_back(reduction("amax", true, false, false, true));
  ops.push_back(reduction("amin", true, false, false, true));
  ops.push_back(reduction("argmax", true, false, false, true));
  ops.push_back(reduction("argmin", true, false, false, true));
  for (const char* name : {"var", "std"}) {
    OpSpec s = reduction(name, true, false, true, false);
    s.params.insert(s.params.begin() + 2, A("unbiased", ParamKind::bool_));
    ops.push_back(s);
  }
  // logsumexp of integers gives the default float (1.13 and 2.x agree).
  OpSpec lse = reduction("logsumexp", true, false, false, false);
  lse.bool_ok = false;
  ops.push_back(lse);
  for (const char* name : {"softmax", "log_softmax"}) {
    ops.push_back(reduction(name, false, true, true, false));
  }
  ops.push_back(reduction("cumsum", false, true, false, false));
  ops.push_back(reduction("cumprod", false, true, false, false));
  OpSpec nansum = reduction("nansum", true, true, false, false);
  nansum.bool_ok = false;
  ops.push_back(nansum);
  ops.push_back(reduction("nanmean", true, true, true, false));
  ops.push_back(reduction("logcumsumexp", false, false, true, false));

  for (const char* name : {"var_mean", "std_mean"}) {
    OpSpec s = reduction(name, true, false, true, false);
    s.params.insert(s.params.begin() + 2, A("unbiased", ParamKind::bool_));
    s.tuple_result = true;
    ops.push_back(s);
  }
  // aminmax(self, *, dim=None, keepdim=False) -> (min, max)
  OpSpec aminmax = reduction("aminmax", true, false, false, false);
  aminmax.tuple_result = true;
  aminmax.differentiable = false;  // not in LibTorch 1.13
  aminmax.bool_ok = false;
  ops.push_back(aminmax);
  // linalg.vector_norm(x, ord, dim, keepdim, *, dtype): float inputs only.
  OpSpec norm = reduction("linalg_vector_norm", true, true, true, false);
  norm.params.insert(norm.params.begin() + 1, A("ord", ParamKind::number));
  norm.python = "torch.linalg.vector_norm";
  ops.push_back(norm);
  // count_nonzero(self, dim=None): an i64 count, from the exact zero-ness of its input.
  ops.push_back(reduction("count_nonzero", false, false, false, true));
}

}  // namespace dlfuzz
