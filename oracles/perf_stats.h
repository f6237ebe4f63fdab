// The statistics of the timing oracle (oracles/perf_oracle.h), apart from
// any runner so that they are tested on synthetic samples.
//
// Samples are paired: base[i] and cand[i] were measured next to each other
// (interleaved calls in one worker), so drift of the machine falls on both.
// The estimate is the ratio of the medians, cand over base, with a 95%
// bootstrap confidence interval that resamples pairs (percentile method,
// a fixed-seed generator: the same samples give the same verdict on every
// run). A slowdown is claimed only when the interval's lower bound is above
// 1 + threshold: one sample, or a ratio of means, proves nothing on a machine
// whose single benchmarks swing 5-9% run to run.
#pragma once
#include <cstdint>
#include <vector>

namespace dlfuzz {

struct RatioEstimate {
  int pairs = 0;
  double base_median = 0, cand_median = 0;
  double ratio = 1, ci_low = 1, ci_high = 1;  // cand / base
};

double median(std::vector<double> v);

RatioEstimate ratio_of_medians(const std::vector<double>& base, const std::vector<double>& cand, int resamples = 2000,
                               uint64_t seed = 0x9e3779b97f4a7c15ULL);

enum class PerfVerdict {
  slower,      // the whole interval above 1 + threshold
  not_slower,  // the whole interval below 1 + threshold
  undecided,   // the interval straddles it: more pairs may decide
};

PerfVerdict perf_verdict(const RatioEstimate& e, double threshold);

}  // namespace dlfuzz
