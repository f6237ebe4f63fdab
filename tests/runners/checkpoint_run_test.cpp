// A checkpointed training program through the Python worker: eager's
// recomputation in backward gives the gradients and params the same program
// without checkpointing gives, bit for bit, and Inductor (which traces the
// region as a higher-order op and recomputes it in its backward graph) agrees.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "runners/executor.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {
namespace {

const char* kHead =
    "dlfuzz 1 seed=1 mode=train device=cpu world=1 plan=none target=torch2\n"
    "input %x0 : f32[4,8] range(-2.0,2.0)\n"
    "param %w0 : f32[6,8] range(-0.5,0.5)\n"
    "param %w1 : f32[3,6] range(-0.5,0.5)\n"
    "target %y0 : f32[4,3] range(-1.0,1.0)\n";
const char* kTail =
    "%5 : f32[] = mse_loss %4, %y0\n"
    "return %4\n"
    "loss %5\n"
    "step adam lr=0.01 momentum=0.0 weight_decay=0.0 steps=2\n";

// The region reads %x0 as its argument and %w0, %w1 as a closure does.
const char* kCheckpointed =
    "%3 : f32[4,6], %4 : f32[4,3] = checkpoint inputs=[%x0] (%c : f32[4,8]) {\n"
    "  %1 : f32[4,6] = linear %c, %w0\n"
    "  %2 : f32[4,6] = gelu %1\n"
    "  %6 : f32[4,3] = linear %2, %w1\n"
    "  yield %2, %6\n"
    "}\n";
const char* kPlain =
    "%3 : f32[4,6] = linear %x0, %w0\n"
    "%6 : f32[4,6] = gelu %3\n"
    "%4 : f32[4,3] = linear %6, %w1\n";

TEST(CheckpointRun, EagerRecomputationGivesWhatThePlainProgramGives) {
  if (!test::venv_imports("torch._inductor")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Executor ex(test::python_options());
  std::vector<RunResult> ck = ex.run(test::parse(std::string(kHead) + kCheckpointed + kTail), {"py-eager"});
  std::vector<RunResult> plain = ex.run(test::parse(std::string(kHead) + kPlain + kTail), {"py-eager"});
  ASSERT_EQ(ck.size(), 1u);
  ASSERT_EQ(plain.size(), 1u);
  ASSERT_TRUE(ck[0].ok()) << ck[0].error;
  ASSERT_TRUE(plain[0].ok()) << plain[0].error;
  ASSERT_EQ(ck[0].params.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(ck[0].grads[k].bytes, plain[0].grads[k].bytes) << "grad " << k;
    EXPECT_EQ(ck[0].params[k].bytes, plain[0].params[k].bytes) << "param " << k;
  }
  EXPECT_EQ(ck[0].losses, plain[0].losses);
}

TEST(CheckpointRun, InductorAgreesWithEager) {
  if (!test::venv_imports("torch._inductor")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = test::python_findings(std::string(kHead) + kCheckpointed + kTail, {"inductor"});
  EXPECT_TRUE(found.empty()) << found[0].detail;
}

}  // namespace
}  // namespace dlfuzz
