// Unary elementwise math: abs, neg, exp, log, trig, rounding, ...
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
}

}  // namespace dlfuzz
