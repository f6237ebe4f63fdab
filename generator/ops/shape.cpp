// Shape ops that make (or may make) new tensors: reshape, flatten, contiguous,
// cat, stack, split, chunk, repeat, flip, roll, clone. Every dtype, bool
// included. reshape/flatten/contiguous may or may not alias their input and
// split/chunk outputs are views; their OpSpec::may_alias keeps all
// of these from being written in place.
#include <algorithm>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
const TensorType& type_of(GenContext& g, int v) { return g.program().type(v); }

// reshape(shape): at::infer_size, one -1 allowed.
bool gen_reshape(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  IntList shape;
  if (t.numel() == 0) {
    // Any shape with a zero works (no -1: it would be ambiguous).
    shape = g.random_shape(1, 4);
    shape[c.below(shape.size())] = 0;
  } else {
    // Deal numel's prime factors into 0..4 dims.
    int k = static_cast<int>(c.range(t.numel() == 1 ? 0 : 1, 4));
    shape.assign(k, 1);
    int64_t rest = t.numel();
    for (int64_t f = 2; rest > 1; ++f)
      while (rest % f == 0) shape[c.below(k)] *= f, rest /= f;
    if (!shape.empty() && c.coin(0.3)) shape[c.below(shape.size())] = -1;
  }
  n.args = {{"self", ValueRef{*v}}, {"shape", shape}};
  return true;
}

std::string infer_reshape(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const IntList* size = int_list_arg(n, "shape");
  if (!size) return "missing int list 'shape'";
  Shape shape;
  if (auto e = infer_size(self->numel(), *size, shape); !e.empty()) return e;
  out = {{self->dtype, shape}};
  return "";
}

bool gen_flatten(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  int r = type_of(g, *v).rank();
  Choices& c = g.choices();
  n.args = {{"self", ValueRef{*v}}};
  if (r == 0 || c.coin(0.2)) return true;  // the defaults: everything
  int64_t start = c.below(r), end = c.range(start, r - 1);
  n.args.push_back({"start_dim", c.coin(0.2) ? start - r : start});
  n.args.push_back({"end_dim", c.coin(0.3) ? end - r : end});
  return true;
}

std::string infer_flatten(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t start = int_arg(n, "start_dim", 0), end = int_arg(n, "end_dim", -1);
  if (!wrap_dim(start, self->rank()) || !wrap_dim(end, self->rank())) return "flatten: dim out of range";
  if (start > end) return "flatten: start_dim cannot come after end_dim";
  if (self->rank() == 0) {
    out = {{self->dtype, {1}}};
    return "";
  }
  Shape shape(self->shape.begin(), self->shape.begin() + start);
  int64_t m = 1;
  for (int64_t i = start; i <= end; ++i) m *= self->shape[i];
  shape.push_back(m);
  shape.insert(shape.end(), self->shape.begin() + end + 1, self->shape.end());
  out = {{self->dtype, shape}};
  return "";
}

// contiguous(memory_format) and clone(memory_format): channels_last needs rank
// 4; contiguous rejects preserve_format.
bool gen_memory_format(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  Choices& c = g.choices();
  n.args = {{"self", ValueRef{*v}}};
  int pick = static_cast<int>(c.below(4));
  if (pick == 1) n.args.push_back({"memory_format", MemFormat::contiguous});
  if (pick == 2 && type_of(g, *v).rank() == 4) n.args.push_back({"memory_format", MemFormat::channels_last});
  if (pick == 3 && s.name == "clone") n.args.push_back({"memory_format", MemFormat::preserve});
  return true;
}

std::string infer_memory_format(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  if (const Arg* a = n.arg("memory_format"); a && !std::holds_alternative<None>(a->value)) {
    if (!std::holds_alternative<MemFormat>(a->value)) return "memory_format must be a memory format";
    MemFormat m = std::get<MemFormat>(a->value);
    if (m == MemFormat::channels_last && self->rank() != 4) return "channels_last needs a rank 4 tensor";
    if (m == MemFormat::preserve && n.op == "contiguous") return "contiguous doesn't support preserve_format";
  }
  out = {*self};
  return "";
}

