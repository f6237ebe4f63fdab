// scaled_dot_product_attention (PyTorch 2.x only): query (B.., L, E), key
// (B.., S, E), value (B.., S, Ev) give (B.., L, Ev), with an optional additive
// float mask or boolean mask broadcast to (L, S), or is_causal, and an
// optional scale. Batch dims (one or two: batch, heads) are equal in the three
// operands here; ATen would broadcast them. dropout_p stays 0 (no randomness)
// and enable_gqa false (key and value have the query's heads).
//
// flex_attention (PyTorch 2.x only): query (B, H, L, E), key (B, H, S, E),
// value (B, H, S, Ev) give (B, H, L, Ev), the scores changed by a named
// score_mod and the blocks skipped by a named mask_mod, both written in the
// Python runtime (_dlfuzz_flex_attention), with an optional scale. Eager runs
// PyTorch's unfused reference; torch.compile lowers it to Inductor's fused
// flex-attention template. On the CPU PyTorch has no backward for it and
// compiles float32 and the half types only: inference programs, no float64 there.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// What the two attention ops' operands share, once their ranks agree: equal
// batch dims (and heads), the key's last dim the query's, the value's
// sequence length the key's.
std::string key_value_error(const TensorType& q, const TensorType& k, const TensorType& v) {
  int r = q.rank();
  for (int d = 0; d < r - 2; ++d)
    if (k.shape[d] != q.shape[d] || v.shape[d] != q.shape[d]) return "batch dims of query, key, value differ";
  if (k.shape[r - 1] != q.shape[r - 1]) return "key's last dim must equal query's";
  if (v.shape[r - 2] != k.shape[r - 2]) return "value and key must have one sequence length";
  return "";
}

// A key (.., S, E) and value (.., S, Ev) for query q (.., L, E): S is L or
// drawn, Ev is E or drawn, each a value of that type already there or a new
// input. {key, value}. q by value: a new input may move the program's types.
std::pair<int, int> draw_key_value(GenContext& g, TensorType q) {
  Choices& c = g.choices();
  int r = q.rank();
  Shape kshape = q.shape, vshape = q.shape;
  kshape[r - 2] = vshape[r - 2] = c.coin(0.5) ? q.shape[r - 2] : g.random_dim() + 1;
  vshape[r - 1] = c.coin(0.6) ? q.shape[r - 1] : g.random_dim() + 1;
  int k = g.pick_or_input([&](const TensorType& t) { return t == TensorType{q.dtype, kshape}; }, {q.dtype, kshape});
  int v = g.pick_or_input([&](const TensorType& t) { return t == TensorType{q.dtype, vshape}; }, {q.dtype, vshape});
  return {k, v};
}

const std::vector<double> kScales = {0.125, 0.5, 1.0, 2.0};

std::string infer_sdpa(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* q = tensor_arg(p, n, "query");
  const TensorType* k = tensor_arg(p, n, "key");
  const TensorType* v = tensor_arg(p, n, "value");
  if (!q || !k || !v) return "sdpa needs tensors query, key and value";
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, q->dtype, p.target))
    return std::string("dtype ") + dtype_name(q->dtype) + " not supported by " + n.op;
  if (k->dtype != q->dtype || v->dtype != q->dtype) return "query, key and value must have one dtype";
  if (q->rank() < 3 || q->rank() > 4) return "query must have rank 3 or 4, not " + type_str(*q);
  if (k->rank() != q->rank() || v->rank() != q->rank()) return "query, key and value must have one rank";
  if (auto e = key_value_error(*q, *k, *v); !e.empty()) return e;
  int r = q->rank();
  int64_t L = q->shape[r - 2], S = k->shape[r - 2];
  if (const Arg* m = n.arg("attn_mask"); m && !std::holds_alternative<None>(m->value)) {
    const TensorType* mt = tensor_arg(p, n, "attn_mask");
    if (!mt) return "'attn_mask' must be a tensor or None";
    if (mt->dtype != DType::b8 && mt->dtype != q->dtype) return "attn_mask must be bool or the query's dtype";
    if (*mt != TensorType{mt->dtype, {L, S}})
      return "attn_mask must be [L, S] = [" + std::to_string(L) + "," + std::to_string(S) + "], not " + type_str(*mt);
    if (bool_arg(n, "is_causal", false)) return "attn_mask and is_causal=True together";
  }
  if (float_arg(n, "dropout_p", 0.0) != 0.0) return "dropout_p must be 0 here (no randomness)";
  Shape shape = q->shape;
  shape.back() = v->shape.back();
  out = {{q->dtype, shape}};
  return "";
}

