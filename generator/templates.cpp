#include "generator/templates.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace dlfuzz {

namespace {
using Args = std::vector<Arg>;

ArgValue ref(int v) { return ValueRef{v}; }

// A dim of at least 1: a template's weights and reshapes need non-empty tensors.
int64_t dim(GenContext& g) { return std::max<int64_t>(1, g.random_dim()); }

bool plain_float(const TensorType& t) { return is_float(t.dtype) && t.numel() > 0; }

// A float value of rank `rank` (and, when given, last dim `last`) to start from,
// else a fresh input of `fresh`.
int start_value(GenContext& g, int rank, const TensorType& fresh) {
  auto fits = [&](const TensorType& t) { return plain_float(t) && t.rank() == rank && t.dtype == fresh.dtype; };
  if (g.choices().coin(0.6))
    if (auto v = g.pick(fits)) return *v;
  return g.new_input(fresh);
}

// The dtype a block starts in: under autocast float32, as mixed-precision
// models hold their inputs and params (autocast casts what each op computes in).
DType block_dtype(GenContext& g) { return g.program().autocast ? DType::f32 : g.random_float_dtype(false); }

// A param's dtype for a value of dtype t: t, except that under autocast the
// model's params stay float32 whatever half dtype its activations have.
DType param_dtype(GenContext& g, DType t) {
  return g.program().autocast && is_half(t) ? DType::f32 : t;
}

int weight(GenContext& g, DType t, const Shape& shape, double scale) {
  return g.new_param({t, shape}, Init::uniform, -scale, scale);
}

// nn.Linear: weight [out, in] scaled like its default init, bias sometimes.
int linear(GenContext& g, int x, int64_t out, bool bias) {
  const TensorType t = g.program().type(x);
  double scale = 1.0 / std::sqrt(static_cast<double>(t.shape.back()));
  Args args = {{"input", ref(x)}, {"weight", ref(weight(g, param_dtype(g, t.dtype), {out, t.shape.back()}, scale))}};
  if (bias) args.push_back({"bias", ref(weight(g, param_dtype(g, t.dtype), {out}, scale))});
  return g.emit1("linear", args);
}

// LayerNorm over the last dim, or RMSNorm where the target has it.
int norm_last(GenContext& g, int x) {
  const TensorType t = g.program().type(x);
  IntList ns = {t.shape.back()};
  int w = g.new_param({param_dtype(g, t.dtype), ns}, Init::ones, 1, 1);
  if (g.program().target == Target::torch2 && g.choices().coin(0.4))
    return g.emit1("rms_norm", {{"input", ref(x)}, {"normalized_shape", ns}, {"weight", ref(w)}});
  int b = g.new_param({param_dtype(g, t.dtype), ns}, Init::zeros, 0, 0);
  return g.emit1("layer_norm", {{"input", ref(x)}, {"normalized_shape", ns}, {"weight", ref(w)}, {"bias", ref(b)}});
}

// [B, T, H*hd] -> [B, H, T, hd]
int split_heads(GenContext& g, int x, int64_t heads) {
  const Shape s = g.program().type(x).shape;
  int r = g.emit1("reshape", {{"self", ref(x)}, {"shape", IntList{s[0], s[1], heads, s[2] / heads}}});
  return g.emit1("transpose", {{"self", ref(r)}, {"dim0", int64_t(1)}, {"dim1", int64_t(2)}});
}

// Attention as people wrote it before SDPA: q k^T / sqrt(hd), a learned
// position bias added (when `bias` >= 0) or a causal mask filled with -inf (or a
// large negative number), softmax, times v.
int written_attention(GenContext& g, int q, int k, int v, bool causal, int bias) {
  Choices& c = g.choices();
  const TensorType qt = g.program().type(q);
  int kt = g.emit1("transpose", {{"self", ref(k)}, {"dim0", int64_t(-2)}, {"dim1", int64_t(-1)}});
  int scores = g.emit1("matmul", {{"self", ref(q)}, {"other", ref(kt)}});
  scores = g.emit1("mul", {{"self", ref(scores)}, {"other", 1.0 / std::sqrt(static_cast<double>(qt.shape.back()))}});
  if (bias >= 0) scores = g.emit1("add", {{"self", ref(scores)}, {"other", ref(bias)}});
  if (causal) {
    int ones = g.emit1("ones_like", {{"self", ref(scores)}});
    int lower = g.emit1("tril", {{"self", ref(ones)}});
    int masked = g.emit1("eq", {{"self", ref(lower)}, {"other", 0.0}});
    // -inf as in most code, when the value policy allows special numbers.
    bool inf = g.policy().p_special_values > 0 && c.coin(0.5);
    // Else -1e9, or float16's lowest (-1e9 overflows it: masked_fill refuses).
    double fill = inf                                            ? -std::numeric_limits<double>::infinity()
                  : g.program().type(scores).dtype == DType::f16 ? -65504.0
                                                                 : -1e9;
    scores = g.emit1("masked_fill", {{"self", ref(scores)}, {"mask", ref(masked)}, {"value", fill}});
  }
  int probs = g.emit1("softmax", {{"self", ref(scores)}, {"dim", int64_t(-1)}});
  return g.emit1("matmul", {{"self", ref(probs)}, {"other", ref(v)}});
}

// F.batch_norm spelled out (ATen's has no defaults): on batch stats when no
// running stats are given, else in eval mode on them.
int batch_norm(GenContext& g, int x, int w, int b, ArgValue mean = None{}, ArgValue var = None{}) {
  bool training = std::holds_alternative<None>(mean);
  return g.emit1("batch_norm", {{"input", ref(x)},
                                {"weight", ref(w)},
                                {"bias", ref(b)},
                                {"running_mean", mean},
                                {"running_var", var},
                                {"training", training},
                                {"momentum", 0.1},
                                {"eps", 1e-5},
                                {"cudnn_enabled", true}});
}

// The norm after a conv or linear in inference: nn.BatchNorm in eval mode
// (its running stats as params), or a frozen per-channel scale and shift as
// torchvision's FrozenBatchNorm2d (x * scale + shift, [1, C, 1, 1] after a
// conv, [1, C] after a linear); the shapes freezing folds into the layer.
int eval_norm(GenContext& g, int y) {
  const TensorType t = g.program().type(y);
  if (g.choices().coin(0.5)) {
    TensorType feat{param_dtype(g, t.dtype), {t.shape[1]}};
    int w = g.new_param(feat, Init::uniform, 0.5, 1.5);
    int b = g.new_param(feat, Init::uniform, -0.5, 0.5);
    int mean = g.new_param(feat, Init::uniform, -1, 1);
    int var = g.new_param(feat, Init::uniform, 0.5, 2);
    return batch_norm(g, y, w, b, ref(mean), ref(var));
  }
  TensorType channel{param_dtype(g, t.dtype), Shape(t.rank(), 1)};
  channel.shape[1] = t.shape[1];
  int scaled = g.emit1("mul", {{"self", ref(y)}, {"other", ref(g.new_param(channel, Init::uniform, 0.5, 1.5))}});
  return g.emit1("add", {{"self", ref(scaled)}, {"other", ref(g.new_param(channel, Init::uniform, -0.5, 0.5))}});
}

// nn.Conv2d with stride 1 and "same" padding: weight [out, C/groups, k, k]
// scaled like its default init, bias sometimes.
int conv2d(GenContext& g, int x, int64_t out, int64_t kernel, int64_t groups) {
  const TensorType t = g.program().type(x);
  int64_t cin = t.shape[1];
  double scale = 1.0 / std::sqrt(static_cast<double>(cin / groups * kernel * kernel));
  Args conv = {{"input", ref(x)},
               {"weight", ref(weight(g, param_dtype(g, t.dtype), {out, cin / groups, kernel, kernel}, scale))}};
  if (g.choices().coin(0.5)) conv.push_back({"bias", ref(weight(g, param_dtype(g, t.dtype), {out}, scale))});
  conv.push_back({"stride", IntList{1, 1}});
  conv.push_back({"padding", IntList{kernel / 2, kernel / 2}});
  conv.push_back({"dilation", IntList{1, 1}});
  conv.push_back({"groups", groups});
  return g.emit1("conv2d", conv);
}

// The norm after a conv: in inference what deployed models hold (eval_norm);
// in training batch norm on batch stats, else group norm, where the map has
// more than one value per channel to normalize.
int conv_norm(GenContext& g, int y) {
  if (!g.training()) return eval_norm(g, y);
  const TensorType t = g.program().type(y);
  TensorType feat{param_dtype(g, t.dtype), {t.shape[1]}};
  int w = g.new_param(feat, Init::ones, 1, 1), b = g.new_param(feat, Init::zeros, 0, 0);
  if (t.shape[0] * t.shape[2] * t.shape[3] > 1 && g.choices().coin(0.6)) return batch_norm(g, y, w, b);
  if (t.shape[2] * t.shape[3] > 1)
    return g.emit1("group_norm", {{"input", ref(y)}, {"num_groups", int64_t(1)}, {"weight", ref(w)}, {"bias", ref(b)}});
  return y;
}

// torch.ao's FakeQuantize on a value: x rounded to a grid of `qmin..qmax` with
// step `scale` and back, x made finite first as the op's domain asks.
int fake_quantize(GenContext& g, int x, double scale, int64_t zero_point, int64_t qmin, int64_t qmax) {
  x = g.in_domain(x, Domain::finite);
  return g.emit1(
      "fake_quantize_per_tensor_affine",
      {{"self", ref(x)}, {"scale", scale}, {"zero_point", zero_point}, {"quant_min", qmin}, {"quant_max", qmax}});
}

// A uint8 activation's observed range, as an observer's scale and zero point.
int quantize_activation(GenContext& g, int x) {
  Choices& c = g.choices();
  return fake_quantize(g, x, c.pick(std::vector<double>{0.01, 0.02, 0.05, 0.1}), c.range(0, 255), 0, 255);
}
}  // namespace

