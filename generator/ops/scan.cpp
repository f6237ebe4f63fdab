// Ops that order or scan along a dim and return (values, indices): sort, topk,
// cummax, cummin. The node keeps the values only (OpSpec::tuple_result): the
// indices of tied elements are not defined (topk, cummax) or differ only in
// which of equal elements comes first, and the values are what a later op
// reads. NaN sorts as the largest value, as ATen's kernels do.
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
  out = {{self->dtype, shape}};
  return "";
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
}

}  // namespace dlfuzz
