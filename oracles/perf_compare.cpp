#include "oracles/perf_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dlfuzz {

PerfComparison compare_times(const std::vector<double>& baseline_ms, const std::vector<double>& candidate_ms,
                             double threshold, int min_programs) {
  std::vector<double> logs;  // log ratios; programs too fast to time are left out
  for (size_t i = 0; i < baseline_ms.size() && i < candidate_ms.size(); ++i)
    if (baseline_ms[i] > 0.01 && candidate_ms[i] > 0.01) logs.push_back(std::log(candidate_ms[i] / baseline_ms[i]));
  PerfComparison c;
  c.programs = static_cast<int>(logs.size());
  if (logs.empty()) return c;
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / v.size();
  };
  c.geomean = std::exp(mean(logs));
  // Bootstrap over programs with a fixed-seed LCG: the same verdict every run.
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  std::vector<double> means, sample(logs.size());
  for (int b = 0; b < 2000; ++b) {
    for (double& x : sample) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      x = logs[(state >> 33) % logs.size()];
    }
    means.push_back(mean(sample));
  }
  std::sort(means.begin(), means.end());
  c.ci_low = std::exp(means[static_cast<size_t>(0.025 * means.size())]);
  c.ci_high = std::exp(means[static_cast<size_t>(0.975 * means.size()) - 1]);
  c.regression = c.programs >= min_programs && c.geomean > 1 + threshold && c.ci_low > 1;
  return c;
}

}  // namespace dlfuzz
