// Strict mode: a zero of the other sign is its own low-severity finding,
// only with --strict-zeros, only where the numeric oracle is satisfied, and
// only where float64 has a zero of the reference's sign.
#include <gtest/gtest.h>

#include <limits>

#include "oracles/oracle_table.h"
#include "oracles/signed_zero_oracle.h"
#include "tests/oracles/host_tensors.h"

namespace dlfuzz {
namespace {
using test::make_tensor;
RunResult result(const std::string& runner, const std::vector<float>& out) {
  RunResult r;
  r.runner = runner;
  r.status = RunStatus::ok;
  r.outputs = {make_tensor(DType::f32, out)};
  return r;
}
RunResult result64(const std::vector<double>& out) {
  RunResult r;
  r.runner = "eager64";
  r.status = RunStatus::ok;
  r.outputs = {make_tensor(DType::f64, out)};
  return r;
}

TEST(SignedZeroOracle, AFlippedZeroIsAFindingWhereFloat64AgreesWithTheReference) {
  RunResult ref = result("eager", {1, -0.0f, 0.0f, 2}), test = result("ts", {1, 0.0f, 0.0f, 2});
  RunResult truth = result64({1, -0.0, 0.0, 2});
  auto f = check_signed_zeros(ref, test, &truth);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->oracle, "signed-zero");
  EXPECT_EQ(f->stage, "output");
  EXPECT_EQ(f->detail, "output 0: 1 of 4 zeros have the other sign (first at 1: -0 vs 0)");
  RunResult odd_ref = result64({1, 0.0, 0.0, 2});  // float64 says +0: the reference is the odd one
  EXPECT_FALSE(check_signed_zeros(ref, test, &odd_ref));
  EXPECT_FALSE(check_signed_zeros(ref, result("ts", {1, -0.0f, 0.0f, 2}), &truth)) << "same signs";
  EXPECT_FALSE(check_signed_zeros(ref, result("ts", {1, 1e-30f, 0.0f, 2}), &truth)) << "not both zero: numeric's";
}

// NaNs on both sides with other bits (here the sign: -nan vs nan), in the same
// strict mode; the same NaN bits, or NaN against a number (numeric's), are not.
TEST(SignedZeroOracle, NaNsOfOtherBitsAreStrictModesToo) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  RunResult ref = result("eager", {1, nan, nan}), truth = result64({1, 0, 0});
  auto f = check_signed_zeros(ref, result("inductor", {1, nan, -nan}), &truth);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->oracle, "signed-zero");
  EXPECT_EQ(f->detail, "output 0: 1 NaNs have other bits (first at 2: 0x7fc00000 vs 0xffc00000)");
  EXPECT_FALSE(check_signed_zeros(ref, result("inductor", {1, nan, nan}), &truth));
  EXPECT_FALSE(check_signed_zeros(ref, result("inductor", {1, nan, 2}), &truth)) << "a NaN against 2: numeric's";
}

TEST(SignedZeroOracle, OnlyInStrictModeAndAfterTheNumericOracle) {
  RunResult ref = result("eager", {-0.0f, 3}), test = result("ts", {0.0f, 3});
  RunResult truth = result64({-0.0, 3});
  oracle_settings().strict_zeros = false;
  EXPECT_FALSE(judge(ref, &truth, test)) << "off by default: -0 and +0 are equal";
  oracle_settings().strict_zeros = true;
  auto f = judge(ref, &truth, test);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->oracle, "signed-zero");
  auto wrong = judge(ref, &truth, result("ts", {0.0f, 4}));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->oracle, "numeric") << "a wrong value is numeric's, whatever the zeros";
  oracle_settings().strict_zeros = false;
}
}  // namespace
}  // namespace dlfuzz
