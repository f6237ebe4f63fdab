// Indexing and scatter: index_select, gather, take_along_dim, scatter (a value, or a src with
// indices distinct along dim), scatter_add, scatter_reduce, index_add,
// index_copy, index_fill, masked_fill, index_put, and the in-place forms.
// Index tensors are i64 and always in range: fresh inputs whose values lie in
// [0, size) (GenContext::new_index_input), or computed in the program where
// the op needs distinct indices (a write of different values to one place has
// no defined winner: eager and compiled may both be right). Duplicates are
// kept where they are defined: accumulation, and writes of one value.
#include <cmath>
#include <numeric>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
ParamSpec P(const std::string& name, ParamKind k) { return {name, k, false, true}; }
ParamSpec index_param(const std::string& name) {
  ParamSpec p = T(name);
  p.grad = false;
  return p;
}

bool dim_list_op(const std::string& b) {
  return b == "index_select" || b == "index_add" || b == "index_copy" || b == "index_fill";
}
bool scatter_like(const std::string& b) { return b == "scatter" || b == "scatter_add" || b == "scatter_reduce"; }

std::string check_index(const TensorType* idx, const char* what) {
  if (!idx) return std::string("missing index tensor '") + what + "'";
  if (idx->dtype != DType::i64) return std::string(what) + " must be i64, not " + type_str(*idx);
  return "";
}

// A number written into a tensor of dtype t: a float only into a float tensor.
std::string check_value(const Node& n, DType t) {
  const Arg* v = n.arg("value");
  if (!v) return "missing argument 'value'";
  ScalarKind k = scalar_kind(v->value);
  if (k == ScalarKind::none) return "'value' must be a number";
  if (k == ScalarKind::floating && !is_float(t)) return "a float value can't be written into an integer tensor";
  return "";
}

std::string infer_indexed(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const std::string b = out_of_place_name(n.op);
  out = {*self};
  if (b == "masked_fill") {
    const TensorType* mask = tensor_arg(p, n, "mask");
    if (!mask || mask->dtype != DType::b8) return "mask must be a bool tensor";
    Shape shape;
    if (!broadcast(self->shape, mask->shape, shape) || shape != self->shape)
      return "mask " + type_str(*mask) + " does not broadcast to " + type_str(*self);
    return check_value(n, self->dtype);
  }
  if (b == "index_put") {
    const Arg* ind = n.arg("indices");
    auto* list = ind ? std::get_if<ValueList>(&ind->value) : nullptr;
    if (!list || list->ids.empty()) return "indices must be a non-empty tensor list";
    if (static_cast<int>(list->ids.size()) > self->rank()) return "too many indices for " + type_str(*self);
    Shape shape = p.type(list->ids[0]).shape;
    for (int id : list->ids) {
      if (auto e = check_index(&p.type(id), "indices"); !e.empty()) return e;
      if (!broadcast(shape, p.type(id).shape, shape)) return "indices do not broadcast together";
    }
    shape.insert(shape.end(), self->shape.begin() + list->ids.size(), self->shape.end());
    const TensorType* values = tensor_arg(p, n, "values");
    if (!values || values->dtype != self->dtype) return "values must be a tensor of self's dtype";
    Shape joint;
    if (!broadcast(shape, values->shape, joint) || joint != shape)
      return "values " + type_str(*values) + " do not broadcast to the indexed shape";
    return "";
  }
  int64_t dim;
  if (!get_int(n, "dim", dim) || !wrap_dim(dim, self->rank())) return "dim missing or out of range";
  const TensorType* idx = tensor_arg(p, n, "index");
  if (auto e = check_index(idx, "index"); !e.empty()) return e;
  if (dim_list_op(b)) {
    if (idx->rank() > 1) return "index must be 0-d or 1-d";
    Shape shape = self->shape;
    if (!shape.empty()) shape[dim] = idx->numel();
    if (b == "index_select") {
      out = {{self->dtype, shape}};
      return "";
    }
    if (b == "index_fill") return check_value(n, self->dtype);
    const TensorType* source = tensor_arg(p, n, "source");
    if (!source || source->dtype != self->dtype || source->shape != shape)
      return "source must be " + type_str({self->dtype, shape});
    return "";
  }
  // gather and the scatters: index has self's rank and fits inside it off dim.
  if (idx->rank() != self->rank()) return "index must have self's rank";
  for (int d = 0; d < self->rank(); ++d)
    if (d != dim && idx->shape[d] > self->shape[d]) return "index is larger than self off dim";
  if (b == "gather") {
    out = {{self->dtype, idx->shape}};
    return "";
  }
  if (!scatter_like(b)) return "no indexing rule for " + n.op;
  if (n.arg("value")) return check_value(n, self->dtype);
  const TensorType* src = tensor_arg(p, n, "src");
  if (!src || src->dtype != self->dtype || src->rank() != idx->rank()) return "src must be a tensor like self";
  for (int d = 0; d < src->rank(); ++d)
    if (idx->shape[d] > src->shape[d]) return "index is larger than src";
  if (b == "scatter_reduce") {
    std::string r = str_arg(n, "reduce", "");
    if (r != "sum" && r != "prod" && r != "mean" && r != "amax" && r != "amin") return "unknown reduce '" + r + "'";
  }
  return "";
}

