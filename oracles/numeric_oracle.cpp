#include "oracles/numeric_oracle.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "oracles/precision_flow.h"
#include "oracles/tolerance.h"

namespace dlfuzz {

namespace {
double rmse(const HostTensor& a, const HostTensor& ref) {
  double s = 0;
  int64_t n = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.at(i), r = ref.at(i);
    if (!std::isfinite(x) || !std::isfinite(r)) continue;
    s += (x - r) * (x - r);
    ++n;
  }
  return n ? std::sqrt(s / n) : 0;
}

// The test overflowed to +-inf where eager is finite and float64 puts the
// true value in the dtype's top binade, of the same sign: at the overflow
// threshold the order of the additions decides between the largest finite
// value and infinity (bilinear upsampling of +-FLT_MAX values gave inf in
// eager and FLT_MAX through AOTAutograd; float64: FLT_MAX). Rounding, no bug.
// (An Inf of eager's where float64 is finite is reference_overflowed's.)
bool test_rounds_at_the_limit(double ref, double test, double truth, DType t) {
  if (!is_float(t) || !std::isinf(test) || !std::isfinite(ref) || !std::isfinite(truth)) return false;
  bool same_sign = std::signbit(ref) == std::signbit(test) && std::signbit(truth) == std::signbit(test);
  // A float64 value twice the limit says the overflow is real.
  return same_sign && std::fabs(truth) >= float_max(t) / 2 && std::fabs(truth) <= 2 * float_max(t);
}

// The reference is NaN or Inf where float64 is finite: eager overflowed (a
// variance of values near FLT_MAX: eager's layer_norm gave NaN, float64 a
// finite row), and an element eager gets wrong cannot judge the test runner.
bool reference_overflowed(double ref, double truth) { return !std::isfinite(ref) && std::isfinite(truth); }

// NaN, -inf, +inf or a number: what a NaN or Inf position compares. float64
// beyond the dtype's range counts as the infinity the dtype would hold.
int special_class(double x, DType t) {
  if (std::isnan(x)) return 0;
  if (std::isinf(x) || (is_float(t) && std::fabs(x) > float_max(t))) return std::signbit(x) ? -1 : 1;
  return 2;
}

// Where a NaN or Inf position differs and float64 holds what the test holds,
// eager is the side that is wrong there: an eager kernel's bug (a bf16 conv
// that turned one inf input into NaN at outputs whose window does not hold
// it), seen through a compiled path that got it right. Said in the finding,
// which then has a signature of its own.
std::string eager_odd(double ref, double test, const HostTensor* truth, int64_t i, DType t) {
  if (!truth || !is_float(t)) return "";
  double x = truth->at(i);
  if (special_class(x, t) != special_class(test, t) || special_class(x, t) == special_class(ref, t)) return "";
  return fmt::format("; float64 gives {}, as the test does: {}", x, kEagerOdd);
}

HostTensor zeros_like(const HostTensor& t) {
  HostTensor z = t;
  std::fill(z.bytes.begin(), z.bytes.end(), uint8_t{0});  // +0.0 and 0 in every dtype
  return z;
}
}  // namespace

NumericOptions numeric_options_for(const Program* p) {
  NumericOptions o;
  // An adaptive step moves an element by about lr (Adam, Adagrad) or up to
  // lr / sqrt(1 - alpha) = 10 lr (RMSprop, alpha 0.99: its first step).
  if (p && p->train && is_adaptive(p->train->optimizer))
    o.adaptive_step_bound = (p->train->optimizer == Optimizer::rmsprop ? 20 : 2) * p->train->lr * p->train->steps;
  if (p) {
    PrecisionFlow flow = precision_flow(*p);
    o.output_precision = std::move(flow.outputs);
    o.param_precision = std::move(flow.params);
  }
  return o;
}

