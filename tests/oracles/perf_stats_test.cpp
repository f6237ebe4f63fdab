// The timing oracle's statistics on synthetic paired samples: known ratio,
// known noise, outliers, drift.
#include "oracles/perf_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace dlfuzz {
namespace {

// n pairs: base ~ 1 ms, cand ~ ratio ms, each with multiplicative noise of
// relative spread `noise`, and a common drift both sides share.
struct Samples {
  std::vector<double> base, cand;
};
Samples synthetic(int n, double ratio, double noise, unsigned seed, double drift = 0) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> jitter(0, noise);
  Samples s;
  for (int i = 0; i < n; ++i) {
    double machine = 1 + drift * std::sin(i * 0.3);  // the machine speeds up and slows down
    s.base.push_back(1.0 * machine * jitter(rng));
    s.cand.push_back(ratio * machine * jitter(rng));
  }
  return s;
}

TEST(PerfStats, MedianOfOddAndEvenSamples) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(PerfStats, KnownRatioLiesInTheInterval) {
  for (double ratio : {1.0, 1.2, 1.5, 3.0})
    for (unsigned seed = 1; seed <= 20; ++seed) {
      auto s = synthetic(40, ratio, 0.05, seed);
      RatioEstimate e = ratio_of_medians(s.base, s.cand);
      EXPECT_EQ(e.pairs, 40);
      EXPECT_LE(e.ci_low, e.ratio);
      EXPECT_GE(e.ci_high, e.ratio);
      EXPECT_NEAR(e.ratio, ratio, ratio * 0.06) << "seed " << seed;
    }
}

TEST(PerfStats, SameFunctionIsNeverSlowerOverManySeeds) {
  // A/A: the same distribution on both sides. At a 10% threshold no seed may
  // claim a slowdown, even with 20% noise and drift.
  for (unsigned seed = 1; seed <= 500; ++seed) {
    auto s = synthetic(30, 1.0, 0.2, seed, 0.3);
    EXPECT_NE(perf_verdict(ratio_of_medians(s.base, s.cand), 0.10), PerfVerdict::slower) << "seed " << seed;
  }
}

TEST(PerfStats, ClearSlowdownsAreCaught) {
  int caught20 = 0, caught50 = 0;
  for (unsigned seed = 1; seed <= 100; ++seed) {
    auto s20 = synthetic(30, 1.2, 0.03, seed), s50 = synthetic(30, 1.5, 0.10, seed);
    caught20 += perf_verdict(ratio_of_medians(s20.base, s20.cand), 0.10) == PerfVerdict::slower;
    caught50 += perf_verdict(ratio_of_medians(s50.base, s50.cand), 0.10) == PerfVerdict::slower;
  }
  EXPECT_GE(caught20, 95);
  EXPECT_GE(caught50, 95);
}

TEST(PerfStats, SlowdownBelowTheThresholdIsNotClaimed) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    auto s = synthetic(60, 1.03, 0.02, seed);
    EXPECT_EQ(perf_verdict(ratio_of_medians(s.base, s.cand), 0.10), PerfVerdict::not_slower) << "seed " << seed;
  }
}

TEST(PerfStats, OutliersOnOneSideDoNotMakeASlowdown) {
  // A few calls hit by a page fault or the other core's compile: 10x spikes.
  auto s = synthetic(40, 1.0, 0.03, 7);
  for (int i = 0; i < 40; i += 9) s.cand[i] *= 10;
  RatioEstimate e = ratio_of_medians(s.base, s.cand);
  EXPECT_LT(e.ratio, 1.05);
  EXPECT_NE(perf_verdict(e, 0.10), PerfVerdict::slower);
}

TEST(PerfStats, FewPairsAreUndecided) {
  EXPECT_EQ(perf_verdict(ratio_of_medians({1.0}, {5.0}), 0.10), PerfVerdict::undecided);
  EXPECT_EQ(perf_verdict(ratio_of_medians({}, {}), 0.10), PerfVerdict::undecided);
  auto s = synthetic(6, 1.15, 0.3, 3);  // noisy and short: the interval straddles 1.1
  EXPECT_EQ(perf_verdict(ratio_of_medians(s.base, s.cand), 0.10), PerfVerdict::undecided);
}

TEST(PerfStats, DeterministicForTheSameSamples) {
  auto s = synthetic(30, 1.3, 0.1, 11);
  RatioEstimate a = ratio_of_medians(s.base, s.cand), b = ratio_of_medians(s.base, s.cand);
  EXPECT_EQ(a.ci_low, b.ci_low);
  EXPECT_EQ(a.ci_high, b.ci_high);
}

}  // namespace
}  // namespace dlfuzz
