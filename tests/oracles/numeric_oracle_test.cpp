// The numeric and status oracles' math, on hand-made host tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "oracles/numeric_oracle.h"
#include "oracles/status_oracle.h"

namespace dlfuzz {

namespace {
template <class T>
HostTensor make(DType dt, Shape shape, const std::vector<T>& v) {
  HostTensor t;
  t.defined = true;
  t.dtype = dt;
  t.shape = std::move(shape);
  t.bytes.resize(v.size() * sizeof(T));
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}
HostTensor f32(const std::vector<float>& v) { return make(DType::f32, {int64_t(v.size())}, v); }
HostTensor f64(const std::vector<double>& v) { return make(DType::f64, {int64_t(v.size())}, v); }
RunResult result(const std::string& runner, std::vector<HostTensor> outs) {
  RunResult r;
  r.runner = runner;
  r.outputs = std::move(outs);
  return r;
}
}  // namespace

TEST(NumericOracle, EqualTensorsAgree) { EXPECT_EQ(compare_tensor(f32({1, 2, 3}), f32({1, 2, 3}), nullptr), ""); }

TEST(NumericOracle, WrongValueIsFlagged) {
  auto d = compare_tensor(f32({1, 2, 3}), f32({1, 2.5f, 3}), nullptr);
  EXPECT_NE(d.find("1 of 3 elements differ"), std::string::npos) << d;
}

// The jvp arbiter (py-eager64-jvp) reports a tangent as NaN where the program
// has no derivative in the tangent's direction (atan2 at (0, 0)): there any
// tangent passes, forward mode's NaN as reverse mode's 0. Its NaN in an output
// (the first half) is a value like any other, and a tangent where it has a
// number is judged as before.
TEST(NumericOracle, NoDerivativeInTheJvpArbiterPassesAnyTangent) {
  RunResult reverse = result("py-eager-jvp", {f32({0.5f, 1}), f32({0, 2})});
  RunResult forward = result("jvp", {f32({0.5f, 1}), f32({NAN, 2})});
  RunResult no_derivative = result(kJvpArbiter, {f64({0.5, 1}), f64({NAN, 2})});
  EXPECT_FALSE(check_numeric(reverse, forward, &no_derivative)) << "no derivative at element 0: nothing to judge";
  RunResult derivative = result(kJvpArbiter, {f64({0.5, 1}), f64({0, 2})});
  auto f = check_numeric(reverse, forward, &derivative);
  ASSERT_TRUE(f) << "where the differences give a number, forward mode's NaN is a finding";
  EXPECT_EQ(f->error_text, "NaN position");
  RunResult wrong_tangent = result("jvp", {f32({0.5f, 1}), f32({0, 3})});
  EXPECT_TRUE(check_numeric(reverse, wrong_tangent, &no_derivative)) << "only the element without a derivative passes";
  RunResult nan_output = result("jvp", {f32({NAN, 1}), f32({0, 2})});
  RunResult nan_in_output = result(kJvpArbiter, {f64({NAN, 1}), f64({0, 2})});
  EXPECT_TRUE(check_numeric(reverse, nan_output, &nan_in_output)) << "an output is not a tangent";
  RunResult second_order = result("py-eager64-jvp2", {f64({0.5, 1}), f64({NAN, 2})});
  EXPECT_FALSE(check_numeric(reverse, forward, &second_order)) << "jvp2's arbiter alike";
  RunResult other_twin = result("py-eager64", {f64({0.5, 1}), f64({NAN, 2})});
  EXPECT_TRUE(check_numeric(reverse, forward, &other_twin)) << "only the jvp arbiter's NaN means no derivative";
}

TEST(NumericOracle, LegitimateReorderingIsNotFlagged) {
  // 64 float32 row sums computed in two orders (as a compiled kernel might):
  // each order is about as far from the float64 truth, so neither is a bug.
  std::vector<float> fwd, bwd;
  std::vector<double> exact;
  for (int row = 0; row < 64; ++row) {
    std::vector<float> xs;
    for (int i = 0; i < 1000; ++i) xs.push_back(std::sin(i * 0.37f + row) * 1000.f);
    float f = 0, b = 0;
    double e = 0;
    for (int i = 0; i < 1000; ++i) f += xs[i], e += xs[i];
    for (int i = 999; i >= 0; --i) b += xs[i];
    fwd.push_back(f), bwd.push_back(b), exact.push_back(e);
  }
  HostTensor truth = f64(exact);
  EXPECT_NE(compare_tensor(f32(fwd), f32(bwd), nullptr), "") << "the orders do differ";
  EXPECT_EQ(compare_tensor(f32(fwd), f32(bwd), &truth), "");
}

TEST(NumericOracle, FarFromFloat64IsFlaggedEvenWhenArbitrated) {
  HostTensor truth = f64({1.0, 2.0});
  auto d = compare_tensor(f32({1.0f, 2.0f}), f32({1.0f, 2.1f}), &truth);
  EXPECT_NE(d.find("RMSE to float64"), std::string::npos) << d;
}

TEST(NumericOracle, NaNAndInfPositionsMustMatch) {
  EXPECT_EQ(compare_tensor(f32({NAN, 1}), f32({NAN, 1}), nullptr), "");
  EXPECT_NE(compare_tensor(f32({NAN, 1}), f32({1, 1}), nullptr).find("NaN position"), std::string::npos);
  EXPECT_NE(compare_tensor(f32({INFINITY}), f32({-INFINITY}), nullptr).find("Inf position"), std::string::npos);
}

// At the overflow threshold the order of additions decides between the
// largest finite value and infinity: no finding where float64 puts the true
// value there (same sign, top binade); a finding anywhere else.
TEST(NumericOracle, OverflowAtTheDtypesLimitIsRounding) {
  const float max = 3.4028234663852886e38f;
  HostTensor at_limit = f64({3.4028234663852886e38, 1});
  EXPECT_EQ(compare_tensor(f32({INFINITY, 1}), f32({max, 1}), &at_limit), "");
  EXPECT_EQ(compare_tensor(f32({max, 1}), f32({INFINITY, 1}), &at_limit), "");
  EXPECT_NE(compare_tensor(f32({INFINITY, 1}), f32({max, 1}), nullptr), "") << "no float64 to say so";
  HostTensor small = f64({1e30, 1});
  EXPECT_NE(compare_tensor(f32({1e30f, 1}), f32({INFINITY, 1}), &small), "") << "far from the limit";
  HostTensor negative_limit = f64({-3.4028234663852886e38, 1});
  EXPECT_NE(compare_tensor(f32({-max, 1}), f32({INFINITY, 1}), &negative_limit), "") << "other sign";
}

// Where eager is NaN or Inf and float64 finite, eager overflowed and cannot
// judge that element (seen: layer_norm of a bf16 row holding 3.39e38 is NaN in
// eager, [-0.5, -0.5, 2, -0.5, -0.5] in float64, -0 after AOTAutograd's
// decomposition). The test runner overflowing where eager did not still is a finding.
TEST(NumericOracle, AnElementEagerOverflowedCannotJudge) {
  HostTensor truth = f64({-0.5, 2.0, 1.0});
  EXPECT_EQ(compare_tensor(f32({NAN, NAN, 1}), f32({-0.0f, 0.0f, 1}), &truth), "");
  EXPECT_EQ(compare_tensor(f32({INFINITY, 2, 1}), f32({-0.5f, 2, 1}), &truth), "");
  EXPECT_NE(compare_tensor(f32({NAN, NAN, 1}), f32({-0.0f, 0.0f, 1}), nullptr), "") << "no float64 to say so";
  EXPECT_NE(compare_tensor(f32({-0.5f, 2, 1}), f32({NAN, 2, 1}), &truth).find("NaN position"), std::string::npos);
  HostTensor nan_truth = f64({NAN, 2.0, 1.0});
  EXPECT_NE(compare_tensor(f32({NAN, 2, 1}), f32({0, 2, 1}), &nan_truth), "") << "float64 NaN too: a lost NaN";
}

// A NaN or Inf position where float64 holds the test's value, not eager's:
// eager's kernel is the wrong side (a bf16 conv gave NaN where float64 and
// Inductor give inf), said in the finding and kept apart in the signature.
TEST(NumericOracle, ANanPositionFloat64SidesWithTheTestSaysEagerIsOdd) {
  HostTensor truth = f64({1.0, INFINITY, 2.0});
  std::string d = compare_tensor(f32({1, NAN, 2}), f32({1, INFINITY, 2}), &truth);
  EXPECT_NE(d.find("NaN position"), std::string::npos) << d;
  EXPECT_NE(d.find(kEagerOdd), std::string::npos) << d;
  EXPECT_EQ(numeric_symptom(d), std::string("NaN position, ") + kEagerOdd);
  // float64 far beyond float32's range is the infinity float32 would hold.
  HostTensor big = f64({1e39});
  d = compare_tensor(f32({3e38f}), f32({INFINITY}), &big);
  EXPECT_EQ(numeric_symptom(d), std::string("Inf position, ") + kEagerOdd) << d;
  // float64 with eager, or with neither, or absent: the plain symptom.
  HostTensor with_eager = f64({1.0, NAN, 2.0});
  EXPECT_EQ(numeric_symptom(compare_tensor(f32({1, NAN, 2}), f32({1, INFINITY, 2}), &with_eager)), "NaN position");
  HostTensor neither = f64({1.0, -INFINITY, 2.0});
  EXPECT_EQ(numeric_symptom(compare_tensor(f32({1, NAN, 2}), f32({1, INFINITY, 2}), &neither)), "NaN position");
  EXPECT_EQ(numeric_symptom(compare_tensor(f32({1, NAN, 2}), f32({1, INFINITY, 2}), nullptr)), "NaN position");
  auto f = check_numeric(result("eager", {f32({1, NAN, 2})}), result("ts", {f32({1, INFINITY, 2})}), nullptr);
  RunResult r64 = result("eager64", {truth});
  auto g = check_numeric(result("eager", {f32({1, NAN, 2})}), result("ts", {f32({1, INFINITY, 2})}), &r64);
  ASSERT_TRUE(f && g);
  EXPECT_EQ(f->signature(), "numeric|eager|ts|output|NaN position");
  EXPECT_EQ(g->signature(), std::string("numeric|eager|ts|output|NaN position, ") + kEagerOdd);
}

// A missing gradient compares as zeros (the runners give every param one, zeros
// where autograd gave none, before the step). A gradient that cancels to exactly
// zero in one reduction order and to 1e-7 in another (ranks, fusion) is not a
// finding; a gradient really missing, or really there, still is.
TEST(NumericOracle, MissingGradientIsComparedAsZeros) {
  HostTensor none;
  EXPECT_EQ(compare_tensor(none, f32({0, -9.5e-7f, 0, 0}), nullptr), "");
  EXPECT_EQ(compare_tensor(f32({0, 4.7e-7f, 0, 0}), none, nullptr), "");
  auto d = compare_tensor(none, f32({0, 0.5f, 0, 0}), nullptr);
  EXPECT_NE(d.find("unexpected in test (taken as zeros): 1 of 4 elements differ"), std::string::npos) << d;
  d = compare_tensor(f32({0.25f, 0, 0, 0}), none, nullptr);
  EXPECT_NE(d.find("missing in test"), std::string::npos) << d;
}

TEST(NumericOracle, IntegersAreExact) {
  auto a = make<int64_t>(DType::i64, {2}, {1, 2});
  auto b = make<int64_t>(DType::i64, {2}, {1, 3});
  EXPECT_NE(compare_tensor(a, b, nullptr).find("exact dtype"), std::string::npos);
}

TEST(NumericOracle, ShapeAndDtypeMustMatch) {
  EXPECT_NE(compare_tensor(f32({1, 2}), f32({1, 2, 3}), nullptr).find("shape"), std::string::npos);
  EXPECT_NE(compare_tensor(f32({1}), f64({1}), nullptr).find("dtype"), std::string::npos);
}

TEST(NumericOracle, FindingNamesRunnersAndPart) {
  auto f = check_numeric(result("eager", {f32({1})}), result("ts", {f32({2})}), nullptr);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->oracle, "numeric");
  EXPECT_EQ(f->test_runner, "ts");
  EXPECT_EQ(f->stage, "output");
}

