// conv1d / conv2d with stride, padding, dilation and groups. Inputs are
// batched [N, C, *spatial] or unbatched [C, *spatial]; weights [out, C/groups,
// *kernel] and bias [out] are params. Float only, no f16/bf16.
// conv_transpose1d / conv_transpose2d (the gradient of conv with respect to its
// input) take weights [C, out/groups, *kernel] and an output_padding that must
// stay below the stride or the dilation.
// The string paddings 'same'/'valid' (the aten::convNd.padding overloads) are
// left out: the IR's `padding` is an int list.
#include <algorithm>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
int spatial_of(const std::string& op) { return op.find("1d") != std::string::npos ? 1 : 2; }
bool transposed(const std::string& op) { return op.rfind("conv_transpose", 0) == 0; }

// An int-list attribute: absent means `dflt`; one value or one per spatial dim.
std::string spatial_list(const Node& n, const std::string& name, int sp, int64_t dflt, int64_t min, IntList& v) {
  const Arg* a = n.arg(name);
  if (!a) {
    v.assign(sp, dflt);
    return "";
  }
  const IntList* l = std::get_if<IntList>(&a->value);
  if (!l || (l->size() != 1 && static_cast<int>(l->size()) != sp))
    return name + " must hold 1 or " + std::to_string(sp) + " ints";
  v = l->size() == 1 ? IntList(sp, (*l)[0]) : *l;
  for (int64_t x : v) {
    if (x < min) return name + " must be >= " + std::to_string(min);
    if (x > kMaxWindow) return name + " must be <= " + std::to_string(kMaxWindow);
  }
  return "";
}

// Output length of one spatial dim; <= 0 when the dilated kernel does not fit.
int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  int64_t span = in + 2 * p - d * (k - 1) - 1;
  return span < 0 ? 0 : span / s + 1;
}

// Output length of one spatial dim of a transposed conv (may be <= 0).
int64_t conv_transpose_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t op) {
  return (in - 1) * s - 2 * p + d * (k - 1) + op + 1;
}

std::string infer_conv(const Program& p, const Node& n, std::vector<TensorType>& out) {
  int sp = spatial_of(n.op);
  const TensorType* x = tensor_arg(p, n, "input");
  const TensorType* w = tensor_arg(p, n, "weight");
  if (!x || !w) return "conv needs tensors input and weight";
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, x->dtype, p.target))
    return std::string("dtype ") + dtype_name(x->dtype) + " not supported by " + n.op;
  if (w->dtype != x->dtype) return "weight must have the input's dtype";
  bool batched = x->rank() == sp + 2;
  if (!batched && x->rank() != sp + 1)
    return "expected a " + std::to_string(sp + 1) + "-d or " + std::to_string(sp + 2) + "-d input";
  if (w->rank() != sp + 2) return "weight must be " + std::to_string(sp + 2) + "-d";
  // Zero-size inputs (allowed by PyTorch for the batch dim) are kept out.
  if (x->numel() == 0 || w->numel() == 0) return "zero-size input or weight";
  int64_t groups = int_arg(n, "groups", 1);
  if (const Arg* a = n.arg("groups"); a && !std::holds_alternative<int64_t>(a->value)) return "groups must be an int";
  if (groups < 1) return "groups must be positive";
  if (groups > kMaxWindow) return "groups must be <= " + std::to_string(kMaxWindow);
  int64_t channels = x->shape[batched ? 1 : 0];
  bool tr = transposed(n.op);
  // conv: weight [out, C/groups, *k]; transposed: weight [C, out/groups, *k].
  int64_t out_ch = tr ? w->shape[1] * groups : w->shape[0];
  if (tr ? w->shape[0] != channels || channels % groups != 0 : w->shape[1] * groups != channels)
    return "weight and groups don't match the input's channels";
  if (out_ch % groups != 0) return "out channels must be divisible by groups";
  if (const Arg* b = n.arg("bias"); b && !std::holds_alternative<None>(b->value)) {
    const TensorType* bt = tensor_arg(p, n, "bias");
    if (!bt || bt->dtype != x->dtype || bt->shape != Shape{out_ch})
      return "bias must be [out_channels] of the input's dtype";
  }
  IntList stride, pad, dil, opad(sp, 0);
  for (auto e : {spatial_list(n, "stride", sp, 1, 1, stride), spatial_list(n, "padding", sp, 0, 0, pad),
                 spatial_list(n, "dilation", sp, 1, 1, dil)})
    if (!e.empty()) return e;
  if (n.arg("output_padding")) {
    if (!tr) return "output_padding belongs to conv_transpose";
    if (auto e = spatial_list(n, "output_padding", sp, 0, 0, opad); !e.empty()) return e;
  }
  Shape shape;
  if (batched) shape.push_back(x->shape[0]);
  shape.push_back(out_ch);
  for (int i = 0; i < sp; ++i) {
    int64_t in = x->shape[x->rank() - sp + i], k = w->shape[2 + i];
    if (tr && opad[i] >= stride[i] && opad[i] >= dil[i])
      return "output_padding must be smaller than either stride or dilation";
    int64_t o =
        tr ? conv_transpose_out(in, k, stride[i], pad[i], dil[i], opad[i]) : conv_out(in, k, stride[i], pad[i], dil[i]);
    if (o < 1)
      return tr ? "the output size must be positive" : "kernel size can't be greater than the padded input size";
    shape.push_back(o);
  }
  out = {{x->dtype, shape}};
  return "";
}

