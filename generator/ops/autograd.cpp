// grad_hook (PyTorch 2.x only, training programs): `%y = grad_hook %x,
// hook="clip"` registers a backward hook on x and returns x itself, as
// training code writes `x.register_hook(fn)`: in backward, the gradient
// reaching x is replaced by what the hook returns (kept where it returns
// None). The hooks are named and live in the Python runtime
// (_dlfuzz_grad_hook), so repros carry them: scale, clip (clipping by value),
// normalize (by the gradient's norm), observe (a logging hook: it records a
// statistic and returns None) and captured (multiplies by `other`, a forward
// value the hook closes over). torch.compile traces hooks on intermediates
// into the forward graph (Dynamo's BackwardState), and Compiled Autograd
// traces them into its backward graph.
//
// x is an intermediate (a hook on a leaf param would outlive the call and
// pile up over the calls runners make) on a param's gradient path, and no
// one writes x or an alias of it afterwards (saves_output: whether a hook
// registered before an in-place write sees the gradient of the old or the new
// value is autograd's subtlety, not the compiler's).
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
const std::vector<std::string> kHooks = {"scale", "clip", "normalize", "observe", "captured"};

std::string infer_grad_hook(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* x = tensor_arg(p, n, "self");
  if (!x) return "grad_hook needs a tensor";
  if (!is_float(x->dtype)) return std::string("dtype ") + dtype_name(x->dtype) + " has no gradient to hook";
  int self = std::get<ValueRef>(n.arg("self")->value).id;
  if (p.input_of(self)) return "grad_hook on an input: a hook on a leaf outlives the call";
  const Arg* h = n.arg("hook");
  const auto* hook = h ? std::get_if<std::string>(&h->value) : nullptr;
  if (!hook || std::find(kHooks.begin(), kHooks.end(), *hook) == kHooks.end())
    return "hook must be one of scale, clip, normalize, observe, captured";
  const TensorType* other = tensor_arg(p, n, "other");
  if ((*hook == "captured") != (other != nullptr)) return "`other` goes with hook captured, and only with it";
  if (other && *other != *x) return "`other` must be " + type_str(*x) + ", not " + type_str(*other);
  out = {*x};
  return "";
}

bool gen_grad_hook(GenContext& g, const OpSpec&, Node& n) {
  if (!g.training()) return false;
  const Program& p = g.program();
  auto x = g.pick_computed([&](int v) {
    const TensorType& t = p.type(v);
    return is_float(t.dtype) && t.numel() > 0 && g.carries_grad(v);
  });
  if (!x) return false;
  Choices& c = g.choices();
  std::string hook = c.pick(kHooks);
  n.args = {{"self", ValueRef{*x}}, {"hook", hook}};
  if (hook == "captured") {
    const TensorType t = p.type(*x);
    n.args.push_back({"other", ValueRef{g.pick_or_input([&](const TensorType& o) { return o == t; }, t)}});
  }
  return true;
}
}  // namespace

void register_ops_autograd(std::vector<OpSpec>& ops) {
  OpSpec s;
  s.name = "grad_hook";
  s.family = "autograd";
  s.aten = "python::register_hook";  // no ATen op: Tensor.register_hook
  s.params = {T("self"), A("hook", ParamKind::str), {"other", ParamKind::tensor, true, false}};
  s.infer = infer_grad_hook;
  s.generate = gen_grad_hook;
  s.float_only = true;
  s.torch2_only = true;
  s.view = true;          // returns x itself
  s.saves_output = true;  // not written afterwards (see above)
  s.python = "_dlfuzz_grad_hook";
  ops.push_back(s);
}

}  // namespace dlfuzz
