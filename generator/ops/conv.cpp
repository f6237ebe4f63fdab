// conv1d / conv2d with stride, padding, dilation and groups. Inputs are
// batched [N, C, *spatial] or unbatched [C, *spatial]; weights [out, C/groups,
// *kernel] and bias [out] are params. Float only, no f16/bf16.
// The string paddings 'same'/'valid' (the aten::convNd.padding overloads) are
// left out: the IR's `padding` is an int list.
#include <algorithm>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
int spatial_of(const std::string& op) { return op == "conv1d" ? 1 : 2; }

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
  for (int64_t x : v)
    if (x < min) return name + " must be >= " + std::to_string(min);
  return "";
}

// Output length of one spatial dim; <= 0 when the dilated kernel does not fit.
int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  int64_t span = in + 2 * p - d * (k - 1) - 1;
  return span < 0 ? 0 : span / s + 1;
}

std::string infer_conv(const Program& p, const Node& n, std::vector<TensorType>& out) {
  int sp = spatial_of(n.op);
  const TensorType* x = tensor_arg(p, n, "input");
  const TensorType* w = tensor_arg(p, n, "weight");
  if (!x || !w) return "conv needs tensors input and weight";
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, x->dtype))
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
  int64_t channels = x->shape[batched ? 1 : 0], out_ch = w->shape[0];
  if (w->shape[1] * groups != channels) return "weight and groups don't match the input's channels";
  if (out_ch % groups != 0) return "out channels must be divisible by groups";
  if (const Arg* b = n.arg("bias"); b && !std::holds_alternative<None>(b->value)) {
    const TensorType* bt = tensor_arg(p, n, "bias");
    if (!bt || bt->dtype != x->dtype || bt->shape != Shape{out_ch})
      return "bias must be [out_channels] of the input's dtype";
  }
  IntList stride, pad, dil;
  for (auto e : {spatial_list(n, "stride", sp, 1, 1, stride), spatial_list(n, "padding", sp, 0, 0, pad),
                 spatial_list(n, "dilation", sp, 1, 1, dil)})
    if (!e.empty()) return e;
  Shape shape;
  if (batched) shape.push_back(x->shape[0]);
  shape.push_back(out_ch);
  for (int i = 0; i < sp; ++i) {
    int64_t o = conv_out(x->shape[x->rank() - sp + i], w->shape[2 + i], stride[i], pad[i], dil[i]);
    if (o < 1) return "kernel size can't be greater than the padded input size";
    shape.push_back(o);
  }
  out = {{x->dtype, shape}};
  return "";
}

bool gen_conv(GenContext& g, const OpSpec& s, Node& n) {
  int sp = spatial_of(s.name);
  Choices& c = g.choices();
  // A visible float value that can be a batched or unbatched input, or a fresh one.
  auto v = g.first([&](const TensorType& t) {
    if (!dtype_allowed(s, t.dtype) || (t.rank() != sp + 1 && t.rank() != sp + 2) || t.numel() == 0) return false;
    return t.shape[t.rank() - sp - 1] <= 16;
  });
  if (!v) {
    if (g.focus()) return false;
    Shape shape;
    if (c.coin(0.85)) shape.push_back(c.range(1, 3));
    shape.push_back(c.range(1, 4));
    for (int i = 0; i < sp; ++i) shape.push_back(c.range(1, g.policy().max_dim));
    v = g.new_input({g.random_float_dtype(false), shape});
  }
  const TensorType x = g.program().type(*v);
  int64_t channels = x.shape[x.rank() - sp - 1];
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= channels; ++d)
    if (channels % d == 0) divisors.push_back(d);
  int64_t groups = c.coin(0.7) ? 1 : c.pick(divisors);
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
  s.infer = infer_conv;
  s.generate = gen_conv;
  s.float_only = true;
  s.half_ok = false;
  s.python = "torch.nn.functional." + name;
  return s;
}
}  // namespace

void register_ops_conv(std::vector<OpSpec>& ops) {
  ops.push_back(conv("conv1d"));
  ops.push_back(conv("conv2d"));
}

}  // namespace dlfuzz
