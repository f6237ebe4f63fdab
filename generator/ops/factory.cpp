// Factory ops inside the program: tensors built from a size and a fill value
// rather than from inputs (the constants compilers fold and specialize on).
// `new_*` and `*_like` take device (and by default dtype) from a tensor, so
// they work on every device; zeros/ones/full/arange name no device and build
// on the CPU, so only CPU programs get them.
#include <cmath>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
enum class Kind { like, new_, plain };

ParamSpec size_param() { return {"size", ParamKind::int_list, false, true}; }
ParamSpec no_grad(ParamSpec p) {
  p.grad = false;
  return p;
}

bool has_fill(const std::string& op) { return op.find("full") != std::string::npos; }

Kind kind_of(const std::string& op) {
  if (op.size() > 5 && op.compare(op.size() - 5, 5, "_like") == 0) return Kind::like;
  if (op.compare(0, 4, "new_") == 0) return Kind::new_;
  return Kind::plain;
}

// The dtype of the fill value's kind where no dtype is given (torch.full(size, 1) is i64).
DType fill_dtype(const ArgValue& fill) {
  ScalarKind k = scalar_kind(fill);
  return k == ScalarKind::floating ? DType::f32 : k == ScalarKind::boolean ? DType::b8 : DType::i64;
}

std::string infer_factory(const Program& p, const Node& n, std::vector<TensorType>& out) {
  Kind k = kind_of(n.op);
  const TensorType* self = tensor_arg(p, n, "self");
  if (k != Kind::plain && !self) return "missing tensor argument 'self'";
  const Arg* fill = n.arg("fill_value");
  if (has_fill(n.op) && (!fill || scalar_kind(fill->value) == ScalarKind::none)) return "fill_value must be a number";
  Shape shape;
  if (k == Kind::like) {
    shape = self->shape;
  } else {
    const IntList* size = int_list_arg(n, "size");
    if (!size) return "missing int list 'size'";
    for (int64_t d : *size)
      if (d < 0) return "negative dimension in size";
    shape = *size;
  }
  DType t = k != Kind::plain ? self->dtype : has_fill(n.op) ? fill_dtype(fill->value) : DType::f32;
  if (const Arg* d = n.arg("dtype"); d && !std::holds_alternative<None>(d->value)) {
    if (!std::holds_alternative<DType>(d->value)) return "dtype must be a dtype";
    t = std::get<DType>(d->value);
  }
  if (t == DType::i16 && p.target == Target::torch113) return "dtype i16 not supported by " + n.op;
  // A float fill into an integer tensor is an error in full; keep the kinds apart.
  if (fill && scalar_kind(fill->value) == ScalarKind::floating && !is_float(t))
    return "a float fill_value needs a floating dtype";
  out = {{t, shape}};
  return "";
}

bool gen_factory(GenContext& g, const OpSpec& s, Node& n) {
  Kind k = kind_of(s.name);
  Choices& c = g.choices();
  if (k == Kind::plain && g.program().device != "cpu") return false;
  std::optional<int> self;
  Shape shape;
  DType dtype;
  if (k != Kind::plain || c.coin(0.6)) {
    Target target = g.program().target;
    self = g.pick([&](const TensorType& t) { return t.dtype != DType::i16 || target == Target::torch2; });
    if (!self) return false;
    shape = g.program().type(*self).shape;
    dtype = g.program().type(*self).dtype;
  } else {
    shape = g.random_shape(0, 3);
    dtype = g.training() ? DType::f32 : g.random_dtype();
  }
  // A size that broadcasts against the source: the same, a suffix or 1s.
  if (k != Kind::like && c.coin(0.5)) shape = broadcastable_type(g, shape, dtype).shape;
  if (k != Kind::plain) n.args.push_back({"self", ValueRef{*self}});
  if (k != Kind::like) n.args.push_back({"size", IntList(shape)});
  bool explicit_dtype = k == Kind::plain ? c.coin(0.7) : c.coin(0.3);
  if (explicit_dtype && k != Kind::plain) dtype = g.random_dtype();
  if (has_fill(s.name)) {
    // (TorchScript takes no bool for a Scalar: a bool tensor is filled with 0 or 1.)
    ArgValue fill = is_bool(dtype) ? ArgValue(int64_t(c.below(2))) : random_number(g, dtype, -3, 3);
    if (!is_float(dtype) && std::holds_alternative<double>(fill)) fill = int64_t(2);  // the kinds stay apart
    n.args.push_back({"fill_value", fill});
  }
  if (explicit_dtype) n.args.push_back({"dtype", dtype});
  return true;
}

