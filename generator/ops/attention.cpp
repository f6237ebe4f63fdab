// scaled_dot_product_attention (PyTorch 2.x only): query (B.., L, E), key
// (B.., S, E), value (B.., S, Ev) give (B.., L, Ev), with an optional additive
// float mask or boolean mask broadcast to (L, S), or is_causal, and an
// optional scale. Batch dims (one or two: batch, heads) are equal in the three
// operands here; ATen would broadcast them. dropout_p stays 0 (no randomness)
// and enable_gqa false (key and value have the query's heads).
//
// flex_attention (PyTorch 2.x only): query (B, H, L, E), key (B, Hkv, S, E),
// value (B, Hkv, S, Ev) give (B, H, L, Ev), the scores changed by a named
// score_mod and the blocks skipped by a named mask_mod, both written in the
// Python runtime (_dlfuzz_flex_attention), with an optional scale. Hkv is H,
// or with enable_gqa a divisor of H (grouped-query attention). Some mods read
// a tensor the function captures, as models write them: a score bias table
// (`bias`: a learned (H, L, S) bias, a relative-position table, per-head
// slopes) or document ids (`doc_ids`) for the mask. Eager runs PyTorch's
// unfused reference; torch.compile lowers it to Inductor's fused
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
// The score and mask modifications _dlfuzz_flex_attention knows by name:
// those that read only the indices, those that read the captured `bias`
// (score) or `doc_ids` (mask) tensor.
const std::vector<std::string> kScoreMods = {"relative", "alibi", "softcap", "causal"};
const std::vector<std::string> kBiasMods = {"bias", "relative_bias", "head_slope"};
const std::vector<std::string> kMaskMods = {"causal", "sliding_window", "document"};
const std::string kDocumentIds = "document_ids";

// The shape of the table a bias mod reads, for H query heads, L queries and S keys.
Shape bias_shape(const std::string& mod, int64_t H, int64_t L, int64_t S) {
  if (mod == "bias") return {H, L, S};             // score + bias[h, q, kv]
  if (mod == "relative_bias") return {L + S - 1};  // score + bias[q - kv + S - 1]
  return {H};                                      // head_slope: score - bias[h] * |q - kv|
}

bool is_named(const std::vector<std::string>& known, const std::string& name) {
  return std::find(known.begin(), known.end(), name) != known.end();
}

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
  // Grouped-query attention: key and value heads divide the query's.
  TensorType grouped = *q;
  if (bool_arg(n, "enable_gqa", false)) {
    if (k->shape[1] == 0 || q->shape[1] % k->shape[1] != 0) return "with enable_gqa, key heads must divide query heads";
    grouped.shape[1] = k->shape[1];
  }
  if (auto e = key_value_error(grouped, *k, *v); !e.empty()) return e;
  int64_t H = q->shape[1], L = q->shape[2], S = k->shape[2];
  auto name_of = [&](const char* arg) {
    const Arg* a = n.arg(arg);
    const auto* name = a ? std::get_if<std::string>(&a->value) : nullptr;
    return name ? *name : std::string();
  };
  std::string score_mod = name_of("score_mod"), mask = name_of("block_mask");
  if (!score_mod.empty() && !is_named(kScoreMods, score_mod) && !is_named(kBiasMods, score_mod))
    return "score_mod must be one of relative, alibi, softcap, causal, bias, relative_bias, head_slope";
  if (!mask.empty() && !is_named(kMaskMods, mask) && mask != kDocumentIds)
    return "block_mask must be one of causal, sliding_window, document, document_ids";
  const TensorType* bias = tensor_arg(p, n, "bias");
  if (is_named(kBiasMods, score_mod) != (bias != nullptr))
    return "a bias tensor goes with a bias score_mod, and only with one";
  if (bias) {
    if (bias->dtype != q->dtype && bias->dtype != DType::f32) return "bias must have the query's dtype or float32";
    if (bias->shape != bias_shape(score_mod, H, L, S))
      return "bias of " + score_mod + " must be " + type_str({bias->dtype, bias_shape(score_mod, H, L, S)});
  }
  const TensorType* ids = tensor_arg(p, n, "doc_ids");
  if ((mask == kDocumentIds) != (ids != nullptr)) return "doc_ids go with block_mask document_ids, and only with it";
  if (ids && *ids != TensorType{DType::i64, {std::max(L, S)}})
    return "doc_ids must be i64[max(L, S)], not " + type_str(*ids);
  out = {{q->dtype, {q->shape[0], q->shape[1], q->shape[2], v->shape[3]}}};
  return "";
}

// A bias table of `shape`: a value already there or a new input, and half of
// the time computed in the program (a table a model derives before attention).
int draw_bias(GenContext& g, DType query_dtype, const Shape& shape) {
  Choices& c = g.choices();
  TensorType t{c.coin(0.75) ? query_dtype : DType::f32, shape};
  int b = g.pick_or_input([&](const TensorType& x) { return x == t; }, t);
  if (c.coin(0.5)) b = g.emit1(c.pick(std::vector<std::string>{"tanh", "sigmoid", "neg"}), {{"self", ValueRef{b}}});
  return b;
}

// Document ids of n tokens: an input, or half of the time computed as packed
// sequences compute them, a cumsum over document-start flags.
int draw_document_ids(GenContext& g, int64_t n) {
  if (g.choices().coin(0.5)) return g.new_index_input({n}, 3);
  int starts = g.new_index_input({n}, 2);
  return g.emit1("cumsum", {{"self", ValueRef{starts}}, {"dim", int64_t{0}}});
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
  const TensorType q = g.program().type(*qv);
  // Grouped-query attention on a quarter of the draws with heads to group.
  TensorType grouped = q;
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d < q.shape[1]; ++d)
    if (q.shape[1] % d == 0) divisors.push_back(d);
  bool gqa = !divisors.empty() && c.coin(0.25);
  if (gqa) grouped.shape[1] = c.pick(divisors);
  auto [k, v] = draw_key_value(g, grouped);
  int64_t H = q.shape[1], L = q.shape[2], S = g.program().type(k).shape[2];
  n.args = {{"query", ValueRef{*qv}}, {"key", ValueRef{k}}, {"value", ValueRef{v}}};
  if (c.coin(0.7)) {
    if (c.coin(0.35)) {
      std::string mod = c.pick(kBiasMods);
      n.args.push_back({"score_mod", mod});
      n.args.push_back({"bias", ValueRef{draw_bias(g, q.dtype, bias_shape(mod, H, L, S))}});
    } else {
      n.args.push_back({"score_mod", c.pick(kScoreMods)});
    }
  }
  if (c.coin(0.6)) {
    if (c.coin(0.25)) {
      n.args.push_back({"block_mask", kDocumentIds});
      n.args.push_back({"doc_ids", ValueRef{draw_document_ids(g, std::max(L, S))}});
    } else {
      n.args.push_back({"block_mask", c.pick(kMaskMods)});
    }
  }
  if (c.coin(0.3)) n.args.push_back({"scale", c.pick(kScales)});
  if (gqa) n.args.push_back({"enable_gqa", true});
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
              A("scale", ParamKind::float_, true),
              A("enable_gqa", ParamKind::bool_),
              {"bias", ParamKind::tensor, true, false},
              {"doc_ids", ParamKind::tensor, true, false}};
  f.infer = infer_flex;
  f.generate = gen_flex;
  f.float_only = true;
  f.torch2_only = true;
  f.python = "_dlfuzz_flex_attention";  // dlfuzz_runtime.py: the named mods, the block mask built
  ops.push_back(f);
}

}  // namespace dlfuzz
