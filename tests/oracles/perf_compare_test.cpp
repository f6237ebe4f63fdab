// The gate's performance verdict: a slowdown beyond the threshold that is not
// noise is a regression; noise and small slowdowns are not.
#include <gtest/gtest.h>

#include <cmath>

#include "oracles/perf_compare.h"

namespace dlfuzz {

namespace {
// Baseline times with +-20% noise around 1..3 ms, and the candidate `factor`
// times slower with its own noise.
void times(double factor, std::vector<double>* b, std::vector<double>* c, int n = 60) {
  for (int i = 0; i < n; ++i) {
    double base = 1 + (i % 7) * 0.3;
    b->push_back(base * (1 + 0.2 * std::sin(i * 1.7)));
    c->push_back(base * factor * (1 + 0.2 * std::sin(i * 2.3 + 1)));
  }
}
}  // namespace

TEST(PerfCompare, SameSpeedIsNotARegression) {
  std::vector<double> b, c;
  times(1.0, &b, &c);
  auto r = compare_times(b, c, 0.10);
  EXPECT_FALSE(r.regression);
  EXPECT_NEAR(r.geomean, 1.0, 0.08);
  EXPECT_LT(r.ci_low, 1.0 + 0.1);
  EXPECT_EQ(r.programs, 60);
}

TEST(PerfCompare, ThirtyPercentSlowerIsARegression) {
  std::vector<double> b, c;
  times(1.3, &b, &c);
  auto r = compare_times(b, c, 0.10);
  EXPECT_TRUE(r.regression);
  EXPECT_GT(r.ci_low, 1.0);
  EXPECT_LT(r.ci_low, r.geomean);
  EXPECT_GT(r.ci_high, r.geomean);
}

TEST(PerfCompare, FiveOrFewerProgramsOrUntimeablyFastOnesDecideNothing) {
  std::vector<double> b, c;
  times(2.0, &b, &c, 5);
  EXPECT_FALSE(compare_times(b, c, 0.10).regression) << "too few programs";
  std::vector<double> fast(50, 0.001), slow(50, 0.005);
  auto r = compare_times(fast, slow, 0.10);
  EXPECT_EQ(r.programs, 0);
  EXPECT_FALSE(r.regression);
}

}  // namespace dlfuzz
