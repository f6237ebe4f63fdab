// Unary elementwise math: abs, neg, exp, log, trig, rounding, special
// functions (erfinv, lgamma, digamma, i0, sinc, logit), nan_to_num, bitwise_not.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
enum Flags { kNone = 0, kFloatOnly = 1, kNoHalf = 2, kSavesOut = 4 };

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
  s.python = "torch." + name;
  return s;
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
  // Integers and bools only: exact on every backend.
  OpSpec bitwise_not = unary("bitwise_not", infer_same, Domain::any, kNone);
  bitwise_not.int_only = true;
  bitwise_not.bool_ok = true;
  bitwise_not.differentiable = false;
  ops.push_back(bitwise_not);
}

}  // namespace dlfuzz