// The kind of difference is part of the signature: a NaN where eager has a
// number is another bug than values beyond tolerance (a reduction of the one
// must not drift into the other: bug 20 of a 30-minute campaign, a NaN gradient
// through AOTAutograd, reduced into Inductor's f16 rounding under one signature).
TEST(NumericOracle, TheSymptomIsPartOfTheSignature) {
  auto values = check_numeric(result("eager", {f32({1})}), result("ts", {f32({2})}), nullptr);
  auto nan = check_numeric(result("eager", {f32({1})}), result("ts", {f32({NAN})}), nullptr);
  auto shape = check_numeric(result("eager", {f32({1})}), result("ts", {f32({1, 2})}), nullptr);
  ASSERT_TRUE(values && nan && shape);
  EXPECT_EQ(values->signature(), "numeric|eager|ts|output|") << "values beyond tolerance keep the plain signature";
  EXPECT_EQ(nan->signature(), "numeric|eager|ts|output|NaN position");
  EXPECT_EQ(shape->signature(), "numeric|eager|ts|output|shape");
  EXPECT_EQ(numeric_symptom("element 0 differs: 2 vs 4 (exact dtype)"), "exact value");
  EXPECT_EQ(numeric_symptom("missing in test (taken as zeros): NaN position differs at element 0 (0 vs nan)"),
            "missing in test");
  EXPECT_EQ(numeric_symptom("Inf position differs at element 3 (1 vs inf)"), "Inf position");
  EXPECT_EQ(numeric_symptom("2 vs 3 tensors"), "tensor count");
}

