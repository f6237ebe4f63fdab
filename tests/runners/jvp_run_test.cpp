// The jvp runners (runners/Runners.def): a program through forward-mode AD
// (torch.func.jvp), eagerly, compiled and under vmap over a batch of tangents
// (jacfwd), gives eager's outputs and the directional derivatives reverse
// mode gives (py-eager-jvp, by the double-vjp trick), and through jvp of jvp
// (jvp2) the second ones reverse mode four times deep gives; a program with an op
// forward mode does not support fails in the reference as in the runners, and
// is no finding.
#include <gtest/gtest.h>

#include <cmath>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "oracles/first_divergence.h"
#include "runners/executor.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {
namespace {

const std::string kHead = "dlfuzz 1 seed=3 mode=infer device=cpu world=1 plan=none target=torch2\n";

TEST(JvpRun, ForwardModeAgreesWithReverseModeEagerlyAndCompiled) {
  if (!test::venv_imports("torch.func")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  // A conv, a Python loop, an in-place write into a value, an integer output,
  // and batch_norm's running statistics as params (forward mode refuses a
  // tangent on them: every runner then gives tangents to the data alone).
  Program p = test::parse(kHead +
                          "input %x : f32[1,2,5,5] range(-1.0,1.0)\n"
                          "param %w : f32[3,2,3,3] range(-0.5,0.5)\n"
                          "param %m : f32[3] range(-0.5,0.5)\n"
                          "param %v : f32[3] range(0.5,2.0)\n"
                          "%1 : f32[1,3,3,3] = conv2d %x, %w, bias=None, stride=[1,1], padding=[0,0], "
                          "dilation=[1,1], groups=1\n"
                          "%2 : f32[1,3,3,3] = loop n=2, carry=[%1] (%h : f32[1,3,3,3]) {\n"
                          "  %3 : f32[1,3,3,3] = tanh %h\n"
                          "  %4 : f32[1,3,3,3] = mul %3, %h\n"
                          "  yield %4\n"
                          "}\n"
                          "%5 : f32[1,3,3,3] = batch_norm %2, None, None, %m, %v, training=false, momentum=0.1, "
                          "eps=1e-05, cudnn_enabled=true\n"
                          "%6 : f32[1,3,3,3] = add_ %5, %1\n"
                          "%7 : i64[1,3,3] = argmax %6, dim=2\n"
                          "return %6, %7\n");
  Executor ex(test::python_options());
  auto results = ex.run(p, {"py-eager-jvp", "jvp"});
  ASSERT_EQ(results.size(), 2u);
  ASSERT_TRUE(results[0].ok()) << results[0].error;
  ASSERT_EQ(results[0].outputs.size(), 4u) << "two outputs, then their tangents";
  EXPECT_EQ(results[0].outputs[3].dtype, DType::i64) << "an integer output's tangent: zeros of its dtype";
  Evaluation ev = evaluate(ex, p, {"jvp", "inductor-jvp", "jacfwd", "jvp2", "inductor-jvp2"}, /*recheck=*/false);
  EXPECT_TRUE(ev.skipped.empty());
  EXPECT_TRUE(ev.reference_failures.empty()) << ev.reference_failures[0].error;
  EXPECT_TRUE(ev.findings.empty()) << ev.findings[0].detail;
}

TEST(JvpRun, AnOpForwardModeDoesNotSupportIsNoFinding) {
  if (!test::venv_imports("torch.func")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = test::parse(kHead +
                          "input %x : f32[4] range(1.0,3.0)\n"
                          "input %y : f32[4] range(1.0,3.0)\n"
                          "%1 : f32[4] = floor_divide %x, %y\n"
                          "return %1\n");
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, p, {"jvp"}, /*recheck=*/false);
  ASSERT_EQ(ev.reference_failures.size(), 1u) << "forward mode has no formula for floor_divide";
  EXPECT_NE(ev.reference_failures[0].error.find("forward AD"), std::string::npos) << ev.reference_failures[0].error;
  EXPECT_TRUE(ev.findings.empty()) << ev.findings[0].detail;
}

// Where forward and reverse mode disagree, central differences in float64
// arbitrate: layer_norm's double backward drops a bias's tangent when there is
// no weight (pytorch#79705, open in PyTorch 2.15; here the bias is the only
// float input), so reverse mode twice says J·u = 0 where forward mode and the
// differences say u. That is reverse
// mode's bug, not a finding of the jvp runner. Should a newer pinned PyTorch
// fix it, the second expectation says so.
TEST(JvpRun, AWrongDoubleBackwardIsNotPutOnForwardMode) {
  if (!test::venv_imports("torch.func")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = test::parse(kHead +
                          "input %i : i64[2,3] range(-3.0,3.0)\n"
                          "param %b : f32[3] range(-0.5,0.5)\n"
                          "%1 : f32[2,3] = to %i, dtype=f32\n"
                          "%2 : f32[2,3] = layer_norm %1, normalized_shape=[3], bias=%b, eps=0.1\n"
                          "return %2\n");
  Executor ex(test::python_options());
  auto results = ex.run(p, {"py-eager-jvp", "py-eager64-jvp", "jvp"});
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.runner << ": " << r.error;
  const HostTensor &reverse = results[0].outputs.at(1), &differences = results[1].outputs.at(1),
                   &forward = results[2].outputs.at(1);
  EXPECT_NEAR(forward.at(0), differences.at(0), 1e-5) << "forward mode agrees with the differences";
  EXPECT_GT(std::abs(reverse.at(0) - differences.at(0)), 1e-3)
      << "fixed upstream? reverse mode twice now gives a bias's tangent (pytorch#79705)";
  Evaluation ev = evaluate(ex, p, {"jvp"}, /*recheck=*/false);
  EXPECT_TRUE(ev.findings.empty()) << ev.findings[0].detail;
}

// Points where an op has no finite derivative, from the jacfwd campaign: at
// atan2(x, x) of x = 0 forward mode gives NaN, reverse mode 0 and the
// differences 1/h (a jump): the program has no derivative there and the
// arbiter's NaN says so, so no tangent is wrong. hypot(round(x), round(x)) of
// x = 0 has one (0: round is flat), but forward mode multiplies round's zero
// tangent by hypot's 0/0 partial and gets NaN: a finding, named as the chain
// rule's 0 × ∞ (first_divergence.h), one bug apart from real ones.
TEST(JvpRun, NoDerivativeAtAPointIsNoFindingAndZeroTimesInfinityIsNamed) {
  if (!test::venv_imports("torch.func")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program jump = test::parse(kHead +
                             "input %x : f32[2] zeros\n"
                             "%1 : f32[2] = atan2 %x, %x\n"
                             "return %1\n");
  Executor ex(test::python_options());
  auto results = ex.run(jump, {"py-eager64-jvp"});
  ASSERT_TRUE(results[0].ok()) << results[0].error;
  EXPECT_TRUE(std::isnan(results[0].outputs.at(1).at(0))) << "the differences find no derivative";
  Evaluation ev = evaluate(ex, jump, {"jvp"}, /*recheck=*/false);
  EXPECT_TRUE(ev.findings.empty()) << ev.findings[0].detail;

  Program flat = test::parse(kHead +
                             "input %x : f32[2] zeros\n"
                             "%1 : f32[2] = round %x\n"
                             "%2 : f32[2] = hypot %1, %1\n"
                             "return %2\n");
  ev = evaluate(ex, flat, {"jvp"}, /*recheck=*/false);
  ASSERT_EQ(ev.findings.size(), 1u);
  locate_first_divergence(ex, flat, ev.findings);
  EXPECT_EQ(ev.findings[0].first_op, kZeroTimesInfinitePartial) << ev.findings[0].first_op_detail;
}

}  // namespace
}  // namespace dlfuzz
