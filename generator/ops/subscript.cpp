// Python's subscript with tensors: `x[i, j]` (advanced indexing, aten::index)
// and `x[i, j] = v` (aten::index_put_), the getitem / setitem paths Dynamo
// traces (OpSpec::subscript). Indices index the leading dims and are either
// i64 tensors in range (fresh inputs, or the columns of a nonzero: a length
// the data decides) or one counted bool mask (x[mask] is [count, rest...]).
// An assignment's values broadcast over the indexed rows (their shape is a
// suffix of the remaining dims), so duplicate indices all write the same
// value and every backend agrees on the result.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// The shape `self[indices]` has, or an error. A bool mask needs the node's count.
std::string indexed_shape(const Program& p, const Node& n, const TensorType& self, bool need_count, Shape& out,
                          Shape& rest) {
  const Arg* a = n.arg("indices");
  auto* list = a ? std::get_if<ValueList>(&a->value) : nullptr;
  if (!list || list->ids.empty()) return "indices must be a non-empty tensor list";
  const TensorType& first = p.type(list->ids[0]);
  if (is_bool(first.dtype)) {
    if (list->ids.size() != 1) return "a bool mask indexes alone";
    if (first.rank() < 1 || first.rank() > self.rank() ||
        !std::equal(first.shape.begin(), first.shape.end(), self.shape.begin()))
      return "mask " + type_str(first) + " does not match the leading dims of " + type_str(self);
    rest.assign(self.shape.begin() + first.rank(), self.shape.end());
    int64_t count = 0;
    if (need_count) {
      if (!get_int(n, "count", count)) return "indexing with a mask needs its data-dependent size as count=N";
      if (count < 0 || count > first.numel()) return "count out of range for the mask's size";
    }
    out = {count};
    out.insert(out.end(), rest.begin(), rest.end());
    return "";
  }
  if (static_cast<int>(list->ids.size()) > self.rank()) return "too many indices for " + type_str(self);
  Shape shape = first.shape;
  for (int id : list->ids) {
    if (p.type(id).dtype != DType::i64) return "indices must be i64 tensors or one bool mask";
    Shape joint;
    if (!broadcast(shape, p.type(id).shape, joint)) return "indices do not broadcast together";
    shape = joint;
  }
  rest.assign(self.shape.begin() + list->ids.size(), self.shape.end());
  out = shape;
  out.insert(out.end(), rest.begin(), rest.end());
  return "";
}

std::string infer_index(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  Shape shape, rest;
  if (auto e = indexed_shape(p, n, *self, true, shape, rest); !e.empty()) return e;
  out = {{self->dtype, shape}};
  return "";
}

std::string infer_setitem(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  Shape shape, rest;
  if (auto e = indexed_shape(p, n, *self, false, shape, rest); !e.empty()) return e;
  const TensorType* values = tensor_arg(p, n, "values");
  if (!values || values->dtype != self->dtype) return "values must be a tensor of self's dtype";
  // Over a mask the indexed rows are as many as the data says: the values
  // must broadcast over them, whatever their number.
  Shape joint;
  if (values->rank() > static_cast<int>(rest.size()) || !broadcast(rest, values->shape, joint) || joint != rest)
    return "values " + type_str(*values) + " must broadcast over the indexed rows of " + type_str(*self);
  out = {*self};
  return "";
}

bool fits(const TensorType& t) {
  if (t.rank() < 1) return false;
  for (int64_t d : t.shape)
    if (d < 1) return false;
  return true;
}

