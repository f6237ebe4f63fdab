// The numeric oracle on the tensors the value policy produces: NaN and Inf
// must sit at the same places with the same signs, signed zeros are equal
// (a strict mode is the oracles' own), and rounding noise beside them is still
// arbitrated against float64 (whose own non-finite elements are skipped).
#include <gtest/gtest.h>

#include <cmath>

#include "oracles/numeric_oracle.h"
#include "tests/oracles/host_tensors.h"

namespace dlfuzz {
namespace {
using test::make_tensor;
HostTensor f32(const std::vector<float>& v) { return make_tensor(DType::f32, v); }
HostTensor f64(const std::vector<double>& v) { return make_tensor(DType::f64, v); }
}  // namespace

TEST(SpecialValuesOracle, SameNaNAndInfAndSignedZerosAgree) {
  EXPECT_EQ(
      compare_tensor(f32({NAN, INFINITY, -INFINITY, -0.0f, 1}), f32({NAN, INFINITY, -INFINITY, 0.0f, 1}), nullptr), "");
  float denormal = 1e-40f;
  EXPECT_EQ(compare_tensor(f32({denormal, 3e38f}), f32({0.0f, 3e38f}), nullptr), "") << "within atol";
}

TEST(SpecialValuesOracle, NaNOrInfMovedOrFlippedIsAFinding) {
  EXPECT_NE(compare_tensor(f32({NAN, 1}), f32({1, NAN}), nullptr).find("NaN position"), std::string::npos);
  EXPECT_NE(compare_tensor(f32({INFINITY, 1}), f32({NAN, 1}), nullptr).find("NaN position"), std::string::npos);
  EXPECT_NE(compare_tensor(f32({-INFINITY}), f32({INFINITY}), nullptr).find("Inf position"), std::string::npos);
  EXPECT_NE(compare_tensor(f32({3e38f}), f32({INFINITY}), nullptr).find("Inf position"), std::string::npos);
  HostTensor truth = f64({INFINITY});
  EXPECT_NE(compare_tensor(f32({INFINITY}), f32({3e38f}), &truth), "") << "float64 does not excuse a lost Inf";
}

TEST(SpecialValuesOracle, RoundingBesideNaNIsArbitratedByFloat64) {
  // Eager and compiled sum in different orders: each is off from the truth by a
  // rounding step; the NaN and Inf elements agree and are left out of the RMSE.
  std::vector<float> eager = {NAN, INFINITY, 1.0f + 2e-4f, 2.0f}, compiled = {NAN, INFINITY, 1.0f - 2e-4f, 2.0f};
  HostTensor truth = f64({NAN, INFINITY, 1.0, 2.0});
  EXPECT_NE(compare_tensor(f32(eager), f32(compiled), nullptr), "") << "beyond the float32 tolerance alone";
  EXPECT_EQ(compare_tensor(f32(eager), f32(compiled), &truth), "");
}

}  // namespace dlfuzz