int transformer_block(GenContext& g) {
  Choices& c = g.choices();
  DType dt = block_dtype(g);  // half only where the target has it in every op used
  int64_t heads = c.pick(std::vector<int64_t>{1, 2, 4});
  int64_t hd = c.pick(std::vector<int64_t>{2, 4, 8});
  int64_t d = heads * hd;
  int x = start_value(g, 3, {dt, {dim(g), dim(g), d}});
  const TensorType xt = g.program().type(x);
  if (xt.shape.back() != d) return -1;
  bool bias = c.coin(0.5), causal = c.coin(0.6);
  int h = norm_last(g, x);
  int q = split_heads(g, linear(g, h, d, bias), heads);
  int k = split_heads(g, linear(g, h, d, bias), heads);
  int v = split_heads(g, linear(g, h, d, bias), heads);
  // A learned position bias [T, T] added to the scores (T5, ALiBi), where not causal.
  int bias_param = -1;
  if (!causal && c.coin(0.4)) bias_param = weight(g, dt, {xt.shape[1], xt.shape[1]}, 1.0);
  int a;
  if (g.program().target == Target::torch2 && c.coin(0.6)) {
    Args sdpa = {{"query", ref(q)}, {"key", ref(k)}, {"value", ref(v)}};
    if (bias_param >= 0) sdpa.push_back({"attn_mask", ref(bias_param)});
    sdpa.push_back({"is_causal", causal});
    a = g.emit1("scaled_dot_product_attention", sdpa);
  } else {
    a = written_attention(g, q, k, v, causal, bias_param);
  }
  a = g.emit1("transpose", {{"self", ref(a)}, {"dim0", int64_t(1)}, {"dim1", int64_t(2)}});
  a = g.emit1("reshape", {{"self", ref(a)}, {"shape", IntList{xt.shape[0], xt.shape[1], d}}});
  int r = g.emit1("add", {{"self", ref(x)}, {"other", ref(linear(g, a, d, bias))}});
  // MLP: GELU (exact or tanh) or SwiGLU.
  int m = norm_last(g, r);
  int64_t hidden = d * c.pick(std::vector<int64_t>{2, 4});
  int act;
  if (c.coin(0.5)) {
    Args gelu = {{"self", ref(linear(g, m, hidden, bias))}};
    if (c.coin(0.5)) gelu.push_back({"approximate", std::string("tanh")});
    act = g.emit1("gelu", gelu);
  } else {
    int gate = g.emit1("silu", {{"self", ref(linear(g, m, hidden, false))}});
    act = g.emit1("mul", {{"self", ref(gate)}, {"other", ref(linear(g, m, hidden, false))}});
  }
  return g.emit1("add", {{"self", ref(r)}, {"other", ref(linear(g, act, d, bias))}});
}

