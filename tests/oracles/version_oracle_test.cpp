// The version oracle's rule on hand-made sides: regression, fixed, and the
// cases that give no verdict.
#include <gtest/gtest.h>

#include "oracles/version_oracle.h"

namespace dlfuzz {
namespace {

VersionSide side(const std::string& runner, const Finding* f, bool ref_ok = true) {
  return {runner, "torch " + runner.substr(runner.find('@') + 1), ref_ok, f};
}

TEST(VersionOracle, RegressionAndFixed) {
  Finding crash{"status", "eager@new", "frozen@new", "run", "crash", "crash: signal N (Segmentation fault)"};
  auto reg = check_version(side("frozen@old", nullptr), side("frozen@new", &crash));
  ASSERT_TRUE(reg);
  EXPECT_EQ(reg->oracle, "version");
  EXPECT_EQ(reg->ref_runner, "frozen@old");
  EXPECT_EQ(reg->test_runner, "frozen@new");
  EXPECT_EQ(reg->stage, "run");
  EXPECT_EQ(reg->error_text, "regression: status crash: signal N (Segmentation fault)");
  auto fixed = check_version(side("frozen@old", &crash), side("frozen@new", nullptr));
  ASSERT_TRUE(fixed);
  EXPECT_EQ(fixed->error_text, "fixed: status crash: signal N (Segmentation fault)");
  EXPECT_NE(reg->signature(), fixed->signature());
}

TEST(VersionOracle, NoVerdict) {
  Finding f{"numeric", "eager@a", "ts@a", "output", "differs", ""};
  Finding flaky = f;
  flaky.flaky = true;
  EXPECT_FALSE(check_version(side("ts@a", nullptr), side("ts@b", nullptr))) << "both agree";
  EXPECT_FALSE(check_version(side("ts@a", &f), side("ts@b", &f))) << "both show it: not a change";
  EXPECT_FALSE(check_version(side("ts@a", nullptr, false), side("ts@b", &f))) << "invalid on the older";
  EXPECT_FALSE(check_version(side("ts@a", nullptr), side("ts@b", &f, false))) << "invalid on the newer";
  EXPECT_FALSE(check_version(side("ts@a", nullptr), side("ts@b", &flaky))) << "a flaky finding proves nothing";
  EXPECT_FALSE(check_version(side("ts@a", &flaky), side("ts@b", nullptr)));
}

}  // namespace
}  // namespace dlfuzz
