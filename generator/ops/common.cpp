#include "generator/ops/common.h"

#include <algorithm>
#include <cmath>

#include "generator/wide_unsigned.h"

namespace dlfuzz::ops {

bool dtype_allowed(const OpSpec& s, DType t, Target target) {
  if (s.float_only && !is_float(t)) return false;
  if (s.int_only && is_float(t)) return false;
  if (!s.bool_ok && is_bool(t)) return false;
  if (is_wide_unsigned(t)) return target == Target::torch2 && takes_wide_unsigned(s);
  if (!s.half_in_torch2 && is_half(t)) return false;
  if (target == Target::torch2) return true;  // int16 and CPU half kernels everywhere
  if (!s.half_ok && is_half(t)) return false;
  return t != DType::i16;
}

std::string get_self(const Program& p, const Node& n, const TensorType*& self) {
  self = tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, self->dtype, p.target))
    return std::string("dtype ") + dtype_name(self->dtype) + " not supported by " + n.op;
  return "";
}

bool get_int(const Node& n, const std::string& name, int64_t& v) {
  const Arg* a = n.arg(name);
  if (!a || !std::holds_alternative<int64_t>(a->value)) return false;
  v = std::get<int64_t>(a->value);
  return true;
}

namespace {

std::string check_other(const Program& p, const Node& n, Shape& shape) {
  const TensorType* self = tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  const Arg* other = n.arg("other");
  if (!other) return "missing argument 'other'";
  shape = self->shape;
  if (auto* r = std::get_if<ValueRef>(&other->value)) {
    if (!broadcast(self->shape, p.type(r->id).shape, shape))
      return "shapes " + type_str(*self) + " and " + type_str(p.type(r->id)) + " do not broadcast";
  } else if (scalar_kind(other->value) == ScalarKind::none) {
    return "'other' must be a tensor or a number";
  }
  return "";
}
}  // namespace

std::string infer_same(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  out = {*self};
  return "";
}

std::string infer_float(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  out = {{to_float_default(self->dtype), self->shape}};
  return "";
}

std::string infer_binary(const Program& p, const Node& n, std::vector<TensorType>& out) {
  Shape shape;
  if (auto e = check_other(p, n, shape); !e.empty()) return e;
  auto promo = promoted(p, n, {"self", "other"});
  if (!promo) return infer_util::kNoPromotion;
  DType t = *promo;
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, t, p.target)) return std::string("dtype ") + dtype_name(t) + " not supported by " + n.op;
  out = {{t, shape}};
  return "";
}

std::string infer_binary_float(const Program& p, const Node& n, std::vector<TensorType>& out) {
  if (auto e = infer_binary(p, n, out); !e.empty()) return e;
  out[0].dtype = to_float_default(out[0].dtype);
  return "";
}

std::string infer_binary_inplace(const Program& p, const Node& n, std::vector<TensorType>& out) {
  if (auto e = infer_binary(p, n, out); !e.empty()) return e;
  const TensorType& self = *tensor_arg(p, n, "self");
  if (out[0].shape != self.shape)
    return "in-place result shape " + type_str(out[0]) + " differs from self " + type_str(self);
  if (!can_cast(out[0].dtype, self.dtype))
    return std::string("result dtype ") + dtype_name(out[0].dtype) + " can't be cast to " + dtype_name(self.dtype);
  out = {self};
  return "";
}

std::string infer_size(int64_t numel, const IntList& size, Shape& out) {
  out = size;
  int64_t known = 1;
  int infer_at = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (infer_at >= 0) return "only one dimension can be inferred";
      infer_at = static_cast<int>(i);
    } else if (size[i] < 0) {
      return "invalid shape dimension " + std::to_string(size[i]);
    } else {
      known = mul_saturating(known, size[i]);
    }
  }
  if (numel == known && infer_at < 0) return "";
  if (infer_at >= 0 && known > 0 && numel % known == 0) {
    out[infer_at] = numel / known;
    return "";
  }
  return "shape is invalid for an input of size " + std::to_string(numel);
}

std::optional<int> operand(GenContext& g, const OpSpec& s, int min_rank) {
  auto v = g.first(
      [&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target) && t.rank() >= min_rank; });
  if (v || g.focus()) return v;
  DType t = g.random_dtype();
  if (!dtype_allowed(s, t, g.program().target)) t = DType::f32;
  return g.new_input({t, g.random_shape(min_rank, std::max(min_rank, 4))});
}

bool gen_unary(GenContext& g, const OpSpec& s, Node& n) {
  auto v = g.first([&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target); });
  if (!v) {
    if (g.focus()) return false;
    DType t = s.float_only ? g.random_float_dtype(s.half_ok) : g.random_dtype();
    if (!dtype_allowed(s, t, g.program().target)) t = s.int_only ? DType::i64 : DType::f32;
    v = g.new_input({t, g.random_shape(0, 4)});
  }
  n.args = {{"self", ValueRef{g.in_domain(*v, s.domain)}}};
  return true;
}

TensorType broadcastable_type(GenContext& g, const Shape& shape, DType dtype) {
  Choices& c = g.choices();
  Shape s = shape;
  int mode = static_cast<int>(c.below(4));
  if (mode == 1 && !s.empty()) s.erase(s.begin(), s.begin() + c.below(s.size() + 1));  // suffix
  if (mode == 2)
    for (auto& d : s)
      if (c.coin(0.4)) d = 1;
  if (mode == 3 && s.size() < 4 && c.coin(0.3)) s.insert(s.begin(), 1);
  return {dtype, s};
}

