// Views: outputs that share storage with their first argument (view, permute,
// transpose, slice, select, narrow, squeeze, expand, diagonal, unbind, ...).
// Every dtype, bool included. In-place writes through these are the aliasing
// cases compilers get wrong; gen_context.cpp tracks their roots.
#include <algorithm>
#include <limits>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
std::string need_int(const Node& n, const std::string& name, int64_t& v) {
  return get_int(n, name, v) ? "" : "missing int argument '" + name + "'";
}

const TensorType& type_of(GenContext& g, int v) { return g.program().type(v); }

// True when `v` is certainly contiguous: a contiguous input, or the result of
// .contiguous() / clone(contiguous_format). Other results may carry permuted
// strides (TensorIterator keeps a transposed or channels_last input's layout),
// so view may only split dims of them, never merge.
bool known_contiguous(const Program& p, int v) {
  if (const InputDecl* in = p.input_of(v)) return in->layout == Layout::contiguous;
  for (const auto& n : p.body.nodes) {
    if (std::find(n.outputs.begin(), n.outputs.end(), v) == n.outputs.end()) continue;
    const Arg* mf = n.arg("memory_format");
    bool contiguous_format =
        mf && std::holds_alternative<MemFormat>(mf->value) && std::get<MemFormat>(mf->value) == MemFormat::contiguous;
    return (n.op == "contiguous" && (!mf || contiguous_format)) || (n.op == "clone" && contiguous_format);
  }
  return false;
}

// view(size): split dims into factors and add or drop size-1 dims, which any
// strides allow; merge dims (any regrouping) only for a known-contiguous source.
bool gen_view(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  IntList size;
  if (t.numel() > 0 && known_contiguous(g.program(), *v) && c.coin(0.6)) {
    // Deal numel's prime factors into 1..4 dims.
    int k = static_cast<int>(c.range(t.numel() == 1 ? 0 : 1, 4));
    size.assign(k, 1);
    int64_t rest = t.numel();
    for (int64_t f = 2; rest > 1 && k > 0; ++f)
      while (rest % f == 0) size[c.below(k)] *= f, rest /= f;
  } else {
    for (int64_t d : t.shape) {
      if (size.size() < 6 && c.coin(0.15)) size.push_back(1);
      if (d == 1 && c.coin(0.3)) continue;
      int64_t a = 0;
      for (int64_t f = 2; f * f <= d && !a; ++f)
        if (d % f == 0) a = f;
      if (a && size.size() < 5 && c.coin(0.5)) {
        size.push_back(a);
        size.push_back(d / a);
      } else {
        size.push_back(d);
      }
    }
  }
  // -1 is inferable only when the other dims' product is positive.
  if (t.numel() > 0 && !size.empty() && c.coin(0.3)) size[c.below(size.size())] = -1;
  n.args = {{"self", ValueRef{*v}}, {"size", size}};
  return true;
}

std::string infer_view(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const IntList* size = int_list_arg(n, "size");
  if (!size) return "missing int list 'size'";
  Shape shape;
  if (auto e = infer_size(self->numel(), *size, shape); !e.empty()) return e;
  out = {{self->dtype, shape}};
  return "";
}

bool gen_permute(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  int r = type_of(g, *v).rank();
  IntList dims(r);
  for (int i = 0; i < r; ++i) dims[i] = i;
  for (int i = r - 1; i > 0; --i) std::swap(dims[i], dims[g.choices().below(i + 1)]);
  for (auto& d : dims)
    if (g.choices().coin(0.2)) d -= r;
  n.args = {{"self", ValueRef{*v}}, {"dims", dims}};
  return true;
}

std::string infer_permute(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const IntList* dims = int_list_arg(n, "dims");
  if (!dims) return "missing int list 'dims'";
  if (static_cast<int>(dims->size()) != self->rank()) return "permute: number of dims doesn't match the rank";
  Shape shape;
  std::vector<bool> seen(self->rank(), false);
  for (int64_t d : *dims) {
    if (self->rank() == 0 || !wrap_dim(d, self->rank())) return "permute: dim out of range";
    if (seen[d]) return "permute: duplicate dims are not allowed";
    seen[d] = true;
    shape.push_back(self->shape[d]);
  }
  out = {{self->dtype, shape}};
  return "";
}

