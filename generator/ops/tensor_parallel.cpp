// Tensor parallelism's communication points, as Megatron-LM names them
// (megatron/core/tensor_parallel/mappings.py): each is a collective in one
// direction of autograd and the identity (or a slice) in the other. They
// appear only in the Megatron MLP block the generator builds for a `tp` plan
// (generator.cpp), never at random; at world 1 each is the identity.
//   tp_copy(x)        forward identity, backward all_reduce(sum) of the grad
//                     (copy_to_tensor_model_parallel_region)
//   tp_reduce(x)      forward all_reduce(sum), backward identity
//                     (reduce_from_tensor_model_parallel_region)
//   tp_gather(x, dim) forward all_gather along dim, backward this rank's
//                     chunk of the grad (gather_from_tensor_model_parallel_region)
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
std::string infer_tp(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  if (!is_float(self->dtype)) return "tensor-parallel regions carry float tensors";
  TensorType t = *self;
  if (n.op == "tp_gather") {
    int64_t dim = int_arg(n, "dim", 0);
    if (t.rank() == 0 || !wrap_dim(dim, t.rank())) return "dim out of range";
    t.shape[dim] *= p.plan.world;
  }
  out = {t};
  return "";
}

OpSpec tp_op(const std::string& name, std::vector<ParamSpec> attrs) {
  OpSpec s;
  s.name = name;
  s.family = "tensor_parallel";  // no generation weight: placed by the plan
  s.aten = "c10d::" + name;
  s.params = {T("self")};
  for (auto& a : attrs) s.params.push_back(a);
  s.infer = infer_tp;
  s.bool_ok = false;
  s.python = "_dlfuzz_" + name;
  s.torchscript = "dlfuzz." + name;  // runners/distributed/collectives.cpp
  return s;
}
}  // namespace

void register_ops_tensor_parallel(std::vector<OpSpec>& ops) {
  ops.push_back(tp_op("tp_copy", {}));
  ops.push_back(tp_op("tp_reduce", {}));
  ops.push_back(tp_op("tp_gather", {A("dim", ParamKind::int_)}));
}

}  // namespace dlfuzz