std::string compare_tensor(const HostTensor& ref, const HostTensor& test, const HostTensor* fp64,
                           const NumericOptions& opt, const ElementSlack* slack,
                           std::optional<DType> computed_through) {
  // A missing tensor (a gradient autograd gave none) is compared as zeros.
  // Runners report zeros for such a gradient (they step with zeros), so this
  // only guards results that still lack one.
  if (ref.defined != test.defined) {
    std::string d = ref.defined ? compare_tensor(ref, zeros_like(ref), fp64, opt, nullptr, computed_through)
                                : compare_tensor(zeros_like(test), test, fp64, opt, nullptr, computed_through);
    return d.empty()
               ? ""
               : fmt::format("{} (taken as zeros): {}", ref.defined ? "missing in test" : "unexpected in test", d);
  }
  if (!ref.defined) return "";
  if (ref.dtype != test.dtype) return fmt::format("dtype {} vs {}", dtype_name(ref.dtype), dtype_name(test.dtype));
  if (ref.shape != test.shape)
    return fmt::format("shape [{}] vs [{}]", fmt::join(ref.shape, ","), fmt::join(test.shape, ","));
  Tolerance tol = default_tolerance(ref.dtype);
  if (computed_through && is_float(ref.dtype)) tol = looser(tol, default_tolerance(*computed_through));
  // The float64 values, element by element, where there are any (NaN where not).
  const HostTensor* truth = fp64 && fp64->defined && fp64->shape == ref.shape ? fp64 : nullptr;
  int64_t bad = 0, first_bad = -1;
  double worst = 0;
  const bool slack_passes_anything = slack && std::isinf(slack->bound);
  for (int64_t i = 0; i < ref.numel(); ++i) {
    double a = ref.at(i), b = test.at(i), t = truth && is_float(ref.dtype) ? truth->at(i) : NAN;
    if (reference_overflowed(a, t)) continue;
    if (slack_passes_anything && static_cast<size_t>(i) < slack->excused.size() && slack->excused[i]) continue;
    if (std::isnan(a) || std::isnan(b)) {
      if (std::isnan(a) != std::isnan(b))
        return fmt::format("NaN position differs at element {} ({} vs {}){}", i, a, b,
                           eager_odd(a, b, truth, i, ref.dtype));
      continue;
    }
    if (std::isinf(a) || std::isinf(b)) {
      if (a != b && !test_rounds_at_the_limit(a, b, t, ref.dtype))
        return fmt::format("Inf position differs at element {} ({} vs {}){}", i, a, b,
                           eager_odd(a, b, truth, i, ref.dtype));
      continue;
    }
    double d = std::fabs(a - b);
    if (slack && static_cast<size_t>(i) < slack->excused.size() && slack->excused[i] && d <= slack->bound) continue;
    if (beyond(tol, a, b)) {
      if (!is_float(ref.dtype)) return fmt::format("element {} differs: {} vs {} (exact dtype)", i, a, b);
      if (first_bad < 0) first_bad = i;
      ++bad;
      worst = std::max(worst, d);
    }
  }
  if (!bad) return "";
  // Arbitrate against float64: a compiled result as close to the truth as
  // eager is legitimate reordering, not a bug.
  if (truth) {
    double ref_err = rmse(ref, *truth), test_err = rmse(test, *truth);
    if (test_err <= opt.multiplier * ref_err + tol.atol / 10) return "";
    return fmt::format(
        "{} of {} elements differ, max abs diff {:.3g} (first at {}: {} vs {}); RMSE to float64 {:.3g} vs eager's {:.3g}",
        bad, ref.numel(), worst, first_bad, ref.at(first_bad), test.at(first_bad), test_err, ref_err);
  }
  return fmt::format("{} of {} elements differ, max abs diff {:.3g} (first at {}: {} vs {})", bad, ref.numel(), worst,
                     first_bad, ref.at(first_bad), test.at(first_bad));
}

namespace {
// The elements of param i whose last gradient is within tolerance of zero on
// both sides (NumericOptions::adaptive_step_bound).
ElementSlack adaptive_slack(const RunResult& ref, const RunResult& test, size_t i, const NumericOptions& opt) {
  ElementSlack slack;
  if (opt.adaptive_step_bound <= 0 || i >= ref.grads.size() || i >= test.grads.size()) return slack;
  const HostTensor &gr = ref.grads[i], &gt = test.grads[i];
  if (!gr.defined || !gt.defined || gr.numel() != gt.numel()) return slack;
  double zero = default_tolerance(gr.dtype).atol;
  slack.bound = opt.adaptive_step_bound;
  slack.excused.resize(gr.numel());
  for (int64_t k = 0; k < gr.numel(); ++k)
    slack.excused[k] = std::fabs(gr.at(k)) <= zero && std::fabs(gt.at(k)) <= zero;
  return slack;
}

// Adam moved some param element apart on the slack alone (its last gradient
// ~0 on both sides, the element beyond the usual tolerance). The last step's
// outputs and gradients are computed from those params, so they differ by
// whatever that drift becomes downstream (a campaign's output `x - 0.368 * w`
// differed by 3.2e-5 where w's gradient was 4e-9 against 0 and Adam moved w
// by 1.3e-4).
// `slacks`: adaptive_slack of each param.
bool params_drifted(const RunResult& ref, const RunResult& test, const std::vector<ElementSlack>& slacks) {
  for (size_t i = 0; i < slacks.size() && i < test.params.size(); ++i) {
    const HostTensor &a = ref.params[i], &b = test.params[i];
    if (slacks[i].excused.empty() || !a.defined || !b.defined || a.numel() != b.numel() || !is_float(a.dtype)) continue;
    Tolerance tol = default_tolerance(a.dtype);
    for (int64_t k = 0; k < a.numel(); ++k)
      if (slacks[i].excused[k] && beyond(tol, a.at(k), b.at(k))) return true;
  }
  return false;
}

// The tangent elements (outputs from the middle on) where the jvp arbiter
// finds no derivative: any value passes there (kJvpArbiter).
ElementSlack no_derivative_slack(const RunResult* fp64, size_t i) {
  ElementSlack slack;
  if (!fp64 || fp64->runner.rfind(kJvpArbiter, 0) != 0 || i < fp64->outputs.size() / 2 || i >= fp64->outputs.size())
    return slack;
  const HostTensor& t = fp64->outputs[i];
  if (!t.defined || !is_float(t.dtype)) return slack;
  slack.bound = INFINITY;
  slack.excused.resize(t.numel());
  for (int64_t k = 0; k < t.numel(); ++k) slack.excused[k] = std::isnan(t.at(k));
  return slack;
}
}  // namespace

