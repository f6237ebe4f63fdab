// The fake-prop oracle on hand-made results, and its place in the oracle
// table: after the accepts oracle, before the status and numeric oracles.
#include <gtest/gtest.h>

#include <cstring>

#include "oracles/fake_prop_oracle.h"
#include "oracles/oracle_table.h"

namespace dlfuzz {
namespace {

RunResult ran(const std::string& runner) {
  RunResult r;
  r.runner = runner;
  HostTensor t;
  t.defined = true;
  t.shape = {1};
  t.bytes.assign(4, 0);
  r.outputs = {t};
  return r;
}

// What dlfuzz_runtime.fake_prop_errors() gave for torch.compile of jvp over
// layer_norm with a weight (torch 2.15).
const char* kLayerNormJvp =
    "layer_norm: RuntimeError: InferenceMode::is_enabled() && self.is_inference() INTERNAL ASSERT FAILED at "
    "\"/__w/pytorch/pytorch/aten/src/ATen/native/VariableMethodStubs.cpp\":66, please report a bug to PyTorch.";

TEST(FakePropOracle, AFrameRunUncompiledIsAFindingThoughTheValuesAgree) {
  RunResult ref = ran("py-eager-jvp"), test = ran("inductor-jvp");
  test.fake_errors = {kLayerNormJvp, "group_norm: RuntimeError: other"};
  auto f = check_fake_prop(ref, test);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->oracle, "fake-prop");
  EXPECT_EQ(f->stage, "compile");
  EXPECT_EQ(f->error_text, "fell back to eager: " + normalize_error(kLayerNormJvp));
  EXPECT_NE(f->detail.find("FakeTensor propagation of layer_norm"), std::string::npos) << f->detail;
  EXPECT_NE(f->detail.find("and 1 more"), std::string::npos) << f->detail;
  auto j = judge(ref, nullptr, test);
  ASSERT_TRUE(j) << "the table runs it";
  EXPECT_EQ(j->signature(), f->signature());
}

TEST(FakePropOracle, WhereTheReferenceRanWhateverTheRunDidThen) {
  RunResult ref = ran("py-eager"), test = ran("inductor");
  EXPECT_FALSE(check_fake_prop(ref, test)) << "no fake error: nothing";
  test.fake_errors = {kLayerNormJvp};
  RunResult failed = test;
  failed.status = RunStatus::exception;
  failed.stage = Stage::run;
  failed.error = "RuntimeError: _make_dual INTERNAL ASSERT FAILED\ntraceback";
  auto f = check_fake_prop(ref, failed);
  ASSERT_TRUE(f) << "the frame run uncompiled raised: still the error Dynamo caught first";
  EXPECT_EQ(f->error_text, check_fake_prop(ref, test)->error_text) << "one bug whether the fallback raised or not";
  EXPECT_NE(f->detail.find("then the run exception at run: RuntimeError: _make_dual"), std::string::npos) << f->detail;
  auto j = judge(ref, nullptr, failed);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->oracle, "fake-prop") << "before the status oracle";
  failed.fake_errors.clear();
  EXPECT_EQ(judge(ref, nullptr, failed)->oracle, "status");
  RunResult rejected = ref;
  rejected.status = RunStatus::exception;
  EXPECT_FALSE(check_fake_prop(rejected, test)) << "a program eager rejects is the accepts oracle's";
}

TEST(FakePropOracle, DecidesBeforeTheNumericOracle) {
  // The frame ran uncompiled; a value that differs comes from another frame
  // and shows once the fake error is fixed (one finding per program).
  RunResult ref = ran("py-eager"), test = ran("inductor");
  test.fake_errors = {kLayerNormJvp};
  float one = 1.0f;
  std::memcpy(test.outputs[0].bytes.data(), &one, 4);
  EXPECT_EQ(judge(ref, nullptr, test)->oracle, "fake-prop");
  test.fake_errors.clear();
  EXPECT_EQ(judge(ref, nullptr, test)->oracle, "numeric");
}

}  // namespace
}  // namespace dlfuzz
