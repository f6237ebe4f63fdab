// Randomness inside the program: dropout (aten::dropout, train or not). Every
// runner and the repro seed PyTorch's generator (torch.manual_seed(0)) before
// each call of the program, and the Python worker sets Inductor's
// fallback_random, under which compiled random ops draw what eager draws; so
// eager and compiled see the same mask and their results compare like any
// other. One random op per program: compilers drop a dead dropout (TorchScript
// did) and may reorder independent ones, so with two the second would draw
// what the first left on one side and not the other. Not over ranks: rank
// threads share one generator.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
std::string infer_dropout(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self = tensor_arg(p, n, "input");
  if (!self) return "missing tensor argument 'input'";
  const OpSpec* s = find_op(n.op);
  if (!dtype_allowed(*s, self->dtype, p.target))
    return std::string("dtype ") + dtype_name(self->dtype) + " not supported by " + n.op;
  double prob = float_arg(n, "p", -1);
  if (prob < 0 || prob > 1) return "dropout's p must lie in [0, 1]";
  if (!n.arg("train") || !std::holds_alternative<bool>(n.arg("train")->value)) return "dropout needs a bool train";
  out = {*self};
  return "";
}

bool has_random_op(const Program& p) {
  return any_node(p.body, [](const Node& n) {
    const OpSpec* s = find_op(n.op);
    return s && s->family == "random";
  });
}

bool gen_dropout(GenContext& g, const OpSpec& s, Node& n) {
  if (g.program().plan.world > 1 || has_random_op(g.program())) return false;
  auto v = g.first([&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target); });
  if (!v) {
    if (g.focus()) return false;
    v = g.new_input({g.random_float_dtype(s.half_ok), g.random_shape(0, 4)});
  }
  // Masks are drawn in memory order, and TorchScript's autodiff draws its own
  // in contiguous order where eager keeps the input's strides: the same draws
  // land elsewhere in a transposed input. Contiguous inputs only, so layouts
  // do not decide where the zeros go.
  v = g.emit1("contiguous", {{"self", ValueRef{*v}}});
  Choices& c = g.choices();
  double p = c.coin(0.1) ? c.pick(std::vector<double>{0.0, 1.0}) : 0.1 * static_cast<double>(c.range(1, 8));
  n.args = {{"input", ValueRef{*v}}, {"p", p}, {"train", !c.coin(0.1)}};
  return true;
}
}  // namespace

void register_ops_random(std::vector<OpSpec>& ops) {
  OpSpec s;
  s.name = "dropout";
  s.family = "random";
  s.aten = "aten::dropout";
  s.params = {T("input"), {"p", ParamKind::float_, false, true}, {"train", ParamKind::bool_, false, true}};
  s.infer = infer_dropout;
  s.generate = gen_dropout;
  s.float_only = true;
  s.half_ok = false;  // 1.13's CPU bernoulli has no f16 kernel
  // With p = 0 or train = false, ATen returns the input itself on some paths
  // (1.13's TorchScript and Static Runtime) and a copy on others (its eager):
  // a write through either would show in one and not the other.
  s.may_alias = true;
  s.python = "torch.dropout";
  ops.push_back(s);
}

}  // namespace dlfuzz
