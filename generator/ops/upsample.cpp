// Resizing to an output size: nearest, nearest-exact, (bi)linear and bicubic
// upsampling of [N, C, W] and [N, C, H, W] inputs, as ATen's upsample_* ops with output_size (their
// optional scales keep their None defaults). Python spells them
// F.interpolate(input, size, mode=..., align_corners=...): the size is passed
// positionally and the mode is the spec's fixed Python keyword. Float only.
#include <algorithm>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
int spatial_of(const std::string& op) { return op.find("1d") != std::string::npos ? 1 : 2; }
bool has_align_corners(const std::string& op) {
  return op.find("linear") != std::string::npos || op.find("cubic") != std::string::npos;
}

std::string infer_upsample(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  int sp = spatial_of(n.op);
  if (self->rank() != sp + 2) return n.op + " needs a " + std::to_string(sp + 2) + "-d input";
  // 1.13 rejects empty inputs ("non-empty ... tensor expected").
  if (self->numel() == 0) return n.op + " needs a non-empty input";
  const IntList* size = int_list_arg(n, "output_size");
  if (!size || static_cast<int>(size->size()) != sp) return "'output_size' must hold " + std::to_string(sp) + " ints";
  if (std::any_of(size->begin(), size->end(), [](int64_t d) { return d < 1; })) return "'output_size' must be positive";
  if (has_align_corners(n.op)) {
    const Arg* a = n.arg("align_corners");
    if (!a || !std::holds_alternative<bool>(a->value)) return "'align_corners' must be a bool";
  } else if (n.arg("align_corners")) {
    return n.op + " takes no 'align_corners'";
  }
  Shape shape = {self->shape[0], self->shape[1]};
  shape.insert(shape.end(), size->begin(), size->end());
  out = {{self->dtype, shape}};
  return "";
}

bool gen_upsample(GenContext& g, const OpSpec& s, Node& n) {
  int sp = spatial_of(s.name);
  Choices& c = g.choices();
  auto fits = [&](const TensorType& t) {
    if (!dtype_allowed(s, t.dtype, g.program().target) || t.rank() != sp + 2 || t.numel() == 0) return false;
    return std::all_of(t.shape.begin(), t.shape.end(), [](int64_t d) { return d <= 8; });
  };
  auto v = g.first(fits);
  if (!v) {
    if (g.focus()) return false;
    Shape shape = {c.range(1, 2), c.range(1, 3)};
    for (int i = 0; i < sp; ++i) shape.push_back(c.range(1, g.policy().max_dim));
    v = g.new_input({g.random_float_dtype(s.half_ok), shape});
  }
  const TensorType x = g.program().type(*v);
  // Mostly larger (up to twice and a bit), sometimes smaller.
  IntList size;
  for (int i = 0; i < sp; ++i) {
    int64_t in = x.shape[2 + i];
    size.push_back(c.coin(0.75) ? c.range(in, 2 * in + 1) : c.range(1, in));
  }
  n.args = {{"self", ValueRef{*v}}, {"output_size", size}};
  if (has_align_corners(s.name)) n.args.push_back({"align_corners", c.coin(0.5)});
  return true;
}

OpSpec upsample(const std::string& name, const std::string& mode) {
  OpSpec s;
  s.name = name;
  s.family = "upsample";
  s.aten = "aten::" + name;
  s.params = {T("self"), A("output_size", ParamKind::int_list)};
  if (has_align_corners(name)) s.params.push_back(A("align_corners", ParamKind::bool_));
  s.infer = infer_upsample;
  s.generate = gen_upsample;
  s.float_only = true;
  s.half_ok = false;  // 1.13's CPU upsampling lacks f16
  s.python = "torch.nn.functional.interpolate";
  s.python_positional = {"self", "output_size"};  // F.interpolate(input, size, ...)
  s.python_kwargs = "mode='" + mode + "'";
  return s;
}
}  // namespace

void register_ops_upsample(std::vector<OpSpec>& ops) {
  ops.push_back(upsample("upsample_nearest1d", "nearest"));
  ops.push_back(upsample("upsample_nearest2d", "nearest"));
  ops.push_back(upsample("upsample_linear1d", "linear"));
  ops.push_back(upsample("upsample_bilinear2d", "bilinear"));
  ops.push_back(upsample("upsample_bicubic2d", "bicubic"));
  // nearest-exact: the pixel centres' rule (a separate kernel and lowering).
  ops.push_back(upsample("_upsample_nearest_exact1d", "nearest-exact"));
  ops.push_back(upsample("_upsample_nearest_exact2d", "nearest-exact"));
}

}  // namespace dlfuzz