// cat/stack over 2-3 tensors of the first one's dtype. Their result dtype
// follows type promotion (all operands count as dimensioned tensors).
std::string list_types(const Program& p, const Node& n, std::vector<const TensorType*>& ts, DType& dt) {
  const Arg* a = n.arg("tensors");
  if (!a || !std::holds_alternative<ValueList>(a->value)) return "missing tensor list 'tensors'";
  ResultType rt;
  for (int id : std::get<ValueList>(a->value).ids) {
    ts.push_back(&p.type(id));
    rt.add_tensor(ts.back()->dtype, 1);
  }
  if (ts.empty()) return "expected a non-empty list of tensors";
  if (!rt.valid()) return infer_util::kNoPromotion;
  dt = rt.result();
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, dt, p.target))
    return std::string("dtype ") + dtype_name(dt) + " not supported by " + n.op;
  return "";
}

bool gen_cat_stack(GenContext& g, const OpSpec& s, Node& n) {
  bool cat = s.name == "cat";
  auto v = operand(g, s, cat ? 1 : 0);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  int64_t dim = cat ? random_dim_index(g, t.rank()) : c.range(-t.rank() - 1, t.rank());
  int64_t d = dim < 0 ? dim + t.rank() : dim;
  ValueList list{{*v}};
  for (int k = static_cast<int>(c.range(1, 2)); k > 0; --k) {
    TensorType want = t;
    if (cat) want.shape[d] = g.random_dim();
    list.ids.push_back(g.pick_or_input(
        [&](const TensorType& o) {
          if (o.dtype != t.dtype || o.rank() != t.rank()) return false;
          for (int i = 0; i < t.rank(); ++i)
            if (o.shape[i] != t.shape[i] && !(cat && i == d)) return false;
          return true;
        },
        want));
  }
  if (c.coin(0.5)) std::swap(list.ids[0], list.ids[c.below(list.ids.size())]);
  n.args = {{"tensors", list}, {"dim", dim}};
  return true;
}

std::string infer_cat(const Program& p, const Node& n, std::vector<TensorType>& out) {
  std::vector<const TensorType*> ts;
  DType dt;
  if (auto e = list_types(p, n, ts, dt); !e.empty()) return e;
  // 1-d empty tensors that cat skips (a legacy rule) are rejected here.
  int r = ts[0]->rank();
  int64_t dim = int_arg(n, "dim", 0);
  if (r == 0) return "zero-dimensional tensors cannot be concatenated";
  if (!wrap_dim(dim, r)) return "cat: dim out of range";
  Shape shape = ts[0]->shape;
  shape[dim] = 0;
  for (const TensorType* t : ts) {
    if (t->rank() != r) return "cat: tensors must have the same rank";
    for (int i = 0; i < r; ++i)
      if (i != dim && t->shape[i] != shape[i]) return "cat: sizes must match except in dim " + std::to_string(dim);
    shape[dim] += t->shape[dim];
  }
  out = {{dt, shape}};
  return "";
}

std::string infer_stack(const Program& p, const Node& n, std::vector<TensorType>& out) {
  std::vector<const TensorType*> ts;
  DType dt;
  if (auto e = list_types(p, n, ts, dt); !e.empty()) return e;
  int64_t dim = int_arg(n, "dim", 0);
  if (!wrap_dim(dim, ts[0]->rank() + 1)) return "stack: dim out of range";
  for (const TensorType* t : ts)
    if (t->shape != ts[0]->shape) return "stack expects each tensor to be equal size";
  Shape shape = ts[0]->shape;
  shape.insert(shape.begin() + dim, static_cast<int64_t>(ts.size()));
  out = {{dt, shape}};
  return "";
}