int64_t coprime_step(Choices& c, int64_t bound) {
  for (int tries = 0; tries < 8; ++tries) {
    int64_t m = c.pick(std::vector<int64_t>{1, 2, 3, 5, 7});
    if (std::gcd(m, bound) == 1) return m;
  }
  return 1;
}

// Indices distinct along dim (shape[dim] <= bound), computed in the program:
// (cumsum(ones, dim) * m + o) % bound with m coprime to bound.
int unique_index(GenContext& g, int like, const Shape& shape, int dim, int64_t bound) {
  Choices& c = g.choices();
  int ones = g.emit1("new_ones", {{"self", ValueRef{like}}, {"size", IntList(shape)}, {"dtype", DType::i64}});
  int r = g.emit1("cumsum", {{"self", ValueRef{ones}}, {"dim", int64_t(dim)}});
  int m = g.emit1("mul", {{"self", ValueRef{r}}, {"other", coprime_step(c, bound)}});
  int o = g.emit1("add", {{"self", ValueRef{m}}, {"other", c.range(0, bound - 1)}});
  return g.emit1("remainder", {{"self", ValueRef{o}}, {"other", bound}});
}

// A type that broadcasts to `shape` without adding dims.
TensorType broadcasts_to(GenContext& g, const Shape& shape, DType dtype) {
  TensorType t = broadcastable_type(g, shape, dtype);
  while (t.rank() > static_cast<int>(shape.size())) t.shape.erase(t.shape.begin());
  return t;
}

// An operand of type `want`; never one sharing memory with `self` (an
// in-place write reading its own memory is an error in ATen).
int tensor_like(GenContext& g, const TensorType& want, int self) {
  int v = g.pick_or_input([&](const TensorType& t) { return t == want; }, want);
  return g.may_alias(v, self) ? g.new_input(want) : v;
}

