// A tensor written into a slice of another, out of place: select_scatter,
// slice_scatter, diagonal_scatter. They are what functionalization (AOTAutograd)
// turns an in-place write through a view into, and Inductor lowers each; here
// they are also written by hand. src has exactly the slice's shape and self's
// dtype; both get a gradient.
#include <algorithm>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// The shape of the slice the op writes, as the matching view op would give.
std::string slice_shape(const Node& n, const TensorType& self, Shape& shape) {
  shape = self.shape;
  const int rank = self.rank();
  if (n.op == "diagonal_scatter") {
    if (rank < 2) return "diagonal_scatter needs a tensor of rank 2 or more";
    int64_t d1 = int_arg(n, "dim1", 0), d2 = int_arg(n, "dim2", 1), offset = int_arg(n, "offset", 0);
    if (!wrap_dim(d1, rank) || !wrap_dim(d2, rank) || d1 == d2) return "dim1 and dim2 must be two dims";
    int64_t len = offset >= 0 ? std::min(self.shape[d1], self.shape[d2] - offset)
                              : std::min(self.shape[d1] + offset, self.shape[d2]);
    shape.erase(shape.begin() + std::max(d1, d2));
    shape.erase(shape.begin() + std::min(d1, d2));
    shape.push_back(std::max<int64_t>(0, len));
    return "";
  }
  int64_t dim = int_arg(n, "dim", 0);
  if (rank == 0 || !wrap_dim(dim, rank)) return "dim out of range";
  const int64_t size = self.shape[dim];
  if (n.op == "select_scatter") {
    int64_t index;
    if (!get_int(n, "index", index) || index < -size || index >= size) return "index out of range";
    shape.erase(shape.begin() + dim);
    return "";
  }
  // slice_scatter: start, end clamped into [0, size] as slicing does.
  int64_t step = int_arg(n, "step", 1);
  if (step < 1) return "slice step must be positive";
  auto clamp_index = [&](const char* name, int64_t dflt) {
    int64_t v = int_arg(n, name, dflt);
    if (v < 0) v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  int64_t start = clamp_index("start", 0), end = std::max(start, clamp_index("end", size));
  shape[dim] = (end - start + step - 1) / step;
  return "";
}

std::string infer_slice_scatter(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  Shape shape;
  if (auto e = slice_shape(n, *self, shape); !e.empty()) return e;
  const TensorType* src = tensor_arg(p, n, "src");
  if (!src || src->dtype != self->dtype || src->shape != shape)
    return "src must be " + type_str({self->dtype, shape});
  out = {*self};
  return "";
}

bool gen_slice_scatter(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  const int min_rank = s.name == "diagonal_scatter" ? 2 : 1;
  auto v = operand(g, s, min_rank);
  if (!v) return false;
  const TensorType t = g.program().type(*v);
  n.args = {{"self", ValueRef{*v}}};
  const int rank = t.rank();
  int64_t dim = static_cast<int64_t>(c.below(rank));
  const int64_t size = t.shape[dim];
  if (s.name == "select_scatter") {
    if (size == 0) return false;
    int64_t index = c.range(0, size - 1);
    n.args.push_back({"dim", c.coin(0.2) ? dim - rank : dim});
    n.args.push_back({"index", c.coin(0.2) ? index - size : index});
  } else if (s.name == "slice_scatter") {
    if (c.coin(0.8)) n.args.push_back({"dim", c.coin(0.2) ? dim - rank : dim});
    else dim = 0;
    const int64_t sz = t.shape[dim];
    if (c.coin(0.6)) n.args.push_back({"start", c.range(-sz, sz)});
    if (c.coin(0.6)) n.args.push_back({"end", c.range(-sz, sz + 1)});
    if (c.coin(0.4)) n.args.push_back({"step", c.range(1, 3)});
  } else {
    int64_t d1 = dim, d2 = (dim + 1 + c.below(rank - 1)) % rank;
    if (c.coin(0.5)) n.args.push_back({"offset", c.range(-t.shape[d1], t.shape[d2])});
    if (c.coin(0.5) || d1 != 0 || d2 != 1) {
      n.args.push_back({"dim1", d1});
      n.args.push_back({"dim2", d2});
    }
  }
  Shape shape;
  if (!slice_shape(n, t, shape).empty()) return false;
  TensorType want{t.dtype, shape};
  if (want.numel() == 0 && t.numel() > 0) return false;  // an empty slice writes nothing
  int src = g.pick_or_input([&](const TensorType& x) { return x == want; }, want);
  n.args.insert(n.args.begin() + 1, {"src", ValueRef{src}});
  return true;
}

OpSpec slice_scatter(const std::string& name, std::vector<ParamSpec> rest) {
  OpSpec s;
  s.name = name;
  s.family = "index";
  s.aten = "aten::" + name;
  s.params = {T("self"), T("src")};
  s.params.insert(s.params.end(), rest.begin(), rest.end());
  s.infer = infer_slice_scatter;
  s.generate = gen_slice_scatter;
  s.bool_ok = true;
  s.python = "torch." + name;
  return s;
}
}  // namespace

void register_ops_slice_scatter(std::vector<OpSpec>& ops) {
  using K = ParamKind;
  ops.push_back(slice_scatter("select_scatter", {A("dim", K::int_), A("index", K::int_)}));
  ops.push_back(slice_scatter("slice_scatter",
                              {A("dim", K::int_), A("start", K::int_, true), A("end", K::int_, true), A("step", K::int_)}));
  ops.push_back(slice_scatter("diagonal_scatter", {A("offset", K::int_), A("dim1", K::int_), A("dim2", K::int_)}));
}

}  // namespace dlfuzz