bool gen_sdpa(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  auto fits = [&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && (t.rank() == 3 || t.rank() == 4) && t.numel() > 0;
  };
  auto qv = g.first(fits);
  if (!qv) {
    if (g.focus()) return false;
    qv = g.new_input({g.random_float_dtype(), g.random_shape(3, 4)});
    if (!fits(g.program().type(*qv))) return false;
  }
  const TensorType q = g.program().type(*qv);
  int r = q.rank();
  auto [k, v] = draw_key_value(g, q);
  int64_t S = g.program().type(k).shape[r - 2];
  n.args = {{"query", ValueRef{*qv}}, {"key", ValueRef{k}}, {"value", ValueRef{v}}};
  int pick = c.weighted({4, 3, 1, 2});  // none, float mask, bool mask, causal
  if (pick == 1) n.args.push_back({"attn_mask", ValueRef{g.new_input({q.dtype, {q.shape[r - 2], S}})}});
  if (pick == 2) n.args.push_back({"attn_mask", ValueRef{g.new_input({DType::b8, {q.shape[r - 2], S}})}});
  if (pick == 3) n.args.push_back({"is_causal", true});
  if (c.coin(0.3)) n.args.push_back({"scale", c.pick(kScales)});
  return true;
}
// The score and mask modifications _dlfuzz_flex_attention knows by name.
const std::vector<std::string> kScoreMods = {"relative", "alibi", "softcap", "causal"};
const std::vector<std::string> kMaskMods = {"causal", "sliding_window", "document"};

std::string infer_flex(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* q = tensor_arg(p, n, "query");
  const TensorType* k = tensor_arg(p, n, "key");
  const TensorType* v = tensor_arg(p, n, "value");
  if (!q || !k || !v) return "flex_attention needs tensors query, key and value";
  if (!is_float(q->dtype)) return std::string("dtype ") + dtype_name(q->dtype) + " not supported by flex_attention";
  if (k->dtype != q->dtype || v->dtype != q->dtype) return "query, key and value must have one dtype";
  if (p.device == "cpu" && q->dtype == DType::f64)
    return "flex_attention compiles float32, float16 and bfloat16 only on the CPU";
  if (p.device == "cpu" && p.is_training()) return "flex_attention has no backward on the CPU";
  if (p.autocast) return "flex_attention under autocast is not modelled";
  if (q->rank() != 4 || k->rank() != 4 || v->rank() != 4) return "query, key and value must have rank 4";
  if (auto e = key_value_error(*q, *k, *v); !e.empty()) return e;
  auto named = [&](const char* arg, const std::vector<std::string>& known) {
    const Arg* a = n.arg(arg);
    if (!a || std::holds_alternative<None>(a->value)) return true;
    const auto* name = std::get_if<std::string>(&a->value);
    return name && std::find(known.begin(), known.end(), *name) != known.end();
  };
  if (!named("score_mod", kScoreMods)) return "score_mod must be one of relative, alibi, softcap, causal";
  if (!named("block_mask", kMaskMods)) return "block_mask must be one of causal, sliding_window, document";
  out = {{q->dtype, {q->shape[0], q->shape[1], q->shape[2], v->shape[3]}}};
  return "";
}

bool gen_flex(GenContext& g, const OpSpec& s, Node& n) {
  const Program& p = g.program();
  if (p.is_training() || p.autocast) return false;
  Choices& c = g.choices();
  auto fits = [&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, p.target) && t.dtype != DType::f64 && t.rank() == 4 && t.numel() > 0;
  };
  auto qv = g.first(fits);
  if (!qv) {
    if (g.focus()) return false;
    DType dt = g.random_float_dtype();
    if (dt == DType::f64) dt = DType::f32;
    qv = g.new_input({dt, g.random_shape(4, 4)});
    if (!fits(g.program().type(*qv))) return false;
  }
  auto [k, v] = draw_key_value(g, g.program().type(*qv));
  n.args = {{"query", ValueRef{*qv}}, {"key", ValueRef{k}}, {"value", ValueRef{v}}};
  if (c.coin(0.7)) n.args.push_back({"score_mod", c.pick(kScoreMods)});
  if (c.coin(0.6)) n.args.push_back({"block_mask", c.pick(kMaskMods)});
  if (c.coin(0.3)) n.args.push_back({"scale", c.pick(kScales)});
  return true;
}
}  // namespace

void register_ops_attention(std::vector<OpSpec>& ops) {
  OpSpec s;
  s.name = "scaled_dot_product_attention";
  s.family = "attention";
  s.aten = "aten::scaled_dot_product_attention";
  s.params = {T("query"),
              T("key"),
              T("value"),
              {"attn_mask", ParamKind::tensor, true, false},
              A("dropout_p", ParamKind::float_),
              A("is_causal", ParamKind::bool_),
              A("scale", ParamKind::float_, true)};
  s.infer = infer_sdpa;
  s.generate = gen_sdpa;
  s.float_only = true;
  s.torch2_only = true;
  // The CPU flash kernel's backward reads its output: writing it in place
  // breaks backward where eager picked the math kernel (a campaign's
  // first SDPA finding, not a compiler bug).
  s.saves_output = true;
  s.python = "torch.nn.functional.scaled_dot_product_attention";
  ops.push_back(s);

  OpSpec f;
  f.name = "flex_attention";
  f.family = "attention";
  f.aten = "higher_order::flex_attention";
  f.params = {T("query"),
              T("key"),
              T("value"),
              A("score_mod", ParamKind::str, true),
              A("block_mask", ParamKind::str, true),
              A("scale", ParamKind::float_, true)};
  f.infer = infer_flex;
  f.generate = gen_flex;
  f.float_only = true;
  f.torch2_only = true;
  f.python = "_dlfuzz_flex_attention";  // dlfuzz_runtime.py: the named mods, the block mask built
  ops.push_back(f);
}

}  // namespace dlfuzz