// split(split_size, dim): ceil(size / split_size) pieces, at least one; the
// last may be short. split_size 0 only for a zero-size dim.
std::string split_pieces(int64_t size, int64_t split_size, std::vector<int64_t>& pieces) {
  if (split_size < 0) return "split expects split_size be non-negative";
  if (split_size == 0 && size != 0) return "split_size can only be 0 if dimension size is 0";
  int64_t count = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  pieces.assign(count, split_size);
  pieces.back() = size - split_size * (count - 1);
  return "";
}

// chunk(chunks, dim): split by ceil(size / chunks), so fewer pieces may come
// back; a zero-size dim gives `chunks` empty pieces.
std::string chunk_pieces(int64_t size, int64_t chunks, std::vector<int64_t>& pieces) {
  if (chunks <= 0) return "chunk expects `chunks` to be greater than 0";
  if (size == 0) {
    pieces.assign(chunks, 0);
    return "";
  }
  return split_pieces(size, (size + chunks - 1) / chunks, pieces);
}

bool gen_split_chunk(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 1);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  int64_t dim = random_dim_index(g, t.rank());
  int64_t size = t.shape[dim < 0 ? dim + t.rank() : dim];
  n.args = {{"self", ValueRef{*v}}};
  if (s.name == "chunk") {
    n.args.push_back({"chunks", c.range(1, 4)});
  } else {
    // At most 6 pieces.
    int64_t lo = std::max<int64_t>(1, (size + 5) / 6);
    n.args.push_back({"split_size", size == 0 ? c.range(0, 2) : c.range(lo, std::max(lo, size))});
  }
  n.args.push_back({"dim", dim});
  return true;
}

std::string infer_split_chunk(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  bool chunk = n.op == "chunk";
  int64_t k = 0, dim = int_arg(n, "dim", 0);
  if (!get_int(n, chunk ? "chunks" : "split_size", k))
    return chunk ? "missing int 'chunks'" : "missing int 'split_size'";
  if (self->rank() == 0) return n.op + " expects at least a 1-dimensional tensor";
  if (!wrap_dim(dim, self->rank())) return n.op + ": dim out of range";
  std::vector<int64_t> pieces;
  auto e = chunk ? chunk_pieces(self->shape[dim], k, pieces) : split_pieces(self->shape[dim], k, pieces);
  if (!e.empty()) return e;
  out.clear();
  for (int64_t piece : pieces) {
    out.push_back(*self);
    out.back().shape[dim] = piece;
  }
  return "";
}

bool gen_repeat(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  IntList repeats;
  if (t.rank() < 5 && (t.rank() == 0 || c.coin(0.3))) repeats.push_back(c.range(1, 3));
  int64_t numel = t.numel() * (repeats.empty() ? 1 : repeats[0]);
  for (int i = 0; i < t.rank(); ++i) {
    repeats.push_back(c.coin(0.03) ? 0 : c.range(1, 3));
    numel *= repeats.back();
  }
  if (numel > 4096) return false;  // keep tensors small
  n.args = {{"self", ValueRef{*v}}, {"repeats", repeats}};
  return true;
}

std::string infer_repeat(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const IntList* rep = int_list_arg(n, "repeats");
  if (!rep) return "missing int list 'repeats'";
  if (static_cast<int>(rep->size()) < self->rank()) return "repeat: fewer repeats than dims";
  size_t lead = rep->size() - self->rank();
  Shape shape;
  for (size_t i = 0; i < rep->size(); ++i) {
    if ((*rep)[i] < 0) return "repeat: negative repeat count";
    shape.push_back(mul_saturating((*rep)[i], i < lead ? 1 : self->shape[i - lead]));
  }
  out = {{self->dtype, shape}};
  return "";
}

// dims for flip (non-empty, distinct) and roll (distinct, with shifts).
IntList some_dims(GenContext& g, int rank) {
  IntList dims;
  for (int i = 0; i < std::max(rank, 1); ++i)
    if (g.choices().coin(0.5)) dims.push_back(g.choices().coin(0.2) ? i - std::max(rank, 1) : i);
  if (dims.empty()) dims.push_back(random_dim_index(g, rank));
  return dims;
}

