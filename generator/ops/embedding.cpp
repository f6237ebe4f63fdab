// embedding(weight, indices): rows of a [num, dim] table gathered by an integer
// index tensor of any shape; the result is indices.shape + [dim]. Python spells
// it F.embedding(input, weight), indices first.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
std::string infer_embedding(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* w = tensor_arg(p, n, "weight");
  const TensorType* idx = tensor_arg(p, n, "indices");
  if (!w || !idx) return "embedding needs tensors weight and indices";
  if (w->rank() != 2) return "weight must be 2-d, not " + type_str(*w);
  if (is_bool(w->dtype) || (w->dtype == DType::i16 && p.target == Target::torch113))
    return std::string("dtype ") + dtype_name(w->dtype) + " not supported by embedding";
  if (idx->dtype != DType::i64 && idx->dtype != DType::i32) return "indices must be i64 or i32, not " + type_str(*idx);
  // ATen reads -1 as "no padding row", Python as the last row: only spell
  // non-negative ones, which mean the same to both.
  if (const Arg* pad = n.arg("padding_idx")) {
    auto* i = std::get_if<int64_t>(&pad->value);
    if (!i || *i < 0 || *i >= w->shape[0]) return "'padding_idx' must be a row of weight";
  }
  Shape shape = idx->shape;
  shape.push_back(w->shape[1]);
  out = {{w->dtype, shape}};
  return "";
}

bool gen_embedding(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  // The table: a trainable param (fresh or an existing 2-d float value).
  auto w = c.coin(0.5)
               ? g.pick([](const TensorType& t) { return is_float(t.dtype) && t.rank() == 2 && t.shape[0] > 0; })
               : std::nullopt;
  if (!w) {
    TensorType wt{g.random_float_dtype(), {c.range(1, 2 * g.policy().max_dim), c.range(1, g.policy().max_dim)}};
    w = g.new_param(wt, Init::uniform, -1, 1);
  }
  const int64_t rows = g.program().type(*w).shape[0];
  // Indices in [0, rows): an index tensor already in range, else i64 data folded
  // in by remainder (Python-style: non-negative for a positive divisor).
  std::optional<int> in_range;
  if (c.coin(0.5)) in_range = g.pick([&](const TensorType& t) { return t.dtype == DType::i64 && t.rank() <= 3; });
  if (in_range && !g.range_of(*in_range).within(0, double(rows - 1))) in_range.reset();
  int indices;
  if (in_range) {
    indices = *in_range;
  } else {
    int raw = g.new_input({DType::i64, g.random_shape(0, 3)});
    indices = g.emit1("remainder", {{"self", ValueRef{raw}}, {"other", rows}});
  }
  n.args = {{"weight", ValueRef{*w}}, {"indices", ValueRef{indices}}};
  // padding_idx only changes the gradient: that row gets none.
  if (g.training() && c.coin(0.2)) n.args.push_back({"padding_idx", int64_t(c.range(0, rows - 1))});
  if (g.training() && c.coin(0.1)) n.args.push_back({"scale_grad_by_freq", true});
  return true;
}
}  // namespace

void register_ops_embedding(std::vector<OpSpec>& ops) {
  OpSpec s;
  s.name = "embedding";
  s.family = "embedding";
  s.aten = "aten::embedding";
  // `sparse` is left out: sparse gradients don't reach the dense optimizers.
  s.params = {T("weight"), T("indices"), A("padding_idx", ParamKind::int_), A("scale_grad_by_freq", ParamKind::bool_)};
  s.infer = infer_embedding;
  s.generate = gen_embedding;
  s.bool_ok = false;
  s.python = "torch.nn.functional.embedding";
  s.python_positional = {"indices", "weight"};
  ops.push_back(s);
}

}  // namespace dlfuzz
