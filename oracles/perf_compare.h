// Is a candidate slower than its baseline? Per program, the ratio of the
// candidate's run time to the baseline's (same program, same inputs, measured
// after warm-up); over the programs, the geometric mean ratio with a 95%
// bootstrap confidence interval (deterministic resampling). A regression is a
// geometric mean above 1 + threshold whose interval lies above 1: slower by
// more than the threshold, and not by chance.
#pragma once
#include <vector>

namespace dlfuzz {

struct PerfComparison {
  int programs = 0;
  double geomean = 1, ci_low = 1, ci_high = 1;  // candidate time / baseline time
  bool regression = false;
};

PerfComparison compare_times(const std::vector<double>& baseline_ms, const std::vector<double>& candidate_ms,
                             double threshold, int min_programs = 10);

}  // namespace dlfuzz