std::string check_dims(const IntList& dims, int rank, bool unique) {
  std::vector<bool> seen(std::max(rank, 1), false);
  for (int64_t d : dims) {
    if (!wrap_dim(d, rank)) return "dim out of range";
    if (unique && seen[d]) return "dim " + std::to_string(d) + " appears multiple times";
    seen[d] = true;
  }
  return "";
}

bool gen_flip(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  n.args = {{"self", ValueRef{*v}}, {"dims", some_dims(g, type_of(g, *v).rank())}};
  return true;
}

std::string infer_flip(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const IntList* dims = int_list_arg(n, "dims");
  if (!dims) return "missing int list 'dims'";
  if (auto e = check_dims(*dims, self->rank(), true); !e.empty()) return "flip: " + e;
  out = {*self};
  return "";
}

bool gen_roll(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 1);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  n.args = {{"self", ValueRef{*v}}};
  if (c.coin(0.25)) {  // no dims: roll the flattened tensor
    n.args.push_back({"shifts", IntList{c.range(-t.numel() - 1, t.numel() + 1)}});
    return true;
  }
  IntList dims = some_dims(g, t.rank()), shifts;
  for (int64_t d : dims) {
    int64_t size = t.shape[d < 0 ? d + t.rank() : d];
    shifts.push_back(c.range(-size - 1, size + 1));
  }
  n.args.push_back({"shifts", shifts});
  n.args.push_back({"dims", dims});
  return true;
}

std::string infer_roll(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const IntList* shifts = int_list_arg(n, "shifts");
  const IntList* dims = int_list_arg(n, "dims");
  IntList none;
  if (!dims) dims = &none;
  if (!shifts || shifts->empty()) return "roll: shifts required";
  if (dims->empty() && shifts->size() != 1) return "roll: without dims, shifts must have one element";
  if (!dims->empty() && dims->size() != shifts->size()) return "roll: shifts and dims must align";
  if (!dims->empty() && self->rank() == 0) return "roll: a 0-dim tensor has no dims";
  if (auto e = check_dims(*dims, self->rank(), false); !e.empty()) return "roll: " + e;
  out = {*self};
  return "";
}

// diff(self, n, dim): n-th forward differences along dim (logical_xor of bools).
bool gen_diff(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 1);
  if (!v) return false;
  n.args = {{"self", ValueRef{*v}}, {"n", int64_t(g.choices().range(1, 2))},
            {"dim", random_dim_index(g, type_of(g, *v).rank())}};
  return true;
}

std::string infer_diff(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t order = 1, dim = -1;
  get_int(n, "n", order);
  get_int(n, "dim", dim);
  if (self->rank() == 0) return "diff expects input to be at least one-dimensional";
  if (order < 0) return "diff: order must be non-negative";
  if (!wrap_dim(dim, self->rank())) return "diff: dim out of range";
  out = {*self};
  out[0].shape[dim] = std::max<int64_t>(0, self->shape[dim] - order);
  return "";
}

// repeat_interleave(self, repeats, dim): each element `repeats` times in a
// row along dim, or over the flattened tensor without dim.
bool gen_repeat_interleave(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v) return false;
  const TensorType t = type_of(g, *v);
  Choices& c = g.choices();
  int64_t repeats = c.range(1, 3);
  if (t.numel() * repeats > 4096) return false;  // keep tensors small
  n.args = {{"self", ValueRef{*v}}, {"repeats", repeats}};
  if (t.rank() > 0 && c.coin(0.8)) n.args.push_back({"dim", random_dim_index(g, t.rank())});
  return true;
}

std::string infer_repeat_interleave(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t repeats = 0;
  if (!get_int(n, "repeats", repeats) || repeats < 0) return "repeat_interleave needs a non-negative int 'repeats'";
  int64_t dim = 0;
  if (!get_int(n, "dim", dim)) {
    out = {{self->dtype, {mul_saturating(self->numel(), repeats)}}};
    return "";
  }
  if (self->rank() == 0) return "repeat_interleave: a dim of a 0-dim tensor";
  if (!wrap_dim(dim, self->rank())) return "repeat_interleave: dim out of range";
  out = {*self};
  out[0].shape[dim] = mul_saturating(self->shape[dim], repeats);
  return "";
}