ArgValue special_number(GenContext& g, DType t) {
  Choices& c = g.choices();
  DType ft = is_float(t) ? t : DType::f32;
  const std::vector<double> values = {NAN,           INFINITY,       -INFINITY, -0.0, 0.0, float_tiny(ft) / 4,
                                      float_max(ft), -float_max(ft), 1e-30};
  return c.pick(values);
}

ArgValue written_number(GenContext& g, DType t, double lo, double hi) {
  Choices& c = g.choices();
  auto i = static_cast<int64_t>(c.range(static_cast<int64_t>(std::floor(lo)), static_cast<int64_t>(std::ceil(hi))));
  if (!is_float(t) || c.coin(0.5)) return i;  // an int scalar on a float tensor: int-to-float promotion
  return static_cast<double>(c.range(static_cast<int64_t>(lo * 10), static_cast<int64_t>(hi * 10))) / 10.0;
}

ArgValue random_number(GenContext& g, DType t, double lo, double hi) {
  Choices& c = g.choices();
  // A special number turns an integer tensor into a float one (Python float):
  // only where the float result is welcome, as for any float scalar.
  if (is_float(t) && c.coin(g.policy().p_special_values)) return special_number(g, t);
  if (c.coin(g.policy().p_written_values)) return written_number(g, t, lo, hi);
  // Python-number semantics: an int scalar keeps an int tensor int, a float
  // scalar turns it into the default float.
  if (is_float(t) || c.coin(0.2)) return c.uniform(lo, hi);
  return static_cast<int64_t>(c.range(static_cast<int64_t>(lo), static_cast<int64_t>(hi)));
}

int64_t random_dim_index(GenContext& g, int rank) {
  int r = rank == 0 ? 1 : rank;
  return g.choices().range(-r, r - 1);
}

// A 0-d value whose .item() becomes a Python number: one of the program's, or
// the sum of `self` (x * x.sum().item(), a normalization people write).
std::optional<int> item_source(GenContext& g, int self) {
  auto v = g.pick([](const TensorType& t) { return t.rank() == 0 && !is_bool(t.dtype); });
  if (v && g.choices().coin(0.5)) return v;
  Node sum;
  sum.op = "sum";
  sum.args = {{"self", ValueRef{self}}};
  auto outs = g.emit(sum);
  return outs ? std::optional<int>(outs->front()) : v;
}

bool gen_binary(GenContext& g, const OpSpec& s, Node& n) {
  auto v =
      g.first([&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target) && !is_bool(t.dtype); });
  if (!v) {
    if (g.focus()) return false;
    DType t = s.float_only ? g.random_float_dtype(s.half_ok) : g.random_dtype();
    if (s.int_only && !dtype_allowed(s, t, g.program().target)) t = DType::i64;
    v = g.new_input({t, g.random_shape(0, 4)});
    if (!dtype_allowed(s, g.program().type(*v).dtype, g.program().target) || is_bool(g.program().type(*v).dtype))
      return false;
  }
  const TensorType self = g.program().type(*v);
  n.args = {{"self", ValueRef{*v}}};
  const ParamSpec* other_spec = s.param("other");
  bool number_ok = other_spec && other_spec->kind == ParamKind::tensor_or_number;
  std::optional<int> scalar_source;
  if (number_ok && g.choices().coin(g.policy().p_item)) scalar_source = item_source(g, *v);
  if (scalar_source) {
    n.args.push_back({"other", ValueRef{*scalar_source, true}});  // other.item(): a number the data decides
  } else if (number_ok && g.choices().coin(0.35)) {
    n.args.push_back({"other", random_number(g, self.dtype, -2, 2)});
  } else {
    // Mostly the same dtype; sometimes another, to exercise promotion.
    DType dt = g.choices().coin(0.8) ? self.dtype : (s.float_only ? g.random_float_dtype(s.half_ok) : g.random_dtype());
    if (!dtype_allowed(s, dt, g.program().target) || is_bool(dt)) dt = self.dtype;
    TensorType want = broadcastable_type(g, self.shape, dt);
    int o = g.pick_or_input([&](const TensorType& t) { return t == want; }, want);
    n.args.push_back({"other", ValueRef{o}});
  }
  // Divisors and similar second operands get their own guard (xlogy's log
  // of `other`: positive).
  if (s.domain == Domain::nonzero || s.domain == Domain::positive) {
    const bool positive = s.domain == Domain::positive;
    auto& other = n.args[1].value;
    if (auto* r = std::get_if<ValueRef>(&other)) r->id = g.in_domain(r->id, s.domain);
    if (auto* d = std::get_if<double>(&other); d && (positive ? !(*d >= 0.25) : std::abs(*d) < 0.25)) *d = 0.5;
    if (auto* i = std::get_if<int64_t>(&other); i && (positive ? *i < 1 : *i == 0)) *i = 1;
  }
  return true;
}

OpSpec float_op(const std::string& name, const std::string& family, const std::string& python,
                std::vector<ParamSpec> params, InferFn infer, GenFn gen) {
  OpSpec s;
  s.name = name;
  s.family = family;
  s.aten = "aten::" + name;
  s.params = std::move(params);
  s.infer = infer;
  s.generate = gen;
  s.float_only = true;
  s.half_ok = false;
  s.python = python;
  return s;
}

}  // namespace dlfuzz::ops
