// inductor-freezing compiles a module holding the program's params with
// Inductor's freezing (dlfuzz_runtime.frozen): conv and linear weights folded
// and prepacked agree with eager, a param the program writes reads as eager's,
// and a frozen graph Inductor cannot compile is a status finding at compile.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

namespace {
std::vector<Finding> freezing_findings(const std::string& text) {
  return test::python_findings(text, {"inductor-freezing"});
}

bool have_torch2() { return test::venv_imports("torch._inductor.freezing"); }

using test::parse;

const char* kConvLinear =
    "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
    "input %x0 : f32[2,3,6,6] range(-2.0,2.0)\n"
    "param %w0 : f32[4,3,3,3] range(-0.5,0.5)\n"
    "param %w1 : f32[4] range(-0.5,0.5)\n"
    "param %w2 : f32[5,16] range(-0.5,0.5)\n"
    "%1 : f32[2,4,4,4] = conv2d %x0, %w0, bias=%w1, stride=[1,1], padding=[0,0]\n"
    "%2 : f32[2,4,4,4] = relu %1\n"
    "%3 : f32[2,4,16] = reshape %2, shape=[2,4,16]\n"
    "%4 : f32[2,4,5] = linear %3, %w2\n"
    "return %4\n";

const char* kWritesItsParam =
    "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
    "input %x0 : f32[4,3] range(-2.0,2.0)\n"
    "param %w0 : f32[2,3] range(-0.5,0.5)\n"
    "%1 : f32[2,3] = add_ %w0, 0.5\n"
    "%2 : f32[4,2] = linear %x0, %w0\n"
    "return %2\n";

std::string training(const std::string& step) {
  return "dlfuzz 1 seed=1 mode=train device=cpu world=1 plan=none target=torch2\n"
         "input %x0 : f32[4,8] range(-2.0,2.0)\n"
         "param %w0 : f32[3,8] range(-0.5,0.5)\n"
         "target %y0 : f32[4,3] range(-1.0,1.0)\n"
         "%1 : f32[4,3] = linear %x0, %w0\n"
         "%2 : f32[4,3] = relu %1\n"
         "%3 : f32[] = mse_loss %2, %y0\n"
         "return %2\n"
         "loss %3\n" +
         step + "\n";
}
}  // namespace

TEST(InductorFreezing, FrozenConvAndLinearWeightsAgreeWithEager) {
  if (!have_torch2()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = freezing_findings(kConvLinear);
  EXPECT_TRUE(found.empty()) << found[0].detail;
}

// The runner writes what the program left in a param back (each call starts
// from the param's value again): warm-up and checked calls agree with eager.
TEST(InductorFreezing, AParamTheProgramWritesReadsAsEagersDoes) {
  if (!have_torch2()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = freezing_findings(kWritesItsParam);
  EXPECT_TRUE(found.empty()) << found[0].detail;
}

// In a campaign's batch: the inference programs' list of runners has
// inductor-freezing, the training programs' has not, so each mode is a
// request of its own (Executor::prefetch), and the frozen module holds both
// inference programs' params (batching.Combined).
TEST(InductorFreezing, InferenceAndTrainingProgramsBatchApart) {
  if (!have_torch2()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  std::vector<Program> programs = {
      parse(kConvLinear), parse(training("step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=2")),
      parse(kWritesItsParam), parse(training("step adam lr=0.01 momentum=0.0 weight_decay=0.0 steps=2"))};
  const std::vector<std::string> runners = {"inductor", "inductor-freezing"};
  Executor ex(test::python_options());
  ex.prefetch(programs, runners);
  for (const auto& p : programs) {
    ASSERT_TRUE(ex.prefetched(p)) << print_program(p);
    Evaluation ev = evaluate(ex, p, runners, false);
    EXPECT_TRUE(ev.findings.empty()) << ev.findings.front().detail;
    bool frozen = false;
    for (const auto& r : ev.results) {
      EXPECT_TRUE(r.ok()) << r.runner << ": " << r.error;
      frozen |= r.runner == "inductor-freezing";
    }
    EXPECT_EQ(frozen, !p.is_training()) << print_program(p);
  }
}

// PyTorch 2.15 prepacks a float64 conv weight for oneDNN, which has no double
// kernels (found by dlfuzz; eager runs it): the compile fails.
TEST(InductorFreezing, AFrozenGraphThatFailsToCompileIsAStatusFinding) {
  if (!have_torch2()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = freezing_findings(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : f64[1,2,5,5] range(-2.0,2.0)\n"
      "param %w0 : f64[2,1,1,2] range(-0.5,0.5)\n"
      "%1 : f64[1,2,5,4] = conv2d %x0, %w0, stride=[1,1], padding=[0,0], groups=2\n"
      "return %1\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].oracle, "status");
  EXPECT_EQ(found[0].stage, "compile");
}

}  // namespace dlfuzz