// rot90(self, k, dims): a quarter turn k times in the plane of two dims.
bool gen_rot90(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 2);
  if (!v) return false;
  Choices& c = g.choices();
  int rank = type_of(g, *v).rank();
  int64_t d0 = c.below(rank), d1 = c.below(rank - 1);
  if (d1 >= d0) ++d1;
  if (c.coin(0.2)) d1 -= rank;
  n.args = {{"self", ValueRef{*v}}, {"k", int64_t(c.range(-1, 3))}, {"dims", IntList{d0, d1}}};
  return true;
}

std::string infer_rot90(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int64_t k = 1;
  get_int(n, "k", k);
  const IntList* dims = int_list_arg(n, "dims");
  IntList dflt{0, 1};
  if (!dims) dims = &dflt;
  if (dims->size() != 2) return "rot90: expected total rotation dims == 2";
  if (self->rank() < 2) return "rot90: expected total dims >= 2";
  int64_t d0 = (*dims)[0], d1 = (*dims)[1];
  if (!wrap_dim(d0, self->rank()) || !wrap_dim(d1, self->rank())) return "rot90: dim out of range";
  if (d0 == d1) return "rot90: expected rotation dims to be different";
  out = {*self};
  if (((k % 4) + 4) % 4 % 2 == 1) std::swap(out[0].shape[d0], out[0].shape[d1]);
  return "";
}

// pixel_shuffle(self, r): [*, C*r*r, H, W] -> [*, C, H*r, W*r]; pixel_unshuffle
// the reverse. An operand whose dims fit, else a fresh input made to fit.
bool gen_pixel_shuffle(GenContext& g, const OpSpec& s, Node& n) {
  const bool unshuffle = s.name == "pixel_unshuffle";
  Choices& c = g.choices();
  int64_t r = c.range(1, 2);
  auto fits = [&](const TensorType& t) {
    if (!dtype_allowed(s, t.dtype, g.program().target) || t.rank() < 3 || t.rank() > 5) return false;
    int k = t.rank();
    return unshuffle ? t.shape[k - 1] % r == 0 && t.shape[k - 2] % r == 0 : t.shape[k - 3] % (r * r) == 0;
  };
  auto v = g.first(fits);
  if (!v) {
    if (g.focus()) return false;
    Shape shape = {c.range(1, 2), unshuffle ? c.range(1, 3) : r * r * c.range(1, 2), r * c.range(1, 3),
                   r * c.range(1, 3)};
    v = g.new_input({g.random_float_dtype(s.half_ok), shape});
  }
  n.args = {{"self", ValueRef{*v}}, {unshuffle ? "downscale_factor" : "upscale_factor", r}};
  return true;
}

std::string infer_pixel_shuffle(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const bool unshuffle = n.op == "pixel_unshuffle";
  int64_t r = 0;
  if (!get_int(n, unshuffle ? "downscale_factor" : "upscale_factor", r) || r <= 0)
    return n.op + " needs a positive factor";
  int k = self->rank();
  if (k < 3) return n.op + " expects at least 3 dims";
  Shape sh = self->shape;
  if (unshuffle) {
    if (sh[k - 1] % r != 0 || sh[k - 2] % r != 0) return "pixel_unshuffle: H and W must be divisible by the factor";
    sh[k - 3] = mul_saturating(sh[k - 3], r * r);
    sh[k - 2] /= r;
    sh[k - 1] /= r;
  } else {
    if (sh[k - 3] % (r * r) != 0) return "pixel_shuffle: channels must be divisible by the factor squared";
    sh[k - 3] /= r * r;
    sh[k - 2] = mul_saturating(sh[k - 2], r);
    sh[k - 1] = mul_saturating(sh[k - 1], r);
  }
  out = {{self->dtype, sh}};
  return "";
}