bool gen_transpose(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  int r = type_of(g, *v).rank();
  n.args = {{"self", ValueRef{*v}}, {"dim0", random_dim_index(g, r)}, {"dim1", random_dim_index(g, r)}};
  return true;
}

std::string infer_transpose(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t d0 = 0, d1 = 0;
  if (!get_int(n, "dim0", d0) || !get_int(n, "dim1", d1)) return "transpose needs ints dim0 and dim1";
  if (!wrap_dim(d0, self->rank()) || !wrap_dim(d1, self->rank())) return "transpose: dim out of range";
  out = {*self};
  if (self->rank() > 0) std::swap(out[0].shape[d0], out[0].shape[d1]);
  return "";
}

bool gen_t(GenContext& g, const OpSpec& s, Node& n) {
  auto v = g.first([&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target) && t.rank() <= 2; });
  if (!v) {
    if (g.focus()) return false;
    v = g.new_input({g.random_dtype(), g.random_shape(2, 2)});
    if (!dtype_allowed(s, type_of(g, *v).dtype, g.program().target)) return false;
  }
  n.args = {{"self", ValueRef{*v}}};
  return true;
}

std::string infer_t(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  if (self->rank() > 2) return "t() expects a tensor with <= 2 dimensions";
  out = {*self};
  if (self->rank() == 2) std::swap(out[0].shape[0], out[0].shape[1]);
  return "";
}

// slice(dim, start, end, step): start/end clamp into range; None is 0 / the end.
bool gen_slice(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 1);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  int64_t dim = random_dim_index(g, t.rank());
  int64_t size = t.shape[dim < 0 ? dim + t.rank() : dim];
  n.args = {{"self", ValueRef{*v}}, {"dim", dim}};
  n.args.push_back({"start", c.coin(0.15) ? ArgValue(None{}) : ArgValue(c.range(-size - 1, size))});
  n.args.push_back({"end", c.coin(0.15) ? ArgValue(None{}) : ArgValue(c.range(-size, size + 2))});
  n.args.push_back({"step", c.range(1, 3)});
  return true;
}

std::string infer_slice(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  if (self->rank() == 0) return "slice() cannot be applied to a 0-dim tensor";
  int64_t dim = int_arg(n, "dim", 0), step = int_arg(n, "step", 1);
  if (!wrap_dim(dim, self->rank())) return "slice: dim out of range";
  if (step < 1) return "slice step must be positive";
  int64_t size = self->shape[dim];
  auto bound = [&](const char* name, int64_t dflt, int64_t& v) -> bool {
    const Arg* a = n.arg(name);
    v = dflt;
    if (!a || std::holds_alternative<None>(a->value)) return true;
    if (!std::holds_alternative<int64_t>(a->value)) return false;
    v = std::get<int64_t>(a->value);
    return true;
  };
  int64_t start, end;
  if (!bound("start", 0, start) || !bound("end", std::numeric_limits<int64_t>::max(), end))
    return "slice: start and end must be ints or None";
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  out = {*self};
  out[0].shape[dim] = (end - start + step - 1) / step;
  return "";
}

bool gen_select(GenContext& g, const OpSpec& s, Node& n) {
  auto v = g.first([&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && t.rank() >= 1 && t.numel() > 0;
  });
  if (!v) {
    if (g.focus()) return false;
    DType dt = g.random_dtype();
    Shape sh = g.random_shape(1, 4);
    for (auto& d : sh) d = std::max<int64_t>(d, 1);
    v = g.new_input({dtype_allowed(s, dt, g.program().target) ? dt : DType::f32, sh});
  }
  const TensorType t = type_of(g, *v);
  int64_t dim = random_dim_index(g, t.rank());
  int64_t size = t.shape[dim < 0 ? dim + t.rank() : dim];
  n.args = {{"self", ValueRef{*v}}, {"dim", dim}, {"index", g.choices().range(-size, size - 1)}};
  return true;
}