std::string numeric_symptom(const std::string& difference) {
  for (const char* s : {"missing in test", "unexpected in test", "NaN position", "Inf position"})
    if (difference.find(s) != std::string::npos)
      return difference.find(kEagerOdd) != std::string::npos ? std::string(s) + ", " + kEagerOdd : s;
  if (difference.find("(exact dtype)") != std::string::npos) return "exact value";
  for (const char* s : {"dtype", "shape"})
    if (difference.rfind(s, 0) == 0) return s;
  if (difference.find(" tensors") != std::string::npos && difference.find(" vs ") != std::string::npos)
    return "tensor count";
  return "";
}

std::optional<Finding> check_numeric(const RunResult& ref, const RunResult& test, const RunResult* fp64,
                                     const NumericOptions& opt) {
  if (!ref.ok() || !test.ok()) return std::nullopt;
  auto finding = [&](const std::string& what, const std::string& detail, const std::string& difference) {
    Finding f;
    f.oracle = "numeric";
    f.ref_runner = ref.runner;
    f.test_runner = test.runner;
    f.stage = what;
    f.detail = what + ": " + detail;
    f.error_text = numeric_symptom(difference);
    return f;
  };
  auto pick = [&](const std::vector<HostTensor>& v, size_t i) -> const HostTensor* {
    return fp64 && fp64->ok() && i < v.size() ? &v[i] : nullptr;
  };
  struct Part {
    const char* name;
    const std::vector<HostTensor>& r;
    const std::vector<HostTensor>& t;
    const std::vector<HostTensor>* f;
  };
  static const std::vector<HostTensor> none;
  // Then float values of the outputs and gradients beyond tolerance are no
  // finding; a NaN or Inf position, a shape or dtype still is.
  std::vector<ElementSlack> param_slacks(ref.params.size());
  for (size_t i = 0; i < param_slacks.size(); ++i) param_slacks[i] = adaptive_slack(ref, test, i, opt);
  const bool drifted = params_drifted(ref, test, param_slacks);
  Part parts[] = {{"output", ref.outputs, test.outputs, fp64 ? &fp64->outputs : &none},
                  {"grad", ref.grads, test.grads, fp64 ? &fp64->grads : &none},
                  {"param", ref.params, test.params, fp64 ? &fp64->params : &none}};
  for (const auto& part : parts) {
    if (part.r.size() != part.t.size()) {
      std::string d = fmt::format("{} vs {} tensors", part.r.size(), part.t.size());
      return finding(part.name, d, d);
    }
    const bool is_output = part.name == std::string("output");
    const auto& precision = is_output ? opt.output_precision : opt.param_precision;
    for (size_t i = 0; i < part.r.size(); ++i) {
      const ElementSlack tangent_slack = is_output ? no_derivative_slack(fp64, i) : ElementSlack{};
      const ElementSlack* slack = part.name == std::string("param") ? &param_slacks[i]
                                  : tangent_slack.excused.empty()   ? nullptr
                                                                    : &tangent_slack;
      // A distributed run's outputs are every rank's, in rank order.
      std::optional<DType> through =
          !precision.empty() && part.r.size() % precision.size() == 0 ? precision[i % precision.size()] : std::nullopt;
      std::string d = compare_tensor(part.r[i], part.t[i], pick(*part.f, i), opt, slack, through);
      if (drifted && part.name != std::string("param") && numeric_symptom(d).empty()) continue;
      if (!d.empty()) return finding(part.name, fmt::format("{} {}: {}", part.name, i, d), d);
    }
  }
  return std::nullopt;
}

}  // namespace dlfuzz
