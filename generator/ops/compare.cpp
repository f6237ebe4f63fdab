// Comparisons and logical ops: bool results, any input dtype.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
std::string infer_compare(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  Shape shape = self->shape;
  const Arg* other = n.arg("other");
  if (other) {
    if (auto* r = std::get_if<ValueRef>(&other->value)) {
      if (!broadcast(self->shape, p.type(r->id).shape, shape)) return "shapes do not broadcast";
    } else if (scalar_kind(other->value) == ScalarKind::none) {
      return "'other' must be a tensor or a number";
    }
  } else if (find_op(n.op) && find_op(n.op)->params.size() > 1) {
    return "missing argument 'other'";
  }
  out = {{DType::b8, shape}};
  return "";
}

bool gen_compare(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_binary(g, s, n)) return false;
  // Comparisons against an exact input value find ties compilers break.
  return true;
}

OpSpec compare(const std::string& name, bool other_number) {
  OpSpec s;
  s.name = name;
  s.family = "compare";
  s.aten = "aten::" + name;
  s.params = {T("self"), other_number ? TorN("other") : T("other")};
  s.infer = infer_compare;
  s.generate = gen_compare;
  s.differentiable = false;
  s.bool_ok = true;
  s.python = "torch." + name;
  return s;
}
}  // namespace

void register_ops_compare(std::vector<OpSpec>& ops) {
  for (const char* name : {"eq", "ne", "lt", "le", "gt", "ge"}) ops.push_back(compare(name, true));
  // A float is true where it is not zero, and computed zeros are often +-1e-8
  // on another backend (group_norm of a constant group): logical ops read bits.
  for (const char* name : {"logical_and", "logical_or", "logical_xor"}) {
    ops.push_back(compare(name, false));
    ops.back().reads_bits = true;
  }
  OpSpec lnot = compare("logical_not", false);
  lnot.params = {T("self")};
  lnot.generate = gen_unary;
  lnot.reads_bits = true;
  ops.push_back(lnot);
  OpSpec isnan = lnot;
  isnan.reads_bits = false;
  isnan.name = "isnan";
  isnan.aten = "aten::isnan";
  isnan.python = "torch.isnan";
  ops.push_back(isnan);
  OpSpec isfinite = isnan;
  isfinite.name = "isfinite";
  isfinite.aten = "aten::isfinite";
  isfinite.python = "torch.isfinite";
  ops.push_back(isfinite);
}

}  // namespace dlfuzz