// Adam moves a parameter by about lr whatever its gradient's size: Inductor's
// batch_norm weight gradient of 7.8e-8 against eager's exact 0 (a sum that
// cancels) moved it by 0.0089 after one AdamW step at lr 0.01 (bug 47 of a
// 30-minute campaign). The gradients agree within tolerance; the parameter
// then may differ by up to 2 x lr x steps where the gradient is ~0 on both
// sides, and nowhere else.
TEST(NumericOracle, AdamsStepOnANearZeroGradientIsNotAFinding) {
  auto run = [](const std::string& runner, float grad, float param) {
    RunResult r = result(runner, {f32({1})});
    r.grads = {f32({grad, 1.0f})};
    r.params = {f32({param, 0.5f})};
    return r;
  };
  RunResult ref = run("py-eager", 0.0f, 0.0f), test = run("inductor", 7.76e-8f, 0.00886f);
  EXPECT_TRUE(check_numeric(ref, test, nullptr)) << "without the optimizer known, a parameter difference counts";
  NumericOptions adam;
  adam.adaptive_step_bound = 2 * 0.01 * 1;
  EXPECT_FALSE(check_numeric(ref, test, nullptr, adam));
  test.params[0] = f32({0.00886f, 0.51f});  // a gradient of 1 on both sides: its parameter is judged as always
  EXPECT_TRUE(check_numeric(ref, test, nullptr, adam));
  test.params[0] = f32({0.05f, 0.5f});  // more than Adam's steps can move it
  EXPECT_TRUE(check_numeric(ref, test, nullptr, adam));

  Program p;
  EXPECT_EQ(numeric_options_for(&p).adaptive_step_bound, 0);
  p.train = TrainStep{};
  p.train->optimizer = Optimizer::adamw;
  p.train->lr = 0.01;
  p.train->steps = 3;
  EXPECT_DOUBLE_EQ(numeric_options_for(&p).adaptive_step_bound, 0.06);
  p.train->optimizer = Optimizer::sgd;
  EXPECT_EQ(numeric_options_for(&p).adaptive_step_bound, 0) << "SGD's step is proportional to the gradient";
}