std::string infer_select(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t dim = 0, index = 0;
  if (!get_int(n, "dim", dim) || !get_int(n, "index", index)) return "select needs ints dim and index";
  if (self->rank() == 0) return "select() cannot be applied to a 0-dim tensor";
  if (!wrap_dim(dim, self->rank())) return "select: dim out of range";
  int64_t size = self->shape[dim];
  if (index < -size || index >= size) return "select: index out of range";
  out = {*self};
  out[0].shape.erase(out[0].shape.begin() + dim);
  return "";
}

// narrow(dim, start, length): start may be negative (wraps) or equal the size.
// A negative start into a zero-size dim is accepted by 1.13 but not by 2.x.
bool gen_narrow(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 1);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  int64_t dim = random_dim_index(g, t.rank());
  int64_t size = t.shape[dim < 0 ? dim + t.rank() : dim];
  int64_t start = c.range(0, size);
  int64_t length = c.range(0, size - start);
  if (size > 0 && start < size && c.coin(0.2)) start -= size;  // the same position, negative
  n.args = {{"self", ValueRef{*v}}, {"dim", dim}, {"start", start}, {"length", length}};
  return true;
}

std::string infer_narrow(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t dim = 0, start = 0, length = 0;
  if (!get_int(n, "dim", dim) || !get_int(n, "start", start) || !get_int(n, "length", length))
    return "narrow needs ints dim, start and length";
  if (self->rank() == 0) return "narrow() cannot be applied to a 0-dim tensor";
  if (!wrap_dim(dim, self->rank())) return "narrow: dim out of range";
  int64_t size = self->shape[dim];
  if (start < -size || start > size || (size == 0 && start != 0)) return "narrow: start out of range";
  if (start < 0) start += size;
  if (length < 0 || start + length > size) return "narrow: start + length exceeds the dimension size";
  out = {*self};
  out[0].shape[dim] = length;
  return "";
}

bool gen_squeeze(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  // Prefer a size-1 dim so the op does something.
  int64_t dim = random_dim_index(g, t.rank());
  for (int i = 0; i < t.rank(); ++i)
    if (t.shape[i] == 1 && g.choices().coin(0.7)) dim = i;
  n.args = {{"self", ValueRef{*v}}, {"dim", dim}};
  return true;
}

std::string infer_squeeze(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t dim = 0;
  if (auto e = need_int(n, "dim", dim); !e.empty()) return e;
  if (!wrap_dim(dim, self->rank())) return "squeeze: dim out of range";
  out = {*self};
  if (self->rank() > 0 && self->shape[dim] == 1) out[0].shape.erase(out[0].shape.begin() + dim);
  return "";
}

bool gen_unsqueeze(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v || type_of(g, *v).rank() >= 6) return false;
  int r = type_of(g, *v).rank();
  n.args = {{"self", ValueRef{*v}}, {"dim", g.choices().range(-r - 1, r)}};
  return true;
}

std::string infer_unsqueeze(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t dim = 0;
  if (auto e = need_int(n, "dim", dim); !e.empty()) return e;
  if (!wrap_dim(dim, self->rank() + 1)) return "unsqueeze: dim out of range";
  out = {*self};
  out[0].shape.insert(out[0].shape.begin() + dim, 1);
  return "";
}

// expand(size): new leading dims (>= 0), size-1 dims grow, -1 keeps a dim.
bool gen_expand(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  IntList size;
  if (t.rank() < g.policy().max_rank && c.coin(0.4)) size.push_back(g.random_dim());
  for (int64_t d : t.shape) {
    if (d == 1 && c.coin(0.7)) size.push_back(g.random_dim());
    else size.push_back(c.coin(0.2) ? -1 : d);
  }
  n.args = {{"self", ValueRef{*v}}, {"size", size}};
  return true;
}

std::string infer_expand(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const IntList* size = int_list_arg(n, "size");
  if (!size) return "missing int list 'size'";
  if (static_cast<int>(size->size()) < self->rank()) return "expand: fewer sizes than dims";
  size_t lead = size->size() - self->rank();
  Shape shape;
  for (size_t i = 0; i < size->size(); ++i) {
    int64_t want = (*size)[i];
    if (i < lead) {
      if (want < 0) return "expand: -1 isn't allowed in a new leading dim";
      shape.push_back(want);
      continue;
    }
    int64_t have = self->shape[i - lead];
    if (want == -1) want = have;
    if (want < 0) return "expand: negative size";
    if (have != 1 && want != have) return "expand: a non-singleton dim must keep its size";
    shape.push_back(want);
  }
  out = {{self->dtype, shape}};
  return "";
}