bool gen_indexed(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  const std::string b = out_of_place_name(s.name);
  auto fits = [&](const TensorType& t) {
    if (!dtype_allowed(s, t.dtype, g.program().target) || t.rank() < 1) return false;
    for (int64_t d : t.shape)
      if (d < 1) return false;
    return true;
  };
  std::optional<int> self = s.inplace ? g.pick_mutable(fits) : g.first(fits);
  if (!self && !s.inplace && !g.focus()) {
    DType t = s.float_only ? g.random_float_dtype(s.half_ok) : g.random_dtype();
    if (dtype_allowed(s, t, g.program().target)) self = g.new_input({t, g.random_shape(1, 3)});
  }
  if (!self || !fits(g.program().type(*self))) return false;
  const TensorType st = g.program().type(*self);
  const int rank = st.rank();
  const int dim = static_cast<int>(c.below(rank));
  const int64_t size = st.shape[dim];
  const int64_t max_dim = g.policy().max_dim;
  n.args = {{"self", ValueRef{*self}}};
  auto number = [&] {
    if (is_bool(st.dtype)) return ArgValue(int64_t(c.below(2)));  // TorchScript: no bool Scalar
    // Masks fill with -inf (attention) as often as the value policy lets them.
    if (is_float(st.dtype) && g.policy().p_special_values > 0 && c.coin(0.3))
      return ArgValue(c.pick(std::vector<double>{-INFINITY, INFINITY, 0.0}));
    ArgValue v = random_number(g, st.dtype, -3, 3);
    if (!is_float(st.dtype) && std::holds_alternative<double>(v)) v = int64_t(1);
    return v;
  };
  if (b == "masked_fill") {
    TensorType mt = broadcasts_to(g, st.shape, DType::b8);
    int mask = c.coin(0.5) && !is_bool(st.dtype)
                   ? g.emit1("gt", {{"self", ValueRef{*self}}, {"other", random_number(g, st.dtype, -1, 1)}})
                   : g.new_input(mt);
    n.args.push_back({"mask", ValueRef{mask}});
    n.args.push_back({"value", number()});
    return true;
  }
  if (b == "index_put") {
    int m = static_cast<int>(c.range(1, std::min(rank, 2)));
    int64_t k = c.range(1, max_dim);
    bool accumulate = c.coin(0.5);
    std::vector<int> ids;
    for (int i = 0; i < m; ++i) ids.push_back(g.new_index_input({k}, st.shape[i]));
    Shape vs = {k};
    vs.insert(vs.end(), st.shape.begin() + m, st.shape.end());
    // Without accumulation, duplicate indices must all write the same value.
    TensorType vt = accumulate ? broadcasts_to(g, vs, st.dtype) : TensorType{st.dtype, {}};
    n.args.push_back({"indices", ValueList{ids}});
    n.args.push_back({"values", ValueRef{tensor_like(g, vt, *self)}});
    if (accumulate || c.coin(0.3)) n.args.push_back({"accumulate", accumulate});
    return true;
  }
  n.args.push_back({"dim", c.coin(0.2) ? int64_t(dim - rank) : int64_t(dim)});
  if (dim_list_op(b)) {
    bool distinct = b == "index_copy";
    int64_t k = distinct ? c.range(1, size) : c.range(1, max_dim);
    int index = distinct ? unique_index(g, *self, {k}, 0, size) : g.new_index_input({k}, size);
    n.args.push_back({"index", ValueRef{index}});
    Shape src = st.shape;
    src[dim] = k;
    if (b == "index_fill") n.args.push_back({"value", number()});
    if (b == "index_add" || b == "index_copy")
      n.args.push_back({"source", ValueRef{tensor_like(g, {st.dtype, src}, *self)}});
    if (b == "index_add" && c.coin(0.3))
      n.args.push_back({"alpha", is_float(st.dtype) ? ArgValue(c.uniform(-2, 2)) : ArgValue(int64_t(c.range(-2, 2)))});
    return true;
  }
  // gather / scatter*: an index of self's rank, no larger than self off dim.
  bool distinct = b == "scatter" && c.coin(0.5);  // scatter of a src: distinct along dim
  Shape is(rank);
  for (int d = 0; d < rank; ++d)
    is[d] = d == dim ? (distinct ? c.range(1, size) : c.range(1, max_dim)) : c.range(1, st.shape[d]);
  int index = distinct ? unique_index(g, *self, is, dim, size) : g.new_index_input(is, size);
  n.args.push_back({"index", ValueRef{index}});
  if (b == "gather") return true;
  if (b == "scatter" && !distinct) {
    n.args.push_back({"value", number()});
    return true;
  }
  n.args.push_back({"src", ValueRef{tensor_like(g, {st.dtype, is}, *self)}});
  if (b == "scatter_reduce") {
    n.args.push_back({"reduce", c.pick(std::vector<std::string>{"sum", "prod", "mean", "amax", "amin"})});
    if (c.coin(0.5)) n.args.push_back({"include_self", c.coin(0.5)});
  }
  return true;
}

// take_along_dim(self, indices, dim): gather with self and indices broadcast
// against each other off dim.
std::string infer_take_along_dim(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const TensorType* idx = tensor_arg(p, n, "indices");
  if (auto e = check_index(idx, "indices"); !e.empty()) return e;
  int64_t dim;
  if (!get_int(n, "dim", dim) || !wrap_dim(dim, self->rank()) || self->rank() == 0) return "dim missing or out of range";
  if (idx->rank() != self->rank()) return "indices must have self's rank";
  Shape shape(self->rank());
  for (int d = 0; d < self->rank(); ++d) {
    int64_t a = self->shape[d], b = idx->shape[d];
    if (d == dim) shape[d] = b;
    else if (a == b || a == 1 || b == 1) shape[d] = a == 1 ? b : a;
    else return "self and indices do not broadcast off dim";
  }
  out = {{self->dtype, shape}};
  return "";
}