// Bug 3 of a 4-minute --perf campaign (seed 9433): w's gradient was 4e-9
// against eager's 0, Adam moved w by 1.3e-4 within its slack, and an output
// x - 0.368 * w of the last step differed by 3.2e-5. Float values computed
// from drifted params are not judged; a NaN position still is, and without
// the drift the same output difference is a finding.
TEST(NumericOracle, OutputsOfParamsAdamDriftedApartAreNotJudgedByValue) {
  auto run = [](const std::string& runner, float grad, float param, float out) {
    RunResult r = result(runner, {f32({out, 1.0f})});
    r.grads = {f32({grad})};
    r.params = {f32({param})};
    return r;
  };
  NumericOptions adam;
  adam.adaptive_step_bound = 2 * 0.001 * 2;
  RunResult ref = run("py-eager", 0.0f, 0.401f, 0.19031f), test = run("inductor", 4e-9f, 0.40113f, 0.19034f);
  EXPECT_FALSE(check_numeric(ref, test, nullptr, adam));
  RunResult undrifted = run("inductor", 4e-9f, 0.401f, 0.19034f);
  EXPECT_TRUE(check_numeric(ref, undrifted, nullptr, adam)) << "params agree: the output difference is the compiler's";
  RunResult nan = run("inductor", 4e-9f, 0.40113f, NAN);
  auto f = check_numeric(ref, nan, nullptr, adam);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->error_text, "NaN position");
  EXPECT_TRUE(check_numeric(ref, test, nullptr)) << "SGD (no slack): judged as always";
}

