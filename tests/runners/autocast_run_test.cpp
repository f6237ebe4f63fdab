// An autocast program through the Python worker: Inductor compiles the
// forward's autocast region as eager runs it (bf16 matmul, float32 loss), in
// training too; LibTorch's runners refuse it (they do not autocast).
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "runners/executor.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {
namespace {

const char* kLinearTraining =
    "dlfuzz 1 seed=1 mode=train device=cpu world=1 plan=none target=torch2 autocast=bf16\n"
    "input %x0 : f32[4,8] range(-2.0,2.0)\n"
    "param %w0 : f32[3,8] range(-0.5,0.5)\n"
    "param %w1 : f32[3] range(-0.5,0.5)\n"
    "target %y0 : f32[4,3] range(-1.0,1.0)\n"
    "%1 : bf16[4,3] = linear %x0, %w0, bias=%w1\n"
    "%2 : bf16[4,3] = relu %1\n"
    "%3 : f32[] = mse_loss %2, %y0\n"
    "return %2\n"
    "loss %3\n"
    "step sgd lr=0.01 momentum=0.0 weight_decay=0.0 steps=2\n";

TEST(AutocastRun, InductorAgreesWithEagerUnderAutocast) {
  if (!test::venv_imports("torch._inductor")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = test::python_findings(kLinearTraining, {"inductor"});
  EXPECT_TRUE(found.empty()) << found[0].detail;
  Executor ex(test::python_options());
  std::vector<RunResult> rs = ex.run(test::parse(kLinearTraining), {"py-eager"});
  ASSERT_EQ(rs.size(), 1u);
  ASSERT_TRUE(rs[0].ok()) << rs[0].error;
  ASSERT_EQ(rs[0].outputs.size(), 1u);
  EXPECT_EQ(rs[0].outputs[0].dtype, DType::bf16);  // the linear ran in bfloat16
}

TEST(AutocastRun, LibTorchRunnersRefuseIt) {
  Executor ex(test::python_options());  // its dlfuzz binary runs the C++ worker too
  std::vector<RunResult> rs = ex.run(test::parse(kLinearTraining), {"eager"});
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_FALSE(rs[0].ok());
  EXPECT_NE(rs[0].error.find("autocast programs run in the Python worker"), std::string::npos) << rs[0].error;
}

}  // namespace
}  // namespace dlfuzz
