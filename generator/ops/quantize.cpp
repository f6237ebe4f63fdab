// Quantization-aware training's fake quantization:
// fake_quantize_per_tensor_affine(x, scale, zero_point, quant_min, quant_max)
// rounds x to the grid of an int8/uint8/int4 type and back, (clamp(round(x /
// scale) + zp, qmin, qmax) - zp) * scale, with a straight-through gradient
// (1 inside the range, 0 outside). What torch.ao's FakeQuantize modules call on
// weights and activations, and what torch.compile then decomposes. Float only;
// no f16/bf16 in 1.13 (it has f16, not bf16, but the two go together here).
#include <cmath>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
std::string infer_fake_quantize(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  for (const char* name : {"zero_point", "quant_min", "quant_max"}) {
    const Arg* a = n.arg(name);
    if (!a || !std::holds_alternative<int64_t>(a->value)) return std::string("'") + name + "' must be an int";
  }
  const Arg* s = n.arg("scale");
  if (!s || !std::holds_alternative<double>(s->value)) return "'scale' must be a float";
  double scale = std::get<double>(s->value);
  if (!(scale > 0) || !std::isfinite(scale)) return "'scale' must be positive";
  int64_t zp = int_arg(n, "zero_point", 0), qmin = int_arg(n, "quant_min", 0), qmax = int_arg(n, "quant_max", 0);
  if (qmin > qmax) return "quant_min must be <= quant_max";
  if (zp < qmin || zp > qmax) return "zero_point must lie between quant_min and quant_max";
  out = {*self};
  return "";
}

// The integer grids QAT uses: uint8 and int8 activations and weights, int4
// weights (as LLM QAT does), and int8's symmetric restricted range.
struct Grid {
  int64_t qmin, qmax;
};
const Grid kGrids[] = {{0, 255}, {-128, 127}, {-8, 7}, {0, 15}, {-127, 127}};

bool gen_fake_quantize(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_unary(g, s, n)) return false;  // the operand made finite (the spec's domain)
  int v = std::get<ValueRef>(n.args[0].value).id;
  Choices& c = g.choices();
  const Grid grid = kGrids[c.below(std::size(kGrids))];
  // Symmetric (zero point in the middle of a signed grid) or affine.
  int64_t zp = grid.qmin < 0 && c.coin(0.6) ? 0 : c.range(grid.qmin, grid.qmax);
  n.args = {{"self", ValueRef{v}},
            {"scale", c.pick(std::vector<double>{0.01, 0.03125, 0.05, 0.1, 0.25})},
            {"zero_point", zp},
            {"quant_min", grid.qmin},
            {"quant_max", grid.qmax}};
  return true;
}
}  // namespace

void register_ops_quantize(std::vector<OpSpec>& ops) {
  OpSpec s;
  s.name = "fake_quantize_per_tensor_affine";
  s.family = "quantize";
  s.aten = "aten::fake_quantize_per_tensor_affine";
  s.params = {T("self"), A("scale", ParamKind::float_), A("zero_point", ParamKind::int_),
              A("quant_min", ParamKind::int_), A("quant_max", ParamKind::int_)};
  s.infer = infer_fake_quantize;
  s.generate = gen_fake_quantize;
  // The kernels turn x / scale into an int64: a NaN or an infinity there is
  // undefined in C++.
  s.domain = Domain::finite;
  s.float_only = true;
  s.half_ok = false;
  s.python = "torch.fake_quantize_per_tensor_affine";
  s.python_positional = {"self", "scale", "zero_point", "quant_min", "quant_max"};
  ops.push_back(s);
}

}  // namespace dlfuzz
