// Ops whose output size depends on the values: nonzero and masked_select (and
// x[mask] in subscript.cpp), and argsort, which makes their masks. The IR's
// types are static, so each data-dependent op carries its size as an
// annotation, `count` (ParamSpec::in_aten = false: never passed to PyTorch),
// which the generator makes true by building the mask itself: a counted mask
// holds exactly k trues in every row of its last dim, at the positions a
// stable argsort of the program's data puts there (argsort(x, stable) < k).
// The compilers see a size they cannot know before running: an unbacked
// symbol under torch.compile (a graph break unless
// capture_dynamic_output_shape_ops is on), a dynamic shape in TorchScript.
#include <algorithm>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

int ops::counted_mask(GenContext& g, const Shape& shape, int64_t& count) {
  Choices& c = g.choices();
  const int64_t row = shape.empty() ? 1 : shape.back();
  // At least 2 trues a row where the row has them: torch.compile treats a
  // data-dependent size as neither 0 nor 1 (it broadcasts as itself), and a
  // runtime assert stops a program where it is (seen: lerp of a [n] and a
  // masked_select of one element). That is its documented rule, no bug.
  const int64_t k = c.range(std::min<int64_t>(2, row), row);
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) rows *= shape[d];
  count = k * rows;
  // The data that decides the positions: a value of the program when one has
  // the shape and the same bits on every backend (positions computed by the
  // program; a float computed by arithmetic differs in its last bits between
  // backends, and near-ties would then rank apart), else a fresh input.
  const OpSpec& argsort = *find_op("argsort");
  std::optional<int> x = g.pick([&](const TensorType& t) {
    return t.shape == shape && !is_bool(t.dtype) && dtype_allowed(argsort, t.dtype, g.program().target);
  });
  if (x && !g.is_exact(*x)) x.reset();
  if (!x) x = g.new_input({g.random_float_dtype(argsort.half_ok), shape});
  int perm = g.emit1("argsort", {{"self", ValueRef{*x}}, {"dim", int64_t(-1)}, {"stable", true}});
  return g.emit1("lt", {{"self", ValueRef{perm}}, {"other", k}});
}

namespace {
std::string infer_argsort(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t dim = int_arg(n, "dim", -1);
  if (!wrap_dim(dim, self->rank())) return "dim out of range";
  // Ties (equal values, -0.0 and 0.0) come in an order of the kernel's choosing
  // unless the sort is stable: then by index, on every backend alike.
  if (!bool_arg(n, "stable", false)) return "argsort must be stable (ties have no defined order otherwise)";
  out = {{DType::i64, self->shape}};
  return "";
}

// Indices are compared exactly: only of values with the same bits everywhere.
bool gen_argsort(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v || !g.is_exact(*v)) return false;
  n.args = {{"self", ValueRef{*v}}, {"dim", random_dim_index(g, g.program().type(*v).rank())}, {"stable", true}};
  if (g.choices().coin(0.4)) n.args.push_back({"descending", g.choices().coin(0.5)});
  return true;
}

// The annotated size: present, and no more than the mask can hold.
std::string check_count(const Node& n, int64_t most, int64_t& count) {
  if (!get_int(n, "count", count)) return n.op + " needs its data-dependent size as count=N";
  if (count < 0 || count > most) return "count out of range for the mask's size";
  return "";
}

std::string infer_nonzero(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  if (!is_bool(self->dtype)) return "nonzero takes a counted bool mask";
  int64_t count;
  if (auto e = check_count(n, self->numel(), count); !e.empty()) return e;
  out = {{DType::i64, {count, self->rank()}}};
  return "";
}

bool gen_nonzero(GenContext& g, const OpSpec&, Node& n) {
  if (g.focus()) return false;  // its mask is built from fresh nodes
  Shape shape = g.random_shape(1, 3);
  for (int64_t& d : shape) d = std::max<int64_t>(d, 1);
  shape.back() = std::max<int64_t>(shape.back(), 2);  // sizes of 0 and 1: see counted_mask
  int64_t count;
  int mask = counted_mask(g, shape, count);
  n.args = {{"self", ValueRef{mask}}, {"count", count}};
  return true;
}

std::string infer_masked_select(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const TensorType* mask = tensor_arg(p, n, "mask");
  if (!mask || !is_bool(mask->dtype) || mask->shape != self->shape) return "mask must be a bool tensor of self's shape";
  int64_t count;
  if (auto e = check_count(n, self->numel(), count); !e.empty()) return e;
  out = {{self->dtype, {count}}};
  return "";
}

bool gen_masked_select(GenContext& g, const OpSpec& s, Node& n) {
  if (g.focus()) return false;
  auto v = operand(g, s, 1);
  if (!v) return false;
  const Shape shape = g.program().type(*v).shape;
  if (shape.back() < 2 || std::count(shape.begin(), shape.end(), 0)) return false;  // see counted_mask
  int64_t count;
  int mask = counted_mask(g, shape, count);
  n.args = {{"self", ValueRef{*v}}, {"mask", ValueRef{mask}}, {"count", count}};
  return true;
}

ParamSpec count_param() {
  ParamSpec p = A("count", ParamKind::int_);
  p.in_aten = false;
  return p;
}

OpSpec dynamic(const std::string& name, std::vector<ParamSpec> params, InferFn infer, GenFn gen) {
  OpSpec s;
  s.name = name;
  s.family = "dynamic";
  s.aten = "aten::" + name;
  s.params = std::move(params);
  s.infer = infer;
  s.generate = gen;
  s.python = "torch." + name;
  return s;
}
}  // namespace

void register_ops_dynamic(std::vector<OpSpec>& ops) {
  OpSpec argsort = dynamic("argsort",
                           {T("self"), A("dim", ParamKind::int_), A("descending", ParamKind::bool_),
                            A("stable", ParamKind::bool_)},
                           infer_argsort, gen_argsort);
  argsort.family = "scan";
  argsort.differentiable = false;
  argsort.reads_bits = true;
  argsort.half_ok = false;  // 1.13's CPU sort
  ops.push_back(argsort);
  OpSpec nonzero = dynamic("nonzero", {T("self"), count_param()}, infer_nonzero, gen_nonzero);
  nonzero.bool_ok = true;
  nonzero.differentiable = false;
  ops.push_back(nonzero);
  OpSpec masked_select = dynamic("masked_select", {T("self"), {"mask", ParamKind::tensor, false, true, true, false},
                                                   count_param()},
                                 infer_masked_select, gen_masked_select);
  masked_select.bool_ok = true;
  ops.push_back(masked_select);
}

}  // namespace dlfuzz
