#include "triage/nnc_bisect.h"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <set>

#include "oracles/evaluate.h"

namespace dlfuzz {

namespace {
constexpr const char* kLimitVar = "PYTORCH_JIT_OPT_LIMIT";

// The limit for the workers started while it lives; the variable as it was
// afterwards.
class LimitGuard {
 public:
  explicit LimitGuard(std::optional<int> limit) {
    if (const char* old = std::getenv(kLimitVar)) saved_ = old;
    if (limit) setenv(kLimitVar, fmt::format("tensorexpr_fuser={}", *limit).c_str(), 1);
    else unsetenv(kLimitVar);
  }
  ~LimitGuard() {
    if (saved_) setenv(kLimitVar, saved_->c_str(), 1);
    else unsetenv(kLimitVar);
  }

 private:
  std::optional<std::string> saved_;
};

const std::string kFusedMarker = "in:prim::TensorExprGroup/node:";

struct Step {
  bool shows = false;
  std::set<std::string> fused;  // ops inside NNC's fusion groups
};

// One fresh worker (the limiter counts decisions per process) with `limit`.
Step run_with_limit(const ExecutorOptions& eo, const Program& p, const std::string& runner,
                    const std::string& signature, std::optional<int> limit) {
  LimitGuard guard(limit);
  Executor ex(eo);
  Evaluation ev = evaluate(ex, p, {runner}, false);
  Step s;
  for (const auto& f : ev.findings) s.shows |= f.signature() == signature;
  for (const auto& r : ev.results) {
    if (r.runner != runner) continue;
    for (const auto& feature : r.features) {
      auto at = feature.rfind(kFusedMarker);
      if (at != std::string::npos) s.fused.insert(feature.substr(at + kFusedMarker.size()));
    }
  }
  return s;
}
}  // namespace

std::string NncBisection::summary() const {
  if (!bisected) return "";
  if (decision == 0) return "not NNC's fusion: shows with nothing fused";
  return fmt::format("tensorexpr_fuser #{}{}", decision, fused_ops.empty() ? "" : " (" + fused_ops + ")");
}

NncBisection bisect_nnc(const ExecutorOptions& eo, const Program& p, const std::string& runner,
                        const std::string& signature, int max_limit) {
  NncBisection b;
  auto step = [&](std::optional<int> limit) {
    ++b.steps;
    return run_with_limit(eo, p, runner, signature, limit);
  };
  if (!step(std::nullopt).shows) {
    b.error = "the bug does not show in a fresh worker";
    return b;
  }
  Step none = step(0);
  if (none.shows) {
    b.bisected = true;
    b.decision = 0;
    return b;
  }
  // Doubling to a limit that shows it, then halving the gap.
  int lo = 0, hi = 1;
  Step at_hi = step(hi);
  while (!at_hi.shows) {
    lo = hi;
    hi *= 2;
    if (hi > max_limit) {
      b.error = fmt::format("the bug shows without a limit but not with {} decisions", lo);
      return b;
    }
    at_hi = step(hi);
  }
  Step at_lo = none;
  if (lo > 0) at_lo = step(lo);
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    Step s = step(mid);
    if (s.shows) hi = mid, at_hi = s;
    else lo = mid, at_lo = s;
  }
  b.bisected = true;
  b.decision = hi;
  for (const auto& op : at_hi.fused)
    if (!at_lo.fused.count(op)) b.fused_ops += (b.fused_ops.empty() ? "" : " ") + op;
  return b;
}

}  // namespace dlfuzz