// Indices for self's leading dims: fresh in-range i64 tensors, one counted
// mask, or the columns of nonzero(mask). Sets `count` for a mask.
std::vector<int> make_indices(GenContext& g, const TensorType& self, std::optional<int64_t>& count) {
  Choices& c = g.choices();
  const int lead = static_cast<int>(c.range(1, std::min(self.rank(), 2)));
  const Shape lead_shape(self.shape.begin(), self.shape.begin() + lead);
  int mode = static_cast<int>(c.below(3));
  if (lead_shape.back() < 2) mode = 0;  // a mask of fewer than 2 a row: see counted_mask
  if (mode == 0) {
    Shape is = g.random_shape(1, 2);
    std::vector<int> ids;
    for (int d = 0; d < lead; ++d) ids.push_back(g.new_index_input(is, self.shape[d]));
    return ids;
  }
  int64_t k;
  int mask = counted_mask(g, lead_shape, k);
  if (mode == 1) {
    count = k;
    return {mask};
  }
  int nz = g.emit1("nonzero", {{"self", ValueRef{mask}}, {"count", k}});
  std::vector<int> ids;
  for (int d = 0; d < lead; ++d)
    ids.push_back(g.emit1("select", {{"self", ValueRef{nz}}, {"dim", int64_t(1)}, {"index", int64_t(d)}}));
  return ids;
}

bool gen_index(GenContext& g, const OpSpec& s, Node& n) {
  if (g.focus()) return false;  // its indices are built from fresh nodes
  auto v = g.pick([&](const TensorType& t) { return fits(t) && dtype_allowed(s, t.dtype, g.program().target); });
  if (!v) v = g.new_input({g.random_dtype(), g.random_shape(1, 3)});
  const TensorType self = g.program().type(*v);
  if (!fits(self) || !dtype_allowed(s, self.dtype, g.program().target)) return false;
  std::optional<int64_t> count;
  std::vector<int> ids = make_indices(g, self, count);
  n.args = {{"self", ValueRef{*v}}, {"indices", ValueList{ids}}};
  if (count) n.args.push_back({"count", *count});
  return true;
}

bool gen_setitem(GenContext& g, const OpSpec& s, Node& n) {
  if (g.focus()) return false;
  auto v = g.pick_mutable([&](const TensorType& t) { return fits(t) && dtype_allowed(s, t.dtype, g.program().target); });
  if (!v) return false;
  const TensorType self = g.program().type(*v);
  std::optional<int64_t> count;
  std::vector<int> ids = make_indices(g, self, count);
  const int lead = is_bool(g.program().type(ids[0]).dtype) ? g.program().type(ids[0]).rank() : int(ids.size());
  // Values: a suffix of the dims after the indexed ones, never self's memory.
  Shape rest(self.shape.begin() + lead, self.shape.end());
  rest.erase(rest.begin(), rest.begin() + g.choices().below(rest.size() + 1));
  TensorType vt{self.dtype, rest};
  int values = g.pick_or_input([&](const TensorType& t) { return t == vt; }, vt);
  if (g.may_alias(values, *v)) values = g.new_input(vt);
  n.args = {{"self", ValueRef{*v}}, {"indices", ValueList{ids}}, {"values", ValueRef{values}}};
  return true;
}

OpSpec subscript(const std::string& name, const std::string& aten, std::vector<ParamSpec> params, InferFn infer,
                 GenFn gen) {
  OpSpec s;
  s.name = name;
  s.family = "subscript";
  s.aten = aten;
  s.params = std::move(params);
  s.infer = infer;
  s.generate = gen;
  s.bool_ok = true;
  s.subscript = true;
  return s;
}
}  // namespace

void register_ops_subscript(std::vector<OpSpec>& ops) {
  ParamSpec indices{"indices", ParamKind::tensor_list, false, true};
  indices.grad = false;
  ParamSpec count = A("count", ParamKind::int_, true);
  count.in_aten = false;
  ops.push_back(subscript("index", "aten::index", {T("self"), indices, count}, infer_index, gen_index));
  OpSpec setitem = subscript("setitem", "aten::index_put_", {T("self"), indices, T("values")}, infer_setitem,
                             gen_setitem);
  setitem.inplace = true;
  ops.push_back(setitem);
}

}  // namespace dlfuzz