int conv_block(GenContext& g) {
  Choices& c = g.choices();
  DType dt = block_dtype(g);  // half only where the target has it in every op used
  int x = start_value(g, 4, {dt, {dim(g), dim(g), dim(g) + 2, dim(g) + 2}});
  const TensorType xt = g.program().type(x);
  int64_t cin = xt.shape[1], cout = c.coin(0.5) ? cin : dim(g);
  int64_t kernel = xt.shape[2] >= 3 && xt.shape[3] >= 3 && c.coin(0.7) ? 3 : 1;
  // Depthwise, as in MobileNet, when the channels stay.
  int64_t groups = cout == cin && cin > 1 && c.coin(0.3) ? cin : 1;
  int y = conv_norm(g, conv2d(g, x, cout, kernel, groups));
  std::vector<std::string> acts = {"relu", "silu", "gelu"};
  if (!g.training()) acts.push_back("hardswish");
  y = g.emit1(c.pick(acts), {{"self", ref(y)}});
  if (cout == cin && c.coin(0.6)) return g.emit1("add", {{"self", ref(x)}, {"other", ref(y)}});
  if (xt.shape[2] >= 2 && xt.shape[3] >= 2 && c.coin(0.5))
    y = g.emit1("max_pool2d", {{"self", ref(y)}, {"kernel_size", IntList{2, 2}}, {"stride", IntList{2, 2}}});
  return y;
}