OpSpec shape_op(const std::string& name, const std::string& python, std::vector<ParamSpec> params, InferFn infer,
                GenFn gen) {
  OpSpec s;
  s.name = name;
  s.family = "shape";
  s.aten = "aten::" + name;
  s.params = std::move(params);
  s.infer = infer;
  s.generate = gen;
  s.bool_ok = true;
  s.python = python;
  return s;
}
}  // namespace

void register_ops_shape(std::vector<OpSpec>& ops) {
  using K = ParamKind;
  const ParamSpec tensors{"tensors", K::tensor_list, false, true};
  ops.push_back(shape_op("reshape", "torch.reshape", {T("self"), A("shape", K::int_list)}, infer_reshape, gen_reshape));
  ops.push_back(shape_op("flatten", "torch.flatten", {T("self"), A("start_dim", K::int_), A("end_dim", K::int_)},
                         infer_flatten, gen_flatten));
  ops.push_back(shape_op("contiguous", ".contiguous", {T("self"), A("memory_format", K::mem_format)},
                         infer_memory_format, gen_memory_format));
  ops.push_back(shape_op("clone", "torch.clone", {T("self"), A("memory_format", K::mem_format, true)},
                         infer_memory_format, gen_memory_format));
  ops.push_back(shape_op("cat", "torch.cat", {tensors, A("dim", K::int_)}, infer_cat, gen_cat_stack));
  ops.push_back(shape_op("stack", "torch.stack", {tensors, A("dim", K::int_)}, infer_stack, gen_cat_stack));
  // torch.split's Python parameter is `split_size_or_sections`: pass it by position.
  ops.push_back(shape_op("split", "torch.split", {T("self"), {"split_size", K::int_, false, true}, A("dim", K::int_)},
                         infer_split_chunk, gen_split_chunk));
  ops.push_back(shape_op("chunk", "torch.chunk", {T("self"), A("chunks", K::int_), A("dim", K::int_)},
                         infer_split_chunk, gen_split_chunk));
  ops.push_back(shape_op("repeat", ".repeat", {T("self"), A("repeats", K::int_list)}, infer_repeat, gen_repeat));
  ops.push_back(shape_op("flip", "torch.flip", {T("self"), A("dims", K::int_list)}, infer_flip, gen_flip));
  ops.push_back(shape_op("roll", "torch.roll", {T("self"), A("shifts", K::int_list), A("dims", K::int_list)},
                         infer_roll, gen_roll));
  ops.push_back(
      shape_op("diff", "torch.diff", {T("self"), A("n", K::int_), A("dim", K::int_)}, infer_diff, gen_diff));
  ops.push_back(shape_op("repeat_interleave", "torch.repeat_interleave",
                         {T("self"), A("repeats", K::int_), A("dim", K::int_, true)}, infer_repeat_interleave,
                         gen_repeat_interleave));
  ops.push_back(shape_op("rot90", "torch.rot90", {T("self"), A("k", K::int_), A("dims", K::int_list)}, infer_rot90,
                         gen_rot90));
  ops.push_back(shape_op("pixel_shuffle", "torch.pixel_shuffle", {T("self"), A("upscale_factor", K::int_)},
                         infer_pixel_shuffle, gen_pixel_shuffle));
  ops.push_back(shape_op("pixel_unshuffle", "torch.pixel_unshuffle", {T("self"), A("downscale_factor", K::int_)},
                         infer_pixel_shuffle, gen_pixel_shuffle));
  for (auto& s : ops) {
    // split and chunk always return views of self; writing one of several
    // views of the same base is not allowed.
    if (s.name == "split" || s.name == "chunk") s.view = true;
    // Their outputs may or may not share storage with self: never written.
    if (s.name == "reshape" || s.name == "flatten" || s.name == "contiguous" || s.name == "split" || s.name == "chunk")
      s.may_alias = true;
  }
}

}  // namespace dlfuzz