bool gen_diagonal(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 2);
  if (!v) return false;
  int r = type_of(g, *v).rank();
  Choices& c = g.choices();
  int64_t d1 = c.below(r), d2 = (d1 + 1 + c.below(r - 1)) % r;
  n.args = {{"self", ValueRef{*v}}, {"offset", c.range(-2, 2)}, {"dim1", d1}, {"dim2", c.coin(0.2) ? d2 - r : d2}};
  return true;
}

std::string infer_diagonal(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t offset = int_arg(n, "offset", 0), d1 = int_arg(n, "dim1", 0), d2 = int_arg(n, "dim2", 1);
  if (self->rank() < 2 || !wrap_dim(d1, self->rank()) || !wrap_dim(d2, self->rank()))
    return "diagonal: dim out of range";
  if (d1 == d2) return "diagonal dimensions cannot be identical";
  int64_t s1 = self->shape[d1], s2 = self->shape[d2];
  int64_t len = offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2);
  Shape shape;
  for (int i = 0; i < self->rank(); ++i)
    if (i != d1 && i != d2) shape.push_back(self->shape[i]);
  shape.push_back(std::max<int64_t>(len, 0));
  out = {{self->dtype, shape}};
  return "";
}

// unbind(dim): one output per index. A zero-size dim would give a node with no
// outputs, which the IR can't hold, so it is rejected.
bool gen_unbind(GenContext& g, const OpSpec& s, Node& n) {
  auto v = g.first([&](const TensorType& t) {
    if (!dtype_allowed(s, t.dtype, g.program().target) || t.rank() == 0) return false;
    return std::any_of(t.shape.begin(), t.shape.end(), [](int64_t d) { return d >= 1 && d <= 6; });
  });
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  std::vector<int64_t> ok;
  for (int i = 0; i < t.rank(); ++i)
    if (t.shape[i] >= 1 && t.shape[i] <= 6) ok.push_back(i);
  int64_t dim = g.choices().pick(ok);
  n.args = {{"self", ValueRef{*v}}, {"dim", g.choices().coin(0.2) ? dim - t.rank() : dim}};
  return true;
}

std::string infer_unbind(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t dim = int_arg(n, "dim", 0);
  if (self->rank() == 0 || !wrap_dim(dim, self->rank())) return "unbind: dim out of range";
  if (self->shape[dim] == 0) return "unbind of a zero-size dim gives no outputs";
  TensorType piece = *self;
  piece.shape.erase(piece.shape.begin() + dim);
  out.assign(self->shape[dim], piece);
  return "";
}

bool gen_movedim(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 1);
  if (!v) return false;
  int r = type_of(g, *v).rank();
  n.args = {{"self", ValueRef{*v}}, {"source", random_dim_index(g, r)}, {"destination", random_dim_index(g, r)}};
  return true;
}

std::string infer_movedim(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t src = 0, dst = 0;
  if (!get_int(n, "source", src) || !get_int(n, "destination", dst)) return "movedim needs ints source and destination";
  if (!wrap_dim(src, self->rank()) || !wrap_dim(dst, self->rank())) return "movedim: dim out of range";
  out = {*self};
  if (self->rank() == 0) return "";
  Shape& sh = out[0].shape;
  int64_t d = sh[src];
  sh.erase(sh.begin() + src);
  sh.insert(sh.begin() + dst, d);
  return "";
}

// Tensor.unfold(dimension, size, step): windows of `size` along a dim, `step`
// apart, as a new last dim: a view whose windows may overlap.
bool gen_unfold(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 1);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  int64_t dim = random_dim_index(g, t.rank());
  int64_t extent = t.shape[dim < 0 ? dim + t.rank() : dim];
  if (extent < 1) return false;
  n.args = {{"self", ValueRef{*v}}, {"dimension", dim}, {"size", c.range(1, std::min<int64_t>(extent, 4))},
            {"step", c.range(1, 3)}};
  return true;
}