int decoder_block(GenContext& g) {
  Choices& c = g.choices();
  DType dt = block_dtype(g);  // half only where the target has it in every op used
  int x = start_value(g, 4, {dt, {dim(g), dim(g), dim(g), dim(g)}});
  const TensorType xt = g.program().type(x);
  int64_t cout = dim(g);
  Shape big = {xt.shape[0], cout, 2 * xt.shape[2], 2 * xt.shape[3]};
  int up;
  if (c.coin(0.5)) {  // nn.ConvTranspose2d(C, out, 2, stride=2)
    double scale = 1.0 / std::sqrt(static_cast<double>(cout * 4));
    Args args = {{"input", ref(x)}, {"weight", ref(weight(g, dt, {xt.shape[1], cout, 2, 2}, scale))}};
    if (c.coin(0.5)) args.push_back({"bias", ref(weight(g, dt, {cout}, scale))});
    args.push_back({"stride", IntList{2, 2}});
    args.push_back({"padding", IntList{0, 0}});
    up = g.emit1("conv_transpose2d", args);
  } else {  // nn.Upsample(scale_factor=2) then a 1x1 conv to the decoder's channels
    Args args = {{"self", ref(x)}, {"output_size", IntList{big[2], big[3]}}};
    std::string mode = c.coin(0.5) ? "upsample_nearest2d" : "upsample_bilinear2d";
    if (mode == "upsample_bilinear2d") args.push_back({"align_corners", c.coin(0.5)});
    up = conv2d(g, g.emit1(mode, args), cout, 1, 1);
  }
  // The encoder's feature map at the larger size: concatenated on channels
  // (UNet), or added after a 1x1 lateral conv (FPN).
  int skip = g.new_input({dt, {big[0], dim(g), big[2], big[3]}});
  int joined = c.coin(0.6) ? g.emit1("cat", {{"tensors", ValueList{{up, skip}}}, {"dim", int64_t(1)}})
                           : g.emit1("add", {{"self", ref(up)}, {"other", ref(conv2d(g, skip, cout, 1, 1))}});
  int y = conv_norm(g, conv2d(g, joined, cout, 3, 1));
  return g.emit1(c.coin(0.7) ? "relu" : "silu", {{"self", ref(y)}});
}

