// Unary elementwise math: abs, neg, exp, log, trig, rounding, special
// functions (erfinv, lgamma, digamma, i0, sinc, logit, torch.special's ndtri,
// erfcx, Bessel functions, ...), sgn, signbit, nan_to_num, bitwise_not.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
enum Flags { kNone = 0, kFloatOnly = 1, kNoHalf = 2, kSavesOut = 4, kNoHalfIn2 = 8, kNoGrad = 16 };

OpSpec unary(const std::string& name, InferFn infer, Domain domain, int flags) {
  OpSpec s;
  s.name = name;
  s.family = "unary";
  s.aten = "aten::" + name;
  s.params = {T("self")};
  s.infer = infer;
  s.generate = gen_unary;
  s.domain = domain;
  s.float_only = flags & kFloatOnly;
  s.half_ok = !(flags & kNoHalf);
  s.saves_output = flags & kSavesOut;
  s.half_in_torch2 = !(flags & kNoHalfIn2);
  s.differentiable = !(flags & kNoGrad);
  s.python = "torch." + name;
  return s;
}

// torch.special.<name>: aten::special_<name>, spelled so in TorchScript (the
// C++ resolver has no torch.special module).
OpSpec special(const std::string& name, Domain domain, int flags) {
  OpSpec s = unary("special_" + name, infer_float, domain, flags | kNoHalf);
  s.python = "torch.special." + name;
  s.torchscript = "torch.special_" + name;
  return s;
}

std::string infer_signbit(const Program& p, const Node& n, std::vector<TensorType>& out) {
  if (auto e = infer_same(p, n, out); !e.empty()) return e;
  out[0].dtype = DType::b8;
  return "";
}

// The special functions added in 1.13 name their operand `x`, not `self`.
std::string infer_float_of_x(const Program& p, const Node& n, std::vector<TensorType>& out) {
  Node self_named = n;
  for (auto& a : self_named.args)
    if (a.name == "x") a.name = "self";
  return infer_float(p, self_named, out);
}

bool gen_unary_x(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_unary(g, s, n)) return false;
  n.args[0].name = "x";
  return true;
}

// logit(x, eps) clamps x to [eps, 1 - eps] first: finite for every input.
bool gen_logit(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_unary(g, s, n)) return false;
  n.args.push_back({"eps", g.choices().pick(std::vector<double>{1e-6, 0.05, 0.25})});
  return true;
}

// nan_to_num with each replacement given or left to its default (0, the
// dtype's largest and lowest finite values).
bool gen_nan_to_num(GenContext& g, const OpSpec& s, Node& n) {
  if (!gen_unary(g, s, n)) return false;
  Choices& c = g.choices();
  for (const char* name : {"nan", "posinf", "neginf"})
    if (c.coin(0.4)) n.args.push_back({name, c.pick(std::vector<double>{0.0, 1.5, -2.0, 100.0})});
  return true;
}
}  // namespace

