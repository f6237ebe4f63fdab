// Sampling at coordinates: grid_sampler (F.grid_sample: bilinear, nearest or
// bicubic; zeros, border or reflection padding) and affine_grid_generator
// (F.affine_grid), which makes such grids from [N, 2, 3] transforms. PyTorch
// 2.x decomposes both (the out-of-range, padding and align_corners arithmetic
// is its own code in Inductor). 4-d inputs only; float only.
#include <algorithm>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// [N, C, H, W] input and an [N, Ho, Wo, 2] grid of its dtype.
std::string infer_grid_sampler(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* x = tensor_arg(p, n, "input");
  const TensorType* grid = tensor_arg(p, n, "grid");
  if (!x || !grid) return "grid_sampler needs tensors 'input' and 'grid'";
  if (x->dtype != grid->dtype || !dtype_allowed(*find_op(n.op), x->dtype, p.target))
    return "grid_sampler needs input and grid of one supported float dtype";
  if (x->rank() != 4 || grid->rank() != 4 || grid->shape[3] != 2 || grid->shape[0] != x->shape[0])
    return "grid_sampler needs [N, C, H, W] and [N, Ho, Wo, 2]";
  if (x->numel() == 0) return "zero-size input";
  int64_t mode = int_arg(n, "interpolation_mode", -1), padding = int_arg(n, "padding_mode", -1);
  if (mode < 0 || mode > 2 || padding < 0 || padding > 2) return "unknown interpolation or padding mode";
  if (!n.arg("align_corners")) return "grid_sampler needs align_corners";
  out = {{x->dtype, {x->shape[0], x->shape[1], grid->shape[1], grid->shape[2]}}};
  return "";
}

std::string infer_affine_grid(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* theta = tensor_arg(p, n, "theta");
  if (!theta || !dtype_allowed(*find_op(n.op), theta->dtype, p.target)) return "affine_grid needs a float theta";
  const IntList* size = int_list_arg(n, "size");
  if (!size || size->size() != 4) return "affine_grid needs size [N, C, H, W]";
  if (theta->rank() != 3 || theta->shape[0] != (*size)[0] || theta->shape[1] != 2 || theta->shape[2] != 3)
    return "affine_grid needs theta [N, 2, 3] for size [N, C, H, W]";
  for (int64_t d : *size)
    if (d < 1) return "affine_grid needs a positive size";
  if (!n.arg("align_corners")) return "affine_grid needs align_corners";
  out = {{theta->dtype, {(*size)[0], (*size)[2], (*size)[3], 2}}};
  return "";
}

// [N, 1, H, W]. PyTorch 2.x's CPU affine_grid of a half theta raises for a
// spatial size of 1 ("tensor_cpu" not implemented for 'Half': its one-point
// linspace; corpus/bugs/eager-affine-grid-half-size-one.dlf): such programs
// would only be skipped, so half grids are 2 or more each way.
IntList affine_size(DType dtype, int64_t batch, int64_t h, int64_t w) {
  if (is_half(dtype)) {
    h = std::max<int64_t>(h, 2);
    w = std::max<int64_t>(w, 2);
  }
  return {batch, 1, h, w};
}

// Coordinates mostly inside [-1, 1] and some a little outside (padding):
// 1.1 * tanh of a value, or an affine grid of a small transform.
int sampling_grid(GenContext& g, DType dtype, int64_t batch) {
  Choices& c = g.choices();
  const int64_t ho = c.range(1, g.policy().max_dim), wo = c.range(1, g.policy().max_dim);
  if (c.coin(0.4)) {
    TensorType tt{dtype, {batch, 2, 3}};
    int theta = g.pick_or_input([&](const TensorType& t) { return t == tt; }, tt);
    return g.emit1("affine_grid_generator", {{"theta", ValueRef{g.in_domain(theta, Domain::unit)}},
                                             {"size", affine_size(dtype, batch, ho, wo)},
                                             {"align_corners", c.coin(0.5)}});
  }
  TensorType gt{dtype, {batch, ho, wo, 2}};
  int raw = g.pick_or_input([&](const TensorType& t) { return t == gt; }, gt);
  int t = g.emit1("tanh", {{"self", ValueRef{raw}}});
  return g.emit1("mul", {{"self", ValueRef{t}}, {"other", 1.1}});
}

bool gen_grid_sampler(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  auto v = g.first([&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && t.rank() == 4 && t.numel() > 0;
  });
  if (!v && g.focus()) return false;
  if (!v) {
    Shape shape{c.range(1, 2), c.range(1, 3), c.range(1, g.policy().max_dim), c.range(1, g.policy().max_dim)};
    v = g.new_input({g.random_float_dtype(false), shape});
  }
  const TensorType x = g.program().type(*v);
  n.args = {{"input", ValueRef{*v}},
            {"grid", ValueRef{sampling_grid(g, x.dtype, x.shape[0])}},
            {"interpolation_mode", c.range(0, 2)},
            {"padding_mode", c.range(0, 2)},
            {"align_corners", c.coin(0.5)}};
  return true;
}

bool gen_affine_grid(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  const int64_t batch = c.range(1, 2);
  TensorType tt{g.random_float_dtype(false), {batch, 2, 3}};
  if (!dtype_allowed(s, tt.dtype, g.program().target)) tt.dtype = DType::f32;
  int theta = g.pick_or_input([&](const TensorType& t) { return t == tt; }, tt);
  n.args = {{"theta", ValueRef{theta}},
            {"size", affine_size(tt.dtype, batch, c.range(1, g.policy().max_dim), c.range(1, g.policy().max_dim))},
            {"align_corners", c.coin(0.5)}};
  return true;
}

OpSpec sampling(const std::string& name, const std::string& python, std::vector<ParamSpec> params, InferFn infer,
                GenFn gen) {
  return float_op(name, "upsample", python, std::move(params), infer, gen);
}
}  // namespace

void register_ops_grid_sample(std::vector<OpSpec>& ops) {
  using K = ParamKind;
  const std::string F = "torch.nn.functional.";
  ParamSpec mode = A("interpolation_mode", K::int_), padding = A("padding_mode", K::int_);
  mode.python_name = "mode";
  mode.python_strings = {"bilinear", "nearest", "bicubic"};
  padding.python_strings = {"zeros", "border", "reflection"};
  ops.push_back(sampling("grid_sampler", F + "grid_sample", {T("input"), T("grid"), mode, padding,
                                                             A("align_corners", K::bool_)},
                         infer_grid_sampler, gen_grid_sampler));
  ops.push_back(sampling("affine_grid_generator", F + "affine_grid",
                         {T("theta"), A("size", K::int_list), A("align_corners", K::bool_)}, infer_affine_grid,
                         gen_affine_grid));
}

}  // namespace dlfuzz