int mlp_block(GenContext& g) {
  Choices& c = g.choices();
  DType dt = block_dtype(g);  // half only where the target has it in every op used
  int x = start_value(g, 2, {dt, {dim(g) + 1, dim(g)}});
  int h = linear(g, x, dim(g) + 1, c.coin(0.7));
  const TensorType ht = g.program().type(h);
  if (!g.training()) {
    h = eval_norm(g, h);
  } else if (ht.shape[0] > 1 && c.coin(0.5)) {
    TensorType feat{param_dtype(g, ht.dtype), {ht.shape[1]}};
    int w = g.new_param(feat, Init::ones, 1, 1);
    int b = g.new_param(feat, Init::zeros, 0, 0);
    h = batch_norm(g, h, w, b);
  }
  h = g.emit1(c.pick(std::vector<std::string>{"relu", "gelu", "silu", "sigmoid"}), {{"self", ref(h)}});
  return linear(g, h, dim(g), c.coin(0.5));
}

int qat_block(GenContext& g) {
  Choices& c = g.choices();
  DType dt = block_dtype(g);  // fake quantization has no f16/bf16 in 1.13
  bool conv = c.coin(0.5);
  int x = conv ? start_value(g, 4, {dt, {dim(g), dim(g), dim(g) + 2, dim(g) + 2}})
               : start_value(g, 2, {dt, {dim(g) + 1, dim(g)}});
  const TensorType xt = g.program().type(x);
  int64_t cin = xt.shape[1], cout = dim(g),
          kernel = conv && xt.shape[2] >= 3 && xt.shape[3] >= 3 && c.coin(0.6) ? 3 : 1;
  Shape wshape = conv ? Shape{cout, cin, kernel, kernel} : Shape{cout, cin};
  double bound = 1.0 / std::sqrt(static_cast<double>(cin * kernel * kernel));
  int w = weight(g, dt, wshape, bound);
  // Weights symmetric per tensor: int8 (full or restricted range) or int4;
  // the scale an observer of the init range would give.
  int64_t qmax = c.pick(std::vector<int64_t>{127, 127, 7});
  int64_t qmin = qmax == 7 ? -8 : (c.coin(0.5) ? -128 : -127);
  int wq = fake_quantize(g, w, bound / static_cast<double>(qmax), 0, qmin, qmax);
  Args args = {{"input", ref(quantize_activation(g, x))}, {"weight", ref(wq)}};
  if (c.coin(0.6)) args.push_back({"bias", ref(weight(g, dt, {cout}, bound))});
  if (conv) {
    args.push_back({"stride", IntList{1, 1}});
    args.push_back({"padding", IntList{kernel / 2, kernel / 2}});
    args.push_back({"dilation", IntList{1, 1}});
    args.push_back({"groups", int64_t(1)});
  }
  int y = g.emit1(conv ? "conv2d" : "linear", args);
  y = g.emit1(c.pick(std::vector<std::string>{"relu", "relu", "hardswish", "silu"}), {{"self", ref(y)}});
  return quantize_activation(g, y);
}

int embedding_head(GenContext& g) {
  Choices& c = g.choices();
  DType dt = block_dtype(g);  // half only where the target has it in every op used
  int64_t vocab = c.range(4, 12), d = c.pick(std::vector<int64_t>{4, 8}), b = dim(g), t = dim(g);
  int ids = g.new_index_input({b, t}, vocab);
  int table = g.new_param({dt, {vocab, d}}, Init::normal, 0, 1);
  int h = g.emit1("embedding", {{"weight", ref(table)}, {"indices", ref(ids)}});
  h = norm_last(g, h);
  int logits;
  if (c.coin(0.4)) {  // weights tied to the embedding, as in GPT-2
    logits = g.emit1("linear", {{"input", ref(h)}, {"weight", ref(table)}});
  } else {
    logits = linear(g, h, vocab, c.coin(0.5));
  }
  return g.emit1("reshape", {{"self", ref(logits)}, {"shape", IntList{b * t, vocab}}});
}