TEST(StatusOracle, OneSideFailing) {
  RunResult ok = result("eager", {});
  RunResult bad = result("ts-nnc", {});
  bad.status = RunStatus::crash;
  bad.stage = Stage::run;
  bad.error = "signal 11 (SIGSEGV) at 0x7ffe1234";
  auto f = check_status(ok, bad);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->stage, "run");
  EXPECT_EQ(f->error_text, "crash: signal N (SIGSEGV) at ADDR");
  EXPECT_FALSE(check_status(ok, ok));
}

TEST(Signature, NormalizesNumbersAndPaths) {
  EXPECT_EQ(normalize_error("shape '[2, 3]' is invalid for input of size 7"),
            normalize_error("shape '[4, 5]' is invalid for input of size 19"));
  EXPECT_EQ(normalize_error("error in /usr/lib/x.so line 12\nbacktrace..."), "error in PATH line N");
  // An FX node's arguments name the program's values (a campaign listed one
  // export serialization failure as 8 bugs).
  EXPECT_EQ(normalize_error("SerializeError: Failed serializing node flex_attention in graph: %flex_attention : "
                            "[num_users=3] = call_function[target=torch.ops.higher_order.flex_attention](args = "
                            "(%einsum, %einsum, %args_9), kwargs = {})"),
            normalize_error("SerializeError: Failed serializing node flex_attention in graph: %flex_attention : "
                            "[num_users=1] = call_function[target=torch.ops.higher_order.flex_attention](args = "
                            "(%matmul, %x2, %v7, 0.125), kwargs = {})"));
}

}  // namespace dlfuzz

namespace dlfuzz {
TEST(Signature, TorchScriptErrorsKeepTheRealError) {
  std::string ts =
      "The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript (most recent call last):\n  File \"<string>\", line 20, in forward\n"
      "RuntimeError: expected scalar type Float but found Double\n";
  EXPECT_EQ(normalize_error(ts), "RuntimeError: expected scalar type DTYPE but found DTYPE");
}
}  // namespace dlfuzz
