#include "oracles/perf_stats.h"

#include <algorithm>

namespace dlfuzz {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double hi = v[mid];
  if (v.size() % 2) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + mid);
  return (lo + hi) / 2;
}

RatioEstimate ratio_of_medians(const std::vector<double>& base, const std::vector<double>& cand, int resamples,
                               uint64_t seed) {
  RatioEstimate e;
  size_t n = std::min(base.size(), cand.size());
  e.pairs = static_cast<int>(n);
  if (n == 0) return e;
  std::vector<double> b(base.begin(), base.begin() + n), c(cand.begin(), cand.begin() + n);
  e.base_median = median(b);
  e.cand_median = median(c);
  if (e.base_median <= 0) return e;
  e.ratio = e.cand_median / e.base_median;
  e.ci_low = e.ci_high = e.ratio;
  if (n < 2) return e;
  uint64_t state = seed;
  auto next = [&] {  // 64-bit LCG; the high bits index the pairs
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>((state >> 33) % n);
  };
  std::vector<double> ratios, rb(n), rc(n);
  ratios.reserve(resamples);
  for (int r = 0; r < resamples; ++r) {
    for (size_t i = 0; i < n; ++i) {
      size_t k = next();  // one index for both sides: pairs stay pairs
      rb[i] = b[k];
      rc[i] = c[k];
    }
    double mb = median(rb);
    if (mb > 0) ratios.push_back(median(rc) / mb);
  }
  if (ratios.empty()) return e;
  std::sort(ratios.begin(), ratios.end());
  e.ci_low = ratios[static_cast<size_t>(0.025 * (ratios.size() - 1))];
  e.ci_high = ratios[static_cast<size_t>(0.975 * (ratios.size() - 1))];
  return e;
}

PerfVerdict perf_verdict(const RatioEstimate& e, double threshold) {
  if (e.pairs < 2) return PerfVerdict::undecided;
  if (e.ci_low > 1 + threshold) return PerfVerdict::slower;
  if (e.ci_high < 1 + threshold) return PerfVerdict::not_slower;
  return PerfVerdict::undecided;
}

}  // namespace dlfuzz