int recurrent_cell(GenContext& g) {
  Choices& c = g.choices();
  DType dt = block_dtype(g);  // half only where the target has it in every op used
  int64_t steps = c.range(2, 4);
  int x = start_value(g, 3, {dt, {steps, dim(g), dim(g)}});
  const TensorType xt = g.program().type(x);
  steps = std::min<int64_t>(xt.shape[0], 4);
  int64_t batch = xt.shape[1], hidden = dim(g) + 1;
  int h = g.new_input({dt, {batch, hidden}});
  bool gru = c.coin(0.5);
  // One set of weights shared by every step, as in nn.RNNCell / nn.GRUCell.
  double scale = 1.0 / std::sqrt(static_cast<double>(hidden));
  auto weights = [&] {
    return std::pair<int, int>{weight(g, dt, {hidden, xt.shape[2]}, scale), weight(g, dt, {hidden, hidden}, scale)};
  };
  auto [wx, wh] = weights();
  std::pair<int, int> gate{-1, -1};
  if (gru) gate = weights();
  int bias = weight(g, dt, {hidden}, scale);
  std::vector<int> outs;
  for (int64_t s = 0; s < steps; ++s) {
    int xs = g.emit1("select", {{"self", ref(x)}, {"dim", int64_t(0)}, {"index", s}});
    auto affine = [&](int wxi, int whi) {
      int a = g.emit1("linear", {{"input", ref(xs)}, {"weight", ref(wxi)}, {"bias", ref(bias)}});
      return g.emit1("add",
                     {{"self", ref(a)}, {"other", ref(g.emit1("linear", {{"input", ref(h)}, {"weight", ref(whi)}}))}});
    };
    int cand = g.emit1("tanh", {{"self", ref(affine(wx, wh))}});
    if (gru) {  // h = lerp(h, cand, z), z = sigmoid(...)
      int z = g.emit1("sigmoid", {{"self", ref(affine(gate.first, gate.second))}});
      if (g.program().type(cand).dtype == g.program().type(h).dtype) {
        h = g.emit1("lerp", {{"self", ref(h)}, {"end", ref(cand)}, {"weight", ref(z)}});
      } else {  // under autocast the state stays float32 and cand is bf16: lerp wants one dtype
        int step = g.emit1(
            "mul", {{"self", ref(z)}, {"other", ref(g.emit1("sub", {{"self", ref(cand)}, {"other", ref(h)}}))}});
        h = g.emit1("add", {{"self", ref(h)}, {"other", ref(step)}});
      }
    } else {
      h = cand;
    }
    outs.push_back(h);
  }
  if (c.coin(0.5)) return h;
  return g.emit1("stack", {{"tensors", ValueList{outs}}, {"dim", int64_t(0)}});
}

namespace {
// Every template by name, in the order the random draw indexes them.
struct Template {
  const char* name;
  int (*build)(GenContext&);
};
const Template kTemplates[] = {{"transformer_block", transformer_block},
                               {"conv_block", conv_block},
                               {"embedding_head", embedding_head},
                               {"recurrent_cell", recurrent_cell},
                               {"mlp_block", mlp_block},
                               {"decoder_block", decoder_block},
                               {"qat_block", qat_block}};
}  // namespace

const std::vector<std::string>& template_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& t : kTemplates) all.push_back(t.name);
    return all;
  }();
  return names;
}

int random_template(GenContext& g, std::string* name) {
  const auto& chosen = g.policy().templates;  // names check_policy_ops accepted
  std::string picked = chosen.empty() ? kTemplates[g.choices().below(std::size(kTemplates))].name
                                      : chosen[g.choices().below(chosen.size())];
  if (name) *name = picked;
  for (const auto& t : kTemplates)
    if (picked == t.name) return t.build(g);
  return -1;
}

}  // namespace dlfuzz