// A visible float value that can be a batched or unbatched input, or a fresh one.
std::optional<int> conv_input(GenContext& g, const OpSpec& s, int sp) {
  auto v = g.first([&](const TensorType& t) {
    if (!dtype_allowed(s, t.dtype, g.program().target) || (t.rank() != sp + 1 && t.rank() != sp + 2) || t.numel() == 0)
      return false;
    return t.shape[t.rank() - sp - 1] <= 16;
  });
  if (v || g.focus()) return v;
  Choices& c = g.choices();
  Shape shape;
  if (c.coin(0.85)) shape.push_back(c.range(1, 3));
  shape.push_back(c.range(1, 4));
  for (int i = 0; i < sp; ++i) shape.push_back(c.range(1, g.policy().max_dim));
  return g.new_input({g.random_float_dtype(false), shape});
}

// Usually 1, else a divisor of the input's channels.
int64_t random_groups(Choices& c, int64_t channels) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= channels; ++d)
    if (channels % d == 0) divisors.push_back(d);
  return c.coin(0.7) ? 1 : c.pick(divisors);
}

bool gen_conv(GenContext& g, const OpSpec& s, Node& n) {
  int sp = spatial_of(s.name);
  Choices& c = g.choices();
  auto v = conv_input(g, s, sp);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  int64_t channels = x.shape[x.rank() - sp - 1];
  int64_t groups = random_groups(c, channels);
  int64_t out_ch = groups * c.range(1, groups > 2 ? 1 : 3);
  IntList stride, pad, dil;
  Shape wshape = {out_ch, channels / groups};
  for (int i = 0; i < sp; ++i) {
    int64_t in = x.shape[x.rank() - sp + i];
    int64_t k = c.range(1, 3), st = c.range(1, 2), p = c.range(0, 1), d = c.coin(0.2) ? 2 : 1;
    if (conv_out(in, k, st, p, d) < 1) d = 1;
    if (conv_out(in, k, st, p, d) < 1) k = 1;
    wshape.push_back(k);
    stride.push_back(st);
    pad.push_back(p);
    dil.push_back(d);
  }
  int w = g.new_param({x.dtype, wshape}, Init::uniform, -0.5, 0.5);
  n.args = {{"input", ValueRef{*v}}, {"weight", ValueRef{w}}};
  if (c.coin(0.6)) n.args.push_back({"bias", ValueRef{g.new_param({x.dtype, {out_ch}}, Init::uniform, -0.5, 0.5)}});
  if (c.coin(0.8)) n.args.push_back({"stride", stride});
  n.args.push_back({"padding", pad});
  if (c.coin(0.7)) n.args.push_back({"dilation", dil});
  else if (dil != IntList(sp, 1)) n.args.push_back({"dilation", dil});
  if (groups != 1 || c.coin(0.3)) n.args.push_back({"groups", groups});
  return true;
}

bool gen_conv_transpose(GenContext& g, const OpSpec& s, Node& n) {
  int sp = spatial_of(s.name);
  Choices& c = g.choices();
  auto v = conv_input(g, s, sp);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  int64_t channels = x.shape[x.rank() - sp - 1];
  int64_t groups = random_groups(c, channels);
  int64_t out_per_group = c.range(1, groups > 2 ? 1 : 3);
  IntList stride, pad, dil, opad;
  Shape wshape = {channels, out_per_group};
  for (int i = 0; i < sp; ++i) {
    int64_t in = x.shape[x.rank() - sp + i];
    int64_t k = c.range(1, 3), st = c.range(1, 2), p = c.range(0, 1), d = c.coin(0.2) ? 2 : 1;
    // output_padding below the stride or the dilation (the larger of the two).
    int64_t op = c.coin(0.3) ? c.range(0, std::max(st, d) - 1) : 0;
    if (conv_transpose_out(in, k, st, p, d, op) < 1) p = 0;
    wshape.push_back(k);
    stride.push_back(st);
    pad.push_back(p);
    dil.push_back(d);
    opad.push_back(op);
  }
  int w = g.new_param({x.dtype, wshape}, Init::uniform, -0.5, 0.5);
  n.args = {{"input", ValueRef{*v}}, {"weight", ValueRef{w}}};
  if (c.coin(0.6))
    n.args.push_back({"bias", ValueRef{g.new_param({x.dtype, {groups * out_per_group}}, Init::uniform, -0.5, 0.5)}});
  if (c.coin(0.8) || stride != IntList(sp, 1)) n.args.push_back({"stride", stride});
  n.args.push_back({"padding", pad});
  if (opad != IntList(sp, 0) || c.coin(0.3)) n.args.push_back({"output_padding", opad});
  if (groups != 1 || c.coin(0.3)) n.args.push_back({"groups", groups});
  if (dil != IntList(sp, 1) || c.coin(0.3)) n.args.push_back({"dilation", dil});
  return true;
}

OpSpec conv(const std::string& name) {
  using K = ParamKind;
  OpSpec s;
  s.name = name;
  s.family = "conv";
  s.aten = "aten::" + name;
  s.params = {T("input"),
              T("weight"),
              {"bias", K::tensor, true, false},
              A("stride", K::int_list),
              A("padding", K::int_list),
              A("dilation", K::int_list),
              A("groups", K::int_)};
  if (transposed(name)) {
    // ATen's order: ..., padding, output_padding, groups, dilation.
    s.params.insert(s.params.begin() + 5, A("output_padding", K::int_list));
    std::swap(s.params[6], s.params[7]);
  }
  s.infer = infer_conv;
  s.generate = transposed(name) ? gen_conv_transpose : gen_conv;
  s.float_only = true;
  s.half_ok = false;
  s.python = "torch.nn.functional." + name;
  return s;
}
}  // namespace

void register_ops_conv(std::vector<OpSpec>& ops) {
  ops.push_back(conv("conv1d"));
  ops.push_back(conv("conv2d"));
  ops.push_back(conv("conv_transpose1d"));
  ops.push_back(conv("conv_transpose2d"));
}

}  // namespace dlfuzz
