// The _foreach_* ops (torch._foreach_add([a, b], 1.0)): one op over a list of
// tensors, as optimizers and gradient clipping call them. ATen runs a list of
// one dtype on one device through a fused kernel and anything else per tensor;
// compilers lower the list ops on their own. A node has one output per list
// element (self's types, promoted with a Python number where there is one).
// Out-of-place forms only: an in-place list op mutates several tensors, which
// the IR's in-place ops (one mutated operand) cannot say. PyTorch 1.13 has no
// autograd formulas for them, so no operand carries a param's gradient.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
const std::vector<int>* list_arg(const Node& n, const std::string& name) {
  const Arg* a = n.arg(name);
  auto* l = a ? std::get_if<ValueList>(&a->value) : nullptr;
  return l ? &l->ids : nullptr;
}

// self: a non-empty list of one dtype; every other list argument holds the
// same types, pairwise.
std::string infer_foreach(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const OpSpec* s = find_op(n.op);
  const std::vector<int>* self = list_arg(n, "self");
  if (!self || self->empty()) return "self must be a non-empty tensor list";
  const DType dt = p.type(self->front()).dtype;
  for (int id : *self) {
    if (p.type(id).dtype != dt) return "the tensors of self must share one dtype";
    if (!dtype_allowed(*s, dt, p.target)) return std::string("dtype ") + dtype_name(dt) + " not supported by " + n.op;
  }
  for (const auto& prm : s->params) {
    if (prm.kind != ParamKind::tensor_list || prm.name == "self") continue;
    const std::vector<int>* other = list_arg(n, prm.name);
    if (!other && prm.optional) continue;
    if (!other) return "missing tensor list '" + prm.name + "'";
    if (other->size() != self->size()) return "'" + prm.name + "' must have as many tensors as self";
    for (size_t i = 0; i < self->size(); ++i)
      if (p.type((*other)[i]) != p.type((*self)[i])) return "'" + prm.name + "' must match self's types pairwise";
  }
  if (s->param("scalar") && s->param("other") && !n.arg("scalar") == !n.arg("other"))
    return n.op + " takes a number `scalar` or a tensor list `other`";
  for (const char* number : {"scalar", "value", "weight"}) {
    const Arg* a = n.arg(number);
    if (a && scalar_kind(a->value) == ScalarKind::none) return std::string("'") + number + "' must be a number";
  }
  out.clear();
  for (int id : *self) out.push_back(p.type(id));
  return "";
}

bool gen_foreach(GenContext& g, const OpSpec& s, Node& n) {
  if (g.focus()) return false;
  Choices& c = g.choices();
  auto ok = [&](const TensorType& t) { return dtype_allowed(s, t.dtype, g.program().target); };
  auto first = g.pick(ok);
  if (first && g.carries_grad(*first)) first.reset();
  const DType dt = first ? g.program().type(*first).dtype : g.random_float_dtype(s.half_ok);
  if (!dtype_allowed(s, dt, g.program().target)) return false;
  // Two to four tensors of one dtype and their own shapes, as a model's params.
  std::vector<int> self;
  if (first) self.push_back(*first);
  const int len = static_cast<int>(c.range(2, 4));
  while (static_cast<int>(self.size()) < len) {
    TensorType t{dt, g.random_shape(0, 3)};
    auto v = g.pick([&](const TensorType& u) { return u.dtype == dt; });
    self.push_back(v && !g.carries_grad(*v) && c.coin(0.5) ? *v : g.new_input(t));
  }
  for (int& id : self) id = g.in_domain(id, s.domain);
  n.args = {{"self", ValueList{self}}};
  auto like_self = [&] {
    std::vector<int> ids;
    for (int id : self) {
      const TensorType& t = g.program().type(id);
      auto v = g.pick([&](const TensorType& u) { return u == t; });
      int o = v && !g.carries_grad(*v) && c.coin(0.5) ? *v : g.new_input(t);
      ids.push_back(s.name == "_foreach_div" ? g.in_domain(o, Domain::nonzero) : o);
    }
    return ValueList{ids};
  };
  // A Python number or a second list where the op has both overloads.
  const bool has_scalar = s.param("scalar") != nullptr, has_other = s.param("other") != nullptr;
  if (has_scalar && (!has_other || c.coin(0.5))) {
    ArgValue k = random_number(g, dt, -2, 2);
    if (s.name == "_foreach_div") k = c.uniform(0.5, 2);
    n.args.push_back({"scalar", k});
  } else if (has_other) {
    n.args.push_back({"other", like_self()});
  }
  if (s.param("tensor1")) n.args.push_back({"tensor1", like_self()});
  if (s.param("tensor2")) n.args.push_back({"tensor2", like_self()});
  if (s.param("tensors1")) n.args.push_back({"tensors1", like_self()});
  if (s.param("value") && c.coin(0.5)) n.args.push_back({"value", c.uniform(-2, 2)});
  if (s.param("weight")) n.args.push_back({"weight", c.uniform(-0.5, 1.5)});
  return true;
}

ParamSpec list(const std::string& name) {
  ParamSpec p{name, ParamKind::tensor_list, false, true};
  p.grad = false;
  return p;
}
ParamSpec number(const std::string& name) { return {name, ParamKind::number, false, true}; }

OpSpec foreach_op(const std::string& name, std::vector<ParamSpec> rest) {
  OpSpec s;
  s.name = "_foreach_" + name;
  s.family = "foreach";
  s.aten = "aten::_foreach_" + name;
  s.params = {list("self")};
  s.params.insert(s.params.end(), rest.begin(), rest.end());
  s.infer = infer_foreach;
  s.generate = gen_foreach;
  s.differentiable = false;
  s.float_only = true;  // what the optimizers pass; integer lists promote per tensor
  s.tuple_result = true;
  s.python = "torch._foreach_" + name;
  return s;
}
}  // namespace

void register_ops_foreach(std::vector<OpSpec>& ops) {
  // One or the other, so both by name: the .dlf's positional arguments fill
  // the positional parameters in order.
  ParamSpec optional_scalar = number("scalar"), optional_other = list("other");
  optional_scalar.optional = optional_other.optional = true;
  optional_scalar.positional = optional_other.positional = false;
  for (const char* name : {"add", "sub", "mul"}) ops.push_back(foreach_op(name, {optional_scalar, optional_other}));
  OpSpec div = foreach_op("div", {optional_scalar, optional_other});
  div.domain = Domain::nonzero;
  ops.push_back(div);
  ops.push_back(foreach_op("maximum", {list("other")}));
  for (const char* name : {"abs", "neg"}) ops.push_back(foreach_op(name, {}));
  for (const char* name : {"exp", "sqrt", "sigmoid"}) {
    OpSpec s = foreach_op(name, {});
    s.half_ok = false;  // 1.13's CPU kernels
    if (std::string(name) == "exp") s.domain = Domain::bounded;
    if (std::string(name) == "sqrt") s.domain = Domain::positive;
    ops.push_back(s);
  }
  OpSpec addcmul = foreach_op("addcmul", {list("tensor1"), list("tensor2"), A("value", ParamKind::number)});
  addcmul.half_ok = false;
  ops.push_back(addcmul);
  OpSpec lerp = foreach_op("lerp", {list("tensors1"), number("weight")});
  lerp.torch2_only = true;  // added after 1.13
  ops.push_back(lerp);
}

}  // namespace dlfuzz