bool gen_take_along_dim(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  auto v = g.first([&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && t.rank() >= 1 && t.numel() > 0;
  });
  if (!v && g.focus()) return false;
  if (!v) v = g.new_input({g.random_float_dtype(true), g.random_shape(1, 3)});
  const TensorType t = g.program().type(*v);
  if (t.numel() == 0 || t.rank() == 0) return false;
  const int dim = static_cast<int>(c.below(t.rank()));
  Shape is = t.shape;
  is[dim] = c.range(1, g.policy().max_dim);
  for (int d = 0; d < t.rank(); ++d)
    if (d != dim && c.coin(0.2)) is[d] = 1;  // broadcast over self
  n.args = {{"self", ValueRef{*v}}, {"indices", ValueRef{g.new_index_input(is, t.shape[dim])}},
            {"dim", c.coin(0.2) ? int64_t(dim - t.rank()) : int64_t(dim)}};
  return true;
}

OpSpec indexed(const std::string& name, std::vector<ParamSpec> rest) {
  OpSpec s;
  s.name = name;
  s.family = "index";
  s.aten = "aten::" + name;
  s.params = {T("self")};
  s.params.insert(s.params.end(), rest.begin(), rest.end());
  s.infer = infer_indexed;
  s.generate = gen_indexed;
  s.python = "torch." + name;
  return s;
}

OpSpec inplace_form(OpSpec s) {
  s.name += "_";
  s.aten += "_";
  s.python = "." + s.name;
  s.inplace = true;
  return s;
}
}  // namespace

void register_ops_index(std::vector<OpSpec>& ops) {
  const ParamSpec dim = P("dim", ParamKind::int_), index = index_param("index");
  const ParamSpec value = P("value", ParamKind::number);
  ops.push_back(indexed("index_select", {dim, index}));
  ops.push_back(indexed("gather", {dim, index}));
  OpSpec take_along_dim = indexed("take_along_dim", {index_param("indices"), dim});
  take_along_dim.infer = infer_take_along_dim;
  take_along_dim.generate = gen_take_along_dim;
  take_along_dim.bool_ok = true;
  ops.push_back(take_along_dim);
  // scatter's two overloads: a src tensor (positional) or a named number `value`.
  OpSpec scatter = indexed("scatter", {dim, index, T("src"), A("value", ParamKind::number)});
  ops.push_back(scatter);
  OpSpec scatter_add = indexed("scatter_add", {dim, index, T("src")});
  ops.push_back(scatter_add);
  OpSpec scatter_reduce = indexed(
      "scatter_reduce", {dim, index, T("src"), P("reduce", ParamKind::str), A("include_self", ParamKind::bool_)});
  scatter_reduce.float_only = true;
  scatter_reduce.saves_output = true;  // amax, amin and prod read their result in backward
  ops.push_back(scatter_reduce);
  OpSpec index_add = indexed("index_add", {dim, index, T("source"), A("alpha", ParamKind::number)});
  ops.push_back(index_add);
  OpSpec index_copy = indexed("index_copy", {dim, index, T("source")});
  ops.push_back(index_copy);
  OpSpec index_fill = indexed("index_fill", {dim, index, value});
  ops.push_back(index_fill);
  OpSpec masked_fill = indexed("masked_fill", {index_param("mask"), value});
  masked_fill.bool_ok = true;
  ops.push_back(masked_fill);
  ParamSpec indices{"indices", ParamKind::tensor_list, false, true};
  indices.grad = false;
  OpSpec index_put = indexed("index_put", {indices, T("values"), A("accumulate", ParamKind::bool_)});
  ops.push_back(index_put);
  for (const OpSpec* s : {&scatter, &scatter_add, &index_add, &index_copy, &index_fill, &masked_fill, &index_put})
    ops.push_back(inplace_form(*s));
}

}  // namespace dlfuzz
