// Pooling: max_pool1d/2d/3d, avg_pool1d/2d/3d, adaptive_avg_pool1d/2d/3d over batched
// [N, C, *spatial] or unbatched [C, *spatial] inputs. Float only, no f16/bf16.
// Output sizes follow ATen's pooling_output_shape, ceil_mode included.
#include <algorithm>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
int spatial_of(const std::string& op) {
  if (op.find("1d") != std::string::npos) return 1;
  return op.find("3d") != std::string::npos ? 3 : 2;
}

// An int-list attribute: absent (or, for stride, empty) means `dflt`; one
// value or one per spatial dim.
std::string spatial_list(const Node& n, const std::string& name, int sp, const IntList& dflt, int64_t min, IntList& v) {
  const Arg* a = n.arg(name);
  const IntList* l = a ? std::get_if<IntList>(&a->value) : nullptr;
  if (a && !l) return name + " must be an int list";
  if (!l || (l->empty() && name == "stride")) {
    v = dflt;
    return "";
  }
  if (l->size() != 1 && static_cast<int>(l->size()) != sp)
    return name + " must hold 1 or " + std::to_string(sp) + " ints";
  v = l->size() == 1 ? IntList(sp, (*l)[0]) : *l;
  for (int64_t x : v) {
    if (x < min) return name + " must be >= " + std::to_string(min);
    if (x > kMaxWindow) return name + " must be <= " + std::to_string(kMaxWindow);
  }
  return "";
}

// ATen's pooling_output_shape: floor or ceil division, and in ceil mode the
// last window must start inside the input or the left padding.
int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
  int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;  // floor division
  if (ceil && (o - 1) * s >= in + p) --o;
  return o;
}

// The input: [C, *spatial] or [N, C, *spatial], no zero-size dims (PyTorch
// accepts N == 0 for some of these; such inputs are kept out).
std::string check_input(const Program& p, const Node& n, int sp, const TensorType*& x) {
  x = tensor_arg(p, n, "self");
  if (!x) return "missing tensor argument 'self'";
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, x->dtype, p.target))
    return std::string("dtype ") + dtype_name(x->dtype) + " not supported by " + n.op;
  if (x->rank() != sp + 1 && x->rank() != sp + 2)
    return "expected a " + std::to_string(sp + 1) + "-d or " + std::to_string(sp + 2) + "-d input";
  if (x->numel() == 0) return "zero-size input";
  return "";
}

std::string infer_pool(const Program& p, const Node& n, std::vector<TensorType>& out) {
  int sp = spatial_of(n.op);
  bool is_max = n.op.rfind("max", 0) == 0;
  const TensorType* x;
  if (auto e = check_input(p, n, sp, x); !e.empty()) return e;
  if (!n.arg("kernel_size")) return "missing int list 'kernel_size'";
  IntList k, s, pad, dil;
  if (auto e = spatial_list(n, "kernel_size", sp, {}, 1, k); !e.empty()) return e;
  for (auto e : {spatial_list(n, "stride", sp, k, 1, s), spatial_list(n, "padding", sp, IntList(sp, 0), 0, pad),
                 spatial_list(n, "dilation", sp, IntList(sp, 1), 1, dil)})
    if (!e.empty()) return e;
  bool ceil = bool_arg(n, "ceil_mode", false);
  if (const Arg* a = n.arg("divisor_override");
      a && std::holds_alternative<int64_t>(a->value) && std::get<int64_t>(a->value) == 0)
    return "divisor must be not zero";
  Shape shape(x->shape.begin(), x->shape.end() - sp);
  for (int i = 0; i < sp; ++i) {
    if (pad[i] > k[i] / 2) return "pad should be at most half of kernel size";
    // ATen's 3-d pools want the window inside the unpadded input.
    if (sp == 3 && x->shape[x->rank() - sp + i] < k[i]) return "input image smaller than kernel size";
    int64_t o = pool_out(x->shape[x->rank() - sp + i], k[i], s[i], pad[i], is_max ? dil[i] : 1, ceil);
    if (o < 1) return "output size is too small";
    shape.push_back(o);
  }
  out = {{x->dtype, shape}};
  return "";
}

std::optional<int> pool_input(GenContext& g, const OpSpec& s, int sp) {
  auto v = g.first([&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && (t.rank() == sp + 1 || t.rank() == sp + 2) && t.numel() > 0;
  });
  if (v || g.focus()) return v;
  Choices& c = g.choices();
  Shape shape;
  if (c.coin(0.85)) shape.push_back(c.range(1, 3));
  shape.push_back(c.range(1, 4));
  for (int i = 0; i < sp; ++i) shape.push_back(c.range(1, g.policy().max_dim));
  return g.new_input({g.random_float_dtype(false), shape});
}

