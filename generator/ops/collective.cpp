// Collectives of a parallel plan, as explicit ops (torch.distributed
// semantics, functional form: each returns a new tensor). Their shapes depend
// on the program's world size. Generation of parallel plans lands with the
// multi-GPU work; here they are part of the IR, verified and printed.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
bool valid_reduce_op(const std::string& op) {
  return op == "sum" || op == "avg" || op == "max" || op == "min" || op == "product";
}

std::string infer_collective(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "self");
  if (!self) return "missing tensor argument 'self'";
  int world = p.plan.world;
  TensorType t = *self;
  if (n.arg("op") && !valid_reduce_op(str_arg(n, "op", "")))
    return "unknown reduce op '" + str_arg(n, "op", "") + "'";
  if (n.op == "all_gather" || n.op == "reduce_scatter" || n.op == "all_to_all") {
    int64_t dim = int_arg(n, "dim", 0);
    if (t.rank() == 0 || !wrap_dim(dim, t.rank())) return "dim out of range";
    if (n.op == "all_gather") t.shape[dim] *= world;
    if (n.op == "reduce_scatter" || n.op == "all_to_all") {
      if (t.shape[dim] % world != 0) return "dim size must divide by the world size";
      if (n.op == "reduce_scatter") t.shape[dim] /= world;
    }
  }
  if (n.op == "broadcast") {
    int64_t src = int_arg(n, "src", 0);
    if (src < 0 || src >= world) return "broadcast source rank out of range";
  }
  out = {t};
  return "";
}

OpSpec collective(const std::string& name, std::vector<ParamSpec> attrs) {
  OpSpec s;
  s.name = name;
  s.family = "collective";
  s.aten = "c10d::" + name;
  s.params = {T("self")};
  for (auto& a : attrs) s.params.push_back(a);
  s.infer = infer_collective;
  s.generate = nullptr;  // parallel plans generate these (multi-GPU issue)
  s.bool_ok = false;
  s.python = "_dlfuzz_" + name;  // helpers the Python emitter defines
  return s;
}
}  // namespace

void register_ops_collective(std::vector<OpSpec>& ops) {
  ops.push_back(collective("all_reduce", {A("op", ParamKind::str)}));
  ops.push_back(collective("all_gather", {A("dim", ParamKind::int_)}));
  ops.push_back(collective("reduce_scatter", {A("dim", ParamKind::int_), A("op", ParamKind::str)}));
  ops.push_back(collective("broadcast", {A("src", ParamKind::int_)}));
  ops.push_back(collective("all_to_all", {A("dim", ParamKind::int_)}));
}

}  // namespace dlfuzz
