// Ops that order or scan along a dim and return (values, indices): sort, topk,
// cummax, cummin, and the selections kthvalue, median, nanmedian and mode.
// The node keeps the values only (OpSpec::tuple_result): the indices of tied
// elements are not defined (topk, cummax) or differ only in which of equal
// elements comes first, and the values are what a later op reads. NaN sorts
// as the largest value, as ATen's kernels do. Also searchsorted and bucketize:
// where values fall among sorted boundaries (an index: they read bits).
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
std::string infer_scan(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t dim = int_arg(n, "dim", -1);
  if (!wrap_dim(dim, self->rank())) return "dim out of range";
  Shape shape = self->shape;
  if (n.op == "topk") {
    int64_t k;
    if (!get_int(n, "k", k)) return "topk needs an int k";
    int64_t size = self->rank() == 0 ? 1 : self->shape[dim];
    if (k < 0 || k > size) return "k out of range for the dim's size";
    if (self->rank() > 0) shape[dim] = k;
    if (const Arg* s = n.arg("sorted"); s && !(s->value == ArgValue(true)))
      return "unsorted topk has no defined order to compare";
  }
  if ((n.op == "cummax" || n.op == "cummin") && !n.arg("dim")) return n.op + " needs a dim";
  if (n.op == "kthvalue" || n.op == "median" || n.op == "nanmedian" || n.op == "mode") {
    if (n.op != "kthvalue" && n.op != "mode" && !n.arg("dim")) return n.op + " of a dim needs the dim";
    int64_t size = self->rank() == 0 ? 1 : self->shape[dim];
    if (size < 1) return n.op + " of an empty dim";
    int64_t k;
    if (n.op == "kthvalue" && (!get_int(n, "k", k) || k < 1 || k > size)) return "k out of range for the dim's size";
    if (self->rank() > 0) {
      if (bool_arg(n, "keepdim", false)) shape[dim] = 1;
      else shape.erase(shape.begin() + dim);
    }
  }
  out = {{self->dtype, shape}};
  return "";
}

// searchsorted(sorted_sequence, self) and bucketize(self, boundaries): i64
// positions of self's values among 1-d boundaries (or, for searchsorted,
// boundaries with self's leading dims).
std::string infer_search(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const bool bucketize = n.op == "bucketize";
  const TensorType* self = tensor_arg(p, n, "self");
  const TensorType* bounds = tensor_arg(p, n, bucketize ? "boundaries" : "sorted_sequence");
  if (!self || !bounds) return n.op + " needs two tensors";
  if (self->dtype != bounds->dtype || !dtype_allowed(*find_op(n.op), self->dtype, p.target))
    return n.op + " needs values and boundaries of one supported dtype";
  if (bounds->rank() == 0 || bounds->shape.back() == 0) return n.op + " needs non-empty boundaries";
  if (bounds->rank() > 1) {
    if (bucketize) return "bucketize needs 1-d boundaries";
    if (self->rank() != bounds->rank() ||
        !std::equal(self->shape.begin(), self->shape.end() - 1, bounds->shape.begin()))
      return "sorted_sequence must be 1-d or match self's leading dims";
  }
  out = {{DType::i64, self->shape}};
  return "";
}

// Boundaries sorted in the program: the values of sort over the last dim.
bool gen_search(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  auto v = operand(g, s, 0);
  if (!v) return false;
  const TensorType t = g.program().type(*v);
  Shape shape{c.range(1, g.policy().max_dim)};
  if (s.name == "searchsorted" && t.rank() > 0 && c.coin(0.4)) {
    shape = t.shape;
    shape.back() = c.range(1, g.policy().max_dim);
  }
  int raw = g.pick_or_input([&](const TensorType& x) { return x == TensorType{t.dtype, shape}; }, {t.dtype, shape});
  int bounds = g.emit1("sort", {{"self", ValueRef{raw}}, {"dim", int64_t(-1)}});
  const bool bucketize = s.name == "bucketize";
  n.args = {{bucketize ? "self" : "sorted_sequence", ValueRef{bucketize ? *v : bounds}},
            {bucketize ? "boundaries" : "self", ValueRef{bucketize ? bounds : *v}}};
  if (c.coin(0.5)) n.args.push_back({"right", c.coin(0.5)});
  return true;
}

