#include "generator/autocast.h"

#include "generator/op_spec.h"

#include <map>

namespace dlfuzz {

namespace {
// Measured on PyTorch 2.15 (CPU, bfloat16 and float16): each generated op run
// eagerly under autocast, its result dtype compared with the one it has
// without (the ops whose AutocastCPU kernel has a policy, and affine_grid, a
// composite that calls bmm). In-place forms have no autocast kernel: they
// keep their dtypes.
const std::map<std::string, AutocastPolicy>& table() {
  using P = AutocastPolicy;
  static const std::map<std::string, AutocastPolicy> t = {
      {"mm", P::lower},
      {"bmm", P::lower},
      {"matmul", P::lower},
      {"addmm", P::lower},
      {"baddbmm", P::lower},
      {"linear", P::lower},
      {"conv1d", P::lower},
      {"conv2d", P::lower},
      {"conv_transpose1d", P::lower},
      {"conv_transpose2d", P::lower},
      {"prelu", P::lower},
      {"scaled_dot_product_attention", P::lower},
      {"einsum", P::unknown},
      {"affine_grid_generator", P::lower},
      {"max_pool3d", P::fp32},
      {"avg_pool3d", P::fp32},
      {"adaptive_avg_pool3d", P::fp32},
      {"mse_loss", P::fp32},
      {"l1_loss", P::fp32},
      {"smooth_l1_loss", P::fp32},
      {"huber_loss", P::fp32},
      {"soft_margin_loss", P::fp32},
      {"hinge_embedding_loss", P::fp32},
      {"margin_ranking_loss", P::fp32},
      {"kl_div", P::fp32},
      {"cross_entropy", P::fp32},
      {"nll_loss", P::fp32},
      {"binary_cross_entropy", P::fp32},
      {"binary_cross_entropy_with_logits", P::fp32},
      {"grid_sampler", P::fp32},
      {"cdist", P::fp32},
      {"trace", P::fp32},
      {"prod", P::fp32},
      {"fake_quantize_per_tensor_affine", P::fp32},
      {"cat", P::promote},
      {"stack", P::promote},
      {"index_copy", P::promote},
  };
  return t;
}

}  // namespace

AutocastPolicy autocast_policy(const std::string& op) {
  auto it = table().find(op);
  return it == table().end() ? AutocastPolicy::none : it->second;
}

std::string infer_under_autocast(const OpSpec& s, const Program& p, const Node& n, std::vector<TensorType>& out) {
  const AutocastPolicy policy = p.autocast ? autocast_policy(n.op) : AutocastPolicy::none;
  if (policy == AutocastPolicy::none) return s.infer(p, n, out);
  if (p.target != Target::torch2) return "autocast needs target=torch2";
  if (p.device != "cpu") return "autocast programs run on the CPU (its autocast rules)";
  if (policy == AutocastPolicy::unknown) return n.op + " under autocast: its result dtype depends on the decomposition";
  const DType lower = *p.autocast;
  // An explicit dtype (prod's) wins over the fp32 policy.
  if (const Arg* dt = n.arg("dtype"); policy == AutocastPolicy::fp32 && dt && !std::holds_alternative<None>(dt->value))
    return s.infer(p, n, out);
  std::vector<int> operands;  // the tensors autocast may cast
  for (const auto& a : n.args) {
    if (const auto* r = std::get_if<ValueRef>(&a.value); r && !r->item) operands.push_back(r->id);
    if (const auto* l = std::get_if<ValueList>(&a.value)) operands.insert(operands.end(), l->ids.begin(), l->ids.end());
  }
  // The dtype autocast runs the op in; float64 operands are never cast.
  DType to = policy == AutocastPolicy::lower ? lower : DType::f32;
  if (policy == AutocastPolicy::promote) {
    to = lower;
    for (int id : operands) {
      DType t = p.type(id).dtype;
      if (t == DType::f32) to = DType::f32;
      if (is_half(t) && t != lower)
        return std::string("autocast to ") + dtype_name(lower) + " cannot promote a " + dtype_name(t) + " operand";
    }
  }
  // The type rule over the operands as autocast casts them: a copy of the
  // value table (type rules read nothing else of the program).
  Program cast;
  cast.target = p.target;
  cast.device = p.device;
  cast.values = p.values;
  for (int id : operands) {
    DType& t = cast.values[id].type.dtype;
    if (is_float(t) && t != DType::f64) t = to;
  }
  return s.infer(cast, n, out);
}

}  // namespace dlfuzz
