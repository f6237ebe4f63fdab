// Collectives of a parallel plan, as explicit ops (torch.distributed
// semantics, functional form: each returns a new tensor). Their shapes depend
// on the program's world size. Generated in inference programs with world > 1
// (training programs synchronise gradients through their plan instead); the
// runners execute them on c10d process groups (runners/distributed/).
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
  if (n.arg("op") && !valid_reduce_op(str_arg(n, "op", ""))) return "unknown reduce op '" + str_arg(n, "op", "") + "'";
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

// Dtypes every backend reduces (Gloo has no bool or bfloat16 reductions).
bool collective_dtype(const TensorType& t) {
  return t.dtype == DType::f32 || t.dtype == DType::f64 || t.dtype == DType::f16 || t.dtype == DType::i64 ||
         t.dtype == DType::i32 || t.dtype == DType::i8 || t.dtype == DType::u8;
}

bool gen_collective(GenContext& g, const OpSpec& s, Node& n) {
  const Program& p = g.program();
  int world = p.plan.world;
  if (world < 2 || p.is_training()) return false;
  bool needs_dim = s.name == "all_gather" || s.name == "reduce_scatter" || s.name == "all_to_all";
  bool divides = s.name == "reduce_scatter" || s.name == "all_to_all";
  auto v = g.pick([&](const TensorType& t) {
    if (!collective_dtype(t)) return false;
    if (!needs_dim) return true;
    for (int64_t d : t.shape)
      if (!divides || (d > 0 && d % world == 0)) return true;
    return false;
  });
  if (!v) return false;
  const TensorType& t = p.type(*v);
  n.args = {{"self", ValueRef{*v}}};
  if (needs_dim) {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < t.rank(); ++d)
      if (!divides || (t.shape[d] > 0 && t.shape[d] % world == 0)) dims.push_back(d);
    n.args.push_back({"dim", g.choices().pick(dims)});
  }
  if (s.name == "all_reduce" || s.name == "reduce_scatter") {
    std::vector<std::string> reduce_ops = {"sum", "max", "min"};
    if (is_float(t.dtype)) reduce_ops.push_back("avg");  // no integer average
    n.args.push_back({"op", g.choices().pick(reduce_ops)});
  }
  if (s.name == "broadcast") n.args.push_back({"src", int64_t(g.choices().below(world))});
  return true;
}

OpSpec collective(const std::string& name, std::vector<ParamSpec> attrs) {
  OpSpec s;
  s.name = name;
  s.family = "collective";
  s.aten = "c10d::" + name;
  s.params = {T("self")};
  for (auto& a : attrs) s.params.push_back(a);
  s.infer = infer_collective;
  s.generate = gen_collective;
  s.bool_ok = false;
  s.python = "_dlfuzz_" + name;      // helpers the Python emitter defines
  s.torchscript = "dlfuzz." + name;  // runners/distributed/collectives.cpp; see runners/ts_resolver.h
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
