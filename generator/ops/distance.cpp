// Distances and similarities between two tensors of one type, and the small
// products outer and trace: cosine_similarity, pairwise_distance, cdist, dist.
// Each is a decomposition of norms, sums and divisions in PyTorch 2.x, with an
// eps or a zero-distance rule of its own in the backward. Float only.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// The named operands, present, of one dtype the op allows.
std::string get_pair(const Program& p, const Node& n, const char* a, const char* b, const TensorType*& x,
                     const TensorType*& y) {
  x = tensor_arg(p, n, a);
  y = tensor_arg(p, n, b);
  if (!x || !y) return n.op + " needs tensors '" + a + "' and '" + b + "'";
  if (x->dtype != y->dtype) return n.op + " needs operands of one dtype";
  if (!dtype_allowed(*find_op(n.op), x->dtype, p.target))
    return std::string("dtype ") + dtype_name(x->dtype) + " not supported by " + n.op;
  return "";
}

std::string infer_pair_reduce(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType *x, *y;
  if (auto e = get_pair(p, n, "x1", "x2", x, y); !e.empty()) return e;
  if (*x != *y) return n.op + " needs x1 and x2 of one shape";
  Shape shape = x->shape;
  if (n.op == "cosine_similarity") {
    int64_t dim = int_arg(n, "dim", 1);
    if (!wrap_dim(dim, x->rank()) || x->rank() == 0) return "dim out of range for " + type_str(*x);
    shape.erase(shape.begin() + dim);
  } else {  // pairwise_distance: the norm over the last dim
    if (x->rank() < 2) return "pairwise_distance needs inputs of rank 2 or more here";
    if (bool_arg(n, "keepdim", false)) shape.back() = 1;
    else shape.pop_back();
  }
  out = {{x->dtype, shape}};
  return "";
}

std::string infer_cdist(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType *x, *y;
  if (auto e = get_pair(p, n, "x1", "x2", x, y); !e.empty()) return e;
  int r = x->rank();
  if (r < 2 || y->rank() != r) return "cdist needs x1 and x2 of one rank, 2 or more";
  if (!std::equal(x->shape.begin(), x->shape.end() - 2, y->shape.begin()) || x->shape.back() != y->shape.back())
    return "cdist needs [B.., P, M] and [B.., R, M]";
  if (float_arg(n, "p", 2.0) < 0) return "cdist needs p >= 0";
  Shape shape(x->shape.begin(), x->shape.end() - 1);
  shape.push_back(y->shape[r - 2]);
  out = {{x->dtype, shape}};
  return "";
}

std::string infer_dist(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType *x, *y;
  if (auto e = get_pair(p, n, "self", "other", x, y); !e.empty()) return e;
  Shape shape;
  if (!broadcast(x->shape, y->shape, shape)) return "shapes do not broadcast";
  out = {{x->dtype, {}}};
  return "";
}

std::string infer_outer(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType *x, *y;
  if (auto e = get_pair(p, n, "self", "vec2", x, y); !e.empty()) return e;
  if (x->rank() != 1 || y->rank() != 1) return "outer needs two 1-d tensors";
  out = {{x->dtype, {x->shape[0], y->shape[0]}}};
  return "";
}

std::string infer_trace(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  if (self->rank() != 2) return "trace needs a matrix";
  out = {{self->dtype, {}}};
  return "";
}

// A first operand of rank in [lo, hi], visible or fresh.
std::optional<int> first_of_rank(GenContext& g, const OpSpec& s, int lo, int hi) {
  auto v = g.first([&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && t.rank() >= lo && t.rank() <= hi;
  });
  if (v || g.focus()) return v;
  return g.new_input({g.random_float_dtype(s.half_ok), g.random_shape(lo, hi)});
}

int same_as(GenContext& g, const TensorType& want) {
  return g.pick_or_input([&](const TensorType& t) { return t == want; }, want);
}

bool gen_distance(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  const bool cdist = s.name == "cdist", dist = s.name == "dist";
  auto v = first_of_rank(g, s, s.name == "cosine_similarity" || dist ? 1 : 2, 4);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  TensorType want = x;
  if (cdist) want.shape[x.rank() - 2] = c.range(1, g.policy().max_dim);  // R rows against x1's P
  if (dist) want = broadcastable_type(g, x.shape, x.dtype);
  int y = same_as(g, want);
  n.args = {{dist ? "self" : "x1", ValueRef{*v}}, {dist ? "other" : "x2", ValueRef{y}}};
  if (s.name == "cosine_similarity") n.args.push_back({"dim", random_dim_index(g, x.rank())});
  if (cdist || dist || s.name == "pairwise_distance") {
    if (c.coin(0.6)) n.args.push_back({"p", c.pick(std::vector<double>{1.0, 2.0, 3.0})});
  }
  if (s.name == "pairwise_distance" && c.coin(0.3)) n.args.push_back({"keepdim", true});
  if ((s.name == "cosine_similarity" || s.name == "pairwise_distance") && c.coin(0.2))
    n.args.push_back({"eps", c.pick(std::vector<double>{1e-4, 1e-3})});
  return true;
}

bool gen_outer(GenContext& g, const OpSpec& s, Node& n) {
  auto v = first_of_rank(g, s, 1, 1);
  if (!v) return false;
  TensorType want{g.program().type(*v).dtype, {g.random_dim()}};
  n.args = {{"self", ValueRef{*v}}, {"vec2", ValueRef{same_as(g, want)}}};
  return true;
}

bool gen_trace(GenContext& g, const OpSpec& s, Node& n) {
  auto v = first_of_rank(g, s, 2, 2);
  if (!v) return false;
  n.args = {{"self", ValueRef{*v}}};
  return true;
}

// 1.13's CPU norms and products lack f16.
OpSpec distance(const std::string& name, const std::string& python, std::vector<ParamSpec> params, InferFn infer,
                GenFn gen) {
  return float_op(name, "linalg", python, std::move(params), infer, gen);
}
}  // namespace

void register_ops_distance(std::vector<OpSpec>& ops) {
  using K = ParamKind;
  const std::string F = "torch.nn.functional.";
  ops.push_back(distance("cosine_similarity", F + "cosine_similarity",
                         {T("x1"), T("x2"), A("dim", K::int_), A("eps", K::float_)}, infer_pair_reduce, gen_distance));
  // The three distances' backward formulas read the result (a norm, divided by).
  OpSpec pairwise = distance("pairwise_distance", F + "pairwise_distance",
                             {T("x1"), T("x2"), A("p", K::float_), A("eps", K::float_), A("keepdim", K::bool_)},
                             infer_pair_reduce, gen_distance);
  pairwise.saves_output = true;
  ops.push_back(pairwise);
  OpSpec cdist = distance("cdist", "torch.cdist", {T("x1"), T("x2"), A("p", K::float_)}, infer_cdist, gen_distance);
  cdist.saves_output = true;
  cdist.half_in_torch2 = false;  // no CPU f16/bf16 kernel in 2.x either
  ops.push_back(cdist);
  OpSpec dist = distance("dist", "torch.dist", {T("self"), T("other"), A("p", K::number)}, infer_dist, gen_distance);
  dist.saves_output = true;
  ops.push_back(dist);
  ops.push_back(distance("outer", "torch.outer", {T("self"), T("vec2")}, infer_outer, gen_outer));
  ops.push_back(distance("trace", "torch.trace", {T("self")}, infer_trace, gen_trace));
}

}  // namespace dlfuzz