bool gen_pool(GenContext& g, const OpSpec& s, Node& n) {
  int sp = spatial_of(s.name);
  bool is_max = s.name.rfind("max", 0) == 0;
  auto v = pool_input(g, s, sp);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  Choices& c = g.choices();
  bool ceil = c.coin(0.3);
  IntList k, st, pad, dil;
  for (int i = 0; i < sp; ++i) {
    int64_t in = x.shape[x.rank() - sp + i];
    int64_t kk = c.range(1, 3), ss = c.range(1, 2), d = is_max && c.coin(0.2) ? 2 : 1;
    int64_t p = c.range(0, kk / 2);
    // Checked with the chosen stride and the default (= kernel size); k = 1 always fits.
    if (pool_out(in, kk, ss, p, d, ceil) < 1 || pool_out(in, kk, kk, p, d, ceil) < 1 || (sp == 3 && in < kk))
      kk = 1, p = 0, d = 1;
    k.push_back(kk);
    st.push_back(ss);
    pad.push_back(p);
    dil.push_back(d);
  }
  int in = *v;
  // PyTorch 2.x's max_pool3d rejects an unbatched input laid out channels-last
  // ("Unsupported memory format"; 1.13 takes it): such programs would only be
  // skipped (corpus/bugs/eager-max-pool3d-unbatched-channels-last.dlf). 1.13
  // programs run through 2.x too (its LibTorch, the Python repro).
  if (s.name == "max_pool3d" && x.rank() == 4)
    in = g.emit1("contiguous", {{"self", ValueRef{in}}});
  n.args = {{"self", ValueRef{in}}, {"kernel_size", k}};
  if (c.coin(0.7)) n.args.push_back({"stride", st});
  if (c.coin(0.7) || pad != IntList(sp, 0)) n.args.push_back({"padding", pad});
  if (is_max && (c.coin(0.3) || dil != IntList(sp, 1))) n.args.push_back({"dilation", dil});
  if (ceil || c.coin(0.2)) n.args.push_back({"ceil_mode", ceil});
  if (!is_max && c.coin(0.4)) n.args.push_back({"count_include_pad", c.coin(0.5)});
  if ((s.name == "avg_pool2d" || s.name == "avg_pool3d") && c.coin(0.15)) n.args.push_back({"divisor_override", c.range(1, 4)});
  return true;
}

std::string infer_adaptive(const Program& p, const Node& n, std::vector<TensorType>& out) {
  int sp = spatial_of(n.op);
  const TensorType* x;
  if (auto e = check_input(p, n, sp, x); !e.empty()) return e;
  const IntList* size = int_list_arg(n, "output_size");
  if (!size || static_cast<int>(size->size()) != sp) return "output_size must hold " + std::to_string(sp) + " ints";
  Shape shape(x->shape.begin(), x->shape.end() - sp);
  for (int64_t o : *size) {
    if (o < 1) return "output_size must be positive";
    shape.push_back(o);
  }
  out = {{x->dtype, shape}};
  return "";
}

bool gen_adaptive(GenContext& g, const OpSpec& s, Node& n) {
  int sp = spatial_of(s.name);
  auto v = pool_input(g, s, sp);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  IntList size;
  // Mostly a reduction; sometimes larger than the input (windows overlap).
  for (int i = 0; i < sp; ++i) size.push_back(g.choices().range(1, x.shape[x.rank() - sp + i] + 1));
  n.args = {{"self", ValueRef{*v}}, {"output_size", size}};
  return true;
}

OpSpec pool(const std::string& name) {
  using K = ParamKind;
  bool adaptive = name.rfind("adaptive", 0) == 0, is_max = name.rfind("max", 0) == 0;
  OpSpec s;
  s.name = name;
  s.family = "pool";
  s.aten = "aten::" + name;
  s.params = {T("self")};
  if (adaptive) {
    s.params.push_back(A("output_size", K::int_list));
  } else {
    s.params.push_back(A("kernel_size", K::int_list));
    s.params.push_back(A("stride", K::int_list));
    s.params.push_back(A("padding", K::int_list));
    if (is_max) s.params.push_back(A("dilation", K::int_list));
    s.params.push_back(A("ceil_mode", K::bool_));
    if (!is_max) s.params.push_back(A("count_include_pad", K::bool_));
    if (name == "avg_pool2d" || name == "avg_pool3d") s.params.push_back(A("divisor_override", K::int_, true));
  }
  s.infer = adaptive ? infer_adaptive : infer_pool;
  s.generate = adaptive ? gen_adaptive : gen_pool;
  s.float_only = true;
  s.half_ok = false;
  s.half_in_torch2 = name != "avg_pool3d";  // no CPU f16/bf16 avg_pool3d kernel in 2.x either
  s.python = "torch.nn.functional." + name;
  return s;
}
}  // namespace

void register_ops_pool(std::vector<OpSpec>& ops) {
  for (const char* name : {"max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
                           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"})
    ops.push_back(pool(name));
}

}  // namespace dlfuzz