void register_ops_unary(std::vector<OpSpec>& ops) {
  // Transcendental ops turn integer inputs into the default float.
  ops.push_back(unary("exp", infer_float, Domain::bounded, kNoHalf | kSavesOut));
  ops.push_back(unary("expm1", infer_float, Domain::bounded, kNoHalf | kSavesOut));
  ops.push_back(unary("log", infer_float, Domain::positive, kNoHalf));
  ops.push_back(unary("log1p", infer_float, Domain::positive, kNoHalf));
  ops.push_back(unary("sqrt", infer_float, Domain::positive, kNoHalf | kSavesOut));
  ops.push_back(unary("rsqrt", infer_float, Domain::positive, kNoHalf | kSavesOut));
  ops.push_back(unary("sin", infer_float, Domain::any, kNoHalf));
  ops.push_back(unary("cos", infer_float, Domain::any, kNoHalf));
  ops.push_back(unary("tanh", infer_float, Domain::any, kNoHalf | kSavesOut));
  ops.push_back(unary("sigmoid", infer_float, Domain::any, kNoHalf | kSavesOut));
  ops.push_back(unary("erf", infer_float, Domain::any, kNoHalf));
  ops.push_back(unary("reciprocal", infer_float, Domain::nonzero, kNoHalf | kSavesOut));
  // Rounding keeps the dtype and is defined for floats here.
  ops.push_back(unary("floor", infer_same, Domain::any, kFloatOnly | kNoHalf));
  ops.push_back(unary("ceil", infer_same, Domain::any, kFloatOnly | kNoHalf));
  ops.push_back(unary("round", infer_same, Domain::any, kFloatOnly | kNoHalf));
  ops.push_back(unary("trunc", infer_same, Domain::any, kFloatOnly | kNoHalf));
  ops.push_back(unary("frac", infer_same, Domain::any, kFloatOnly | kNoHalf));
  // Sign-like ops keep integer dtypes.
  ops.push_back(unary("abs", infer_same, Domain::any, kNone));
  ops.push_back(unary("neg", infer_same, Domain::any, kNone));
  ops.push_back(unary("sign", infer_same, Domain::any, kNone));
  ops.push_back(unary("square", infer_same, Domain::bounded, kNone));

  // More transcendental and special functions: their own vectorized C++ in
  // Inductor, their own derivatives.
  ops.push_back(unary("sinh", infer_float, Domain::bounded, kNoHalf));
  ops.push_back(unary("cosh", infer_float, Domain::bounded, kNoHalf));
  ops.push_back(unary("asinh", infer_float, Domain::any, kNoHalf));
  ops.push_back(unary("atan", infer_float, Domain::any, kNoHalf));
  ops.push_back(unary("asin", infer_float, Domain::unit, kFloatOnly | kNoHalf));
  ops.push_back(unary("acos", infer_float, Domain::unit, kFloatOnly | kNoHalf));
  ops.push_back(unary("atanh", infer_float, Domain::unit, kFloatOnly | kNoHalf));
  ops.push_back(unary("erfinv", infer_float, Domain::unit, kFloatOnly | kNoHalf));
  ops.push_back(unary("exp2", infer_float, Domain::bounded, kNoHalf | kSavesOut));
  ops.push_back(unary("log2", infer_float, Domain::positive, kNoHalf));
  ops.push_back(unary("log10", infer_float, Domain::positive, kNoHalf));
  ops.push_back(unary("erfc", infer_float, Domain::any, kNoHalf));
  ops.push_back(unary("lgamma", infer_float, Domain::positive, kFloatOnly | kNoHalf));
  ops.push_back(unary("digamma", infer_float, Domain::positive, kFloatOnly | kNoHalf));
  ops.push_back(unary("i0", infer_float, Domain::bounded, kFloatOnly | kNoHalf));
  ops.push_back(unary("sinc", infer_float, Domain::any, kFloatOnly | kNoHalf));
  OpSpec logit = unary("logit", infer_float, Domain::any, kFloatOnly | kNoHalf);
  logit.params.push_back(A("eps", ParamKind::float_, true));
  logit.generate = gen_logit;
  ops.push_back(logit);
  OpSpec nan_to_num = unary("nan_to_num", infer_same, Domain::any, kNoHalf);
  for (const char* name : {"nan", "posinf", "neginf"}) nan_to_num.params.push_back(A(name, ParamKind::float_, true));
  nan_to_num.generate = gen_nan_to_num;
  ops.push_back(nan_to_num);
  // torch.special: Inductor's C++ has code of its own for several (ndtri,
  // log_ndtr, erfcx and the Bessel functions come from its headers). The
  // derivatives of ndtri, log_ndtr, erfcx, i0e, i1 and i1e read the result.
  ops.push_back(special("ndtri", Domain::probability, kFloatOnly | kNoHalfIn2 | kSavesOut));
  ops.push_back(special("log_ndtr", Domain::bounded, kNoHalfIn2 | kSavesOut));
  ops.push_back(special("ndtr", Domain::any, kNone));
  ops.push_back(special("erfcx", Domain::bounded, kNoHalfIn2 | kSavesOut));
  ops.push_back(special("i0e", Domain::any, kSavesOut));
  ops.push_back(special("i1", Domain::bounded, kSavesOut));
  ops.push_back(special("i1e", Domain::any, kSavesOut));
  ops.push_back(special("entr", Domain::any, kFloatOnly));
  // No derivatives in LibTorch 1.13 (some have them in 2.x): never trained through.
  // Those of j1, i1 and k1 in 2.x read the result: a program that writes it in
  // place compiles to an error when AOTAutograd traces their backward ahead of
  // time, even where the loss never reads them (by design, pytorch#158561).
  for (const char* name :
       {"bessel_j0", "bessel_j1", "modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0", "airy_ai"}) {
    bool reads_result = std::string(name) == "bessel_j1" || std::string(name) == "modified_bessel_i1";
    ops.push_back(special(name, Domain::bounded, kNoHalfIn2 | kNoGrad | (reads_result ? kSavesOut : kNone)));
  }
  for (const char* name :
       {"modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"}) {
    bool reads_result = std::string(name) == "modified_bessel_k1";
    ops.push_back(
        special(name, Domain::positive, kFloatOnly | kNoHalfIn2 | kNoGrad | (reads_result ? kSavesOut : kNone)));
  }
  for (auto& s : ops) {
    if (s.name != "special_airy_ai" && s.name != "special_spherical_bessel_j0" &&
        s.name.rfind("special_scaled_modified_bessel", 0) != 0)
      continue;
    s.params = {T("x")};
    s.infer = infer_float_of_x;
    s.generate = gen_unary_x;
  }
  // sgn is sign for real dtypes; signbit reads the sign bit (-0.0 too).
  ops.push_back(unary("sgn", infer_same, Domain::any, kNoHalf | kSavesOut));
  OpSpec signbit = unary("signbit", infer_same, Domain::any, kNoHalf | kNoGrad);
  signbit.infer = infer_signbit;
  signbit.reads_bits = true;
  ops.push_back(signbit);
  // Integers and bools only: exact on every backend.
  OpSpec bitwise_not = unary("bitwise_not", infer_same, Domain::any, kNone);
  bitwise_not.int_only = true;
  bitwise_not.bool_ok = true;
  bitwise_not.differentiable = false;
  ops.push_back(bitwise_not);
}

}  // namespace dlfuzz