std::string infer_unfold(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t dim = 0, size = 0, step = 0;
  if (!get_int(n, "dimension", dim) || !get_int(n, "size", size) || !get_int(n, "step", step))
    return "unfold needs ints dimension, size and step";
  if (!wrap_dim(dim, self->rank())) return "unfold: dimension out of range";
  if (step <= 0) return "unfold: step must be positive";
  if (size < 0) return "unfold: size must be non-negative";
  Shape shape = self->shape;
  int64_t extent = self->rank() == 0 ? 1 : shape[dim];
  if (size > extent) return "unfold: size " + std::to_string(size) + " exceeds the dimension's " + std::to_string(extent);
  if (self->rank() > 0) shape[dim] = (extent - size) / step + 1;
  shape.push_back(size);
  out = {{self->dtype, shape}};
  return "";
}

OpSpec view_op(const std::string& name, const std::string& python, std::vector<ParamSpec> attrs, InferFn infer,
               GenFn gen) {
  OpSpec s;
  s.name = name;
  s.family = "view";
  s.aten = "aten::" + name;
  s.params = {T("self")};
  for (auto& a : attrs) s.params.push_back(a);
  s.infer = infer;
  s.generate = gen;
  s.view = true;
  s.bool_ok = true;
  s.python = python;
  return s;
}
}  // namespace

void register_ops_view(std::vector<OpSpec>& ops) {
  using K = ParamKind;
  ops.push_back(view_op("view", ".view", {A("size", K::int_list)}, infer_view, gen_view));
  ops.push_back(view_op("permute", "torch.permute", {A("dims", K::int_list)}, infer_permute, gen_permute));
  ops.push_back(view_op("transpose", "torch.transpose", {A("dim0", K::int_), A("dim1", K::int_)}, infer_transpose,
                        gen_transpose));
  ops.push_back(view_op("t", "torch.t", {}, infer_t, gen_t));
  // Python has no torch.slice; the ATen op through torch.ops works in eager
  // Python and TorchScript alike (1.13 and 2.x), keyword arguments included.
  ops.push_back(view_op("slice", "torch.ops.aten.slice",
                        {A("dim", K::int_), A("start", K::int_, true), A("end", K::int_, true), A("step", K::int_)},
                        infer_slice, gen_slice));
  ops.push_back(view_op("select", "torch.select", {A("dim", K::int_), A("index", K::int_)}, infer_select, gen_select));
  ops.push_back(view_op("narrow", "torch.narrow", {A("dim", K::int_), A("start", K::int_), A("length", K::int_)},
                        infer_narrow, gen_narrow));
  ops.push_back(view_op("squeeze", "torch.squeeze", {A("dim", K::int_)}, infer_squeeze, gen_squeeze));
  ops.push_back(view_op("unsqueeze", "torch.unsqueeze", {A("dim", K::int_)}, infer_unsqueeze, gen_unsqueeze));
  ops.push_back(view_op("expand", ".expand", {A("size", K::int_list)}, infer_expand, gen_expand));
  ops.push_back(view_op("diagonal", "torch.diagonal", {A("offset", K::int_), A("dim1", K::int_), A("dim2", K::int_)},
                        infer_diagonal, gen_diagonal));
  ops.push_back(view_op("unbind", "torch.unbind", {A("dim", K::int_)}, infer_unbind, gen_unbind));
  ops.push_back(view_op("movedim", "torch.movedim", {A("source", K::int_), A("destination", K::int_)}, infer_movedim,
                        gen_movedim));
  ops.push_back(view_op("unfold", ".unfold", {A("dimension", K::int_), A("size", K::int_), A("step", K::int_)},
                        infer_unfold, gen_unfold));
  // An expanded view overlaps itself, as unfold's windows may; unbind gives
  // several views of one base.
  for (auto& s : ops)
    if (s.name == "expand" || s.name == "unbind" || s.name == "unfold") s.may_alias = true;
}

}  // namespace dlfuzz