bool gen_scan(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  auto v = operand(g, s, 0);
  if (!v) return false;
  const TensorType t = g.program().type(*v);
  int64_t dim = random_dim_index(g, t.rank());
  n.args = {{"self", ValueRef{*v}}};
  if (s.name == "topk") {
    int64_t d = dim < 0 ? dim + std::max(1, t.rank()) : dim;
    int64_t size = t.rank() == 0 ? 1 : t.shape[d];
    n.args.push_back({"k", c.range(0, size)});
    n.args.push_back({"dim", dim});
    if (c.coin(0.4)) n.args.push_back({"largest", c.coin(0.5)});
    return true;
  }
  if (s.name == "kthvalue") {
    int64_t d = dim < 0 ? dim + std::max(1, t.rank()) : dim;
    n.args.push_back({"k", c.range(1, t.rank() == 0 ? 1 : t.shape[d])});
  }
  if (s.name == "kthvalue" || s.name == "median" || s.name == "nanmedian" || s.name == "mode") {
    if (t.rank() > 0 && t.shape[dim < 0 ? dim + t.rank() : dim] == 0) return false;
    n.args.push_back({"dim", dim});
    if (c.coin(0.4)) n.args.push_back({"keepdim", c.coin(0.5)});
    return true;
  }
  if (s.name == "sort") {
    if (c.coin(0.8)) n.args.push_back({"dim", dim});
    if (c.coin(0.4)) n.args.push_back({"descending", c.coin(0.5)});
    return true;
  }
  n.args.push_back({"dim", dim});
  return true;
}

OpSpec scan(const std::string& name, std::vector<ParamSpec> rest) {
  OpSpec s;
  s.name = name;
  s.family = "scan";
  s.aten = "aten::" + name;
  s.params = {T("self")};
  s.params.insert(s.params.end(), rest.begin(), rest.end());
  s.infer = infer_scan;
  s.generate = gen_scan;
  s.tuple_result = true;
  s.python = "torch." + name;
  return s;
}
}  // namespace

void register_ops_scan(std::vector<OpSpec>& ops) {
  ops.push_back(scan("sort", {A("dim", ParamKind::int_), A("descending", ParamKind::bool_)}));
  OpSpec topk = scan("topk", {{"k", ParamKind::int_, false, true},
                              A("dim", ParamKind::int_),
                              A("largest", ParamKind::bool_),
                              A("sorted", ParamKind::bool_)});
  topk.half_ok = false;  // no f16 kernel in LibTorch 1.13
  ops.push_back(topk);
  for (const char* name : {"cummax", "cummin"}) {
    OpSpec s = scan(name, {A("dim", ParamKind::int_)});
    s.half_ok = false;  // no f16 kernel in LibTorch 1.13
    ops.push_back(s);
  }
  const ParamSpec dim = A("dim", ParamKind::int_), keepdim = A("keepdim", ParamKind::bool_);
  OpSpec kthvalue = scan("kthvalue", {{"k", ParamKind::int_, false, true}, dim, keepdim});
  kthvalue.half_ok = false;
  ops.push_back(kthvalue);
  for (const char* name : {"median", "nanmedian", "mode"}) {
    OpSpec s = scan(name, {dim, keepdim});
    s.half_ok = false;
    // The most frequent value: which values are equal is a question of bits.
    s.reads_bits = s.name == "mode";
    ops.push_back(s);
  }
  for (const char* name : {"searchsorted", "bucketize"}) {
    OpSpec s = scan(name, {});
    s.params = std::string(name) == "bucketize"
                   ? std::vector<ParamSpec>{T("self"), T("boundaries"), A("right", ParamKind::bool_)}
                   : std::vector<ParamSpec>{T("sorted_sequence"), T("self"), A("right", ParamKind::bool_)};
    s.infer = infer_search;
    s.generate = gen_search;
    s.tuple_result = false;
    s.differentiable = false;
    s.reads_bits = true;  // a value equal to a boundary, or an ulp off it, falls on either side
    s.half_ok = false;
    ops.push_back(s);
  }
}

}  // namespace dlfuzz