OpSpec factory(const std::string& name, Kind k) {
  OpSpec s;
  s.name = name;
  s.family = "factory";
  s.aten = "aten::" + name;
  if (k != Kind::plain) s.params.push_back(no_grad(T("self")));
  if (k != Kind::like) s.params.push_back(size_param());
  if (has_fill(name)) s.params.push_back({"fill_value", ParamKind::number, false, true});
  s.params.push_back(A("dtype", ParamKind::dtype, true));
  s.infer = infer_factory;
  s.generate = gen_factory;
  s.differentiable = false;
  s.bool_ok = true;
  s.python = k == Kind::new_ ? "." + name : "torch." + name;
  return s;
}

// arange(start, end, step): whole-number bounds, or binary fractions whose
// length ceil((end - start) / step) is exact in every precision.
bool gen_arange(GenContext& g, const OpSpec&, Node& n) {
  if (g.program().device != "cpu") return false;
  Choices& c = g.choices();
  int64_t len = c.range(1, 2 * g.policy().max_dim);
  if (c.coin(0.7)) {
    int64_t start = c.range(-4, 4), step = c.pick(std::vector<int64_t>{1, 1, 2, -1, 3});
    n.args = {{"start", start}, {"end", start + step * len}, {"step", step}};
  } else {
    double start = static_cast<double>(c.range(-8, 8)) / 4, step = c.pick(std::vector<double>{0.5, 0.25, -0.5});
    n.args = {{"start", start}, {"end", start + step * static_cast<double>(len)}, {"step", step}};
  }
  if (c.coin(0.4)) n.args.push_back({"dtype", g.random_float_dtype()});
  return true;
}

std::string infer_arange(const Program&, const Node& n, std::vector<TensorType>& out) {
  const Arg* a[3] = {n.arg("start"), n.arg("end"), n.arg("step")};
  double v[3];
  bool any_float = false;
  for (int i = 0; i < 3; ++i) {
    if (!a[i]) return "arange needs start, end and step";
    ScalarKind k = scalar_kind(a[i]->value);
    if (k != ScalarKind::integer && k != ScalarKind::floating) return "arange's bounds must be numbers";
    any_float = any_float || k == ScalarKind::floating;
    v[i] = k == ScalarKind::floating ? std::get<double>(a[i]->value) : double(std::get<int64_t>(a[i]->value));
  }
  if (v[2] == 0) return "arange's step must be nonzero";
  if ((v[1] - v[0]) / v[2] < 0) return "arange's bounds are inconsistent with step sign";
  DType t = any_float ? DType::f32 : DType::i64;
  if (const Arg* d = n.arg("dtype"); d && !std::holds_alternative<None>(d->value)) {
    if (!std::holds_alternative<DType>(d->value)) return "dtype must be a dtype";
    t = std::get<DType>(d->value);
  }
  if (!is_float(t) && t != DType::i64 && t != DType::i32) return "arange: unsupported dtype";
  out = {{t, {static_cast<int64_t>(std::ceil((v[1] - v[0]) / v[2]))}}};
  return "";
}
}  // namespace

void register_ops_factory(std::vector<OpSpec>& ops) {
  for (const char* name : {"zeros_like", "ones_like", "full_like"}) ops.push_back(factory(name, Kind::like));
  for (const char* name : {"new_zeros", "new_ones", "new_full"}) ops.push_back(factory(name, Kind::new_));
  for (const char* name : {"zeros", "ones", "full"}) ops.push_back(factory(name, Kind::plain));
  // empty_like / new_empty: garbage memory. Made only by fill_ and copy_, which
  // overwrite it at once (generator/ops/inplace.cpp; verify() holds every
  // program to that), so no generate function of their own.
  for (auto [name, kind] : {std::pair{"empty_like", Kind::like}, std::pair{"new_empty", Kind::new_}}) {
    OpSpec s = factory(name, kind);
    s.generate = nullptr;
    ops.push_back(s);
  }
  OpSpec arange;
  arange.name = "arange";
  arange.family = "factory";
  arange.aten = "aten::arange";
  arange.params = {{"start", ParamKind::number, false, true},
                   {"end", ParamKind::number, false, true},
                   {"step", ParamKind::number, false, true},
                   A("dtype", ParamKind::dtype, true)};
  arange.infer = infer_arange;
  arange.generate = gen_arange;
  arange.differentiable = false;
  arange.python = "torch.arange";
  ops.push_back(arange);
}

}  // namespace dlfuzz
