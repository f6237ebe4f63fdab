// inductor-ca runs each forward and its backward under Compiled Autograd
// (dlfuzz_runtime.compiled_autograd): the hooks a training program registers
// on intermediates (grad_hook) are traced into the forward graph and run in
// the compiled backward, and the gradients they change agree with eager's,
// as they do through plain inductor (where Dynamo traces them too).
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

TEST(InductorCa, HookedGradientsAgreeWithEager) {
  if (!test::venv_imports("torch._dynamo.compiled_autograd")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = test::python_findings(
      "dlfuzz 1 seed=1 mode=train device=cpu world=1 plan=none target=torch2\n"
      "input %x : f32[4,3] range(-1.0,1.0)\n"
      "param %w : f32[3,5] range(-0.5,0.5)\n"
      "target %y : f32[4,5] range(-1.0,1.0)\n"
      "%1 : f32[4,5] = matmul %x, %w\n"
      "%2 : f32[4,5] = grad_hook %1, hook=\"scale\"\n"
      "%3 : f32[4,5] = tanh %2\n"
      "%4 : f32[4,5] = grad_hook %3, hook=\"captured\", other=%1\n"
      "%5 : f32[4,5] = sigmoid %4\n"
      "%6 : f32[4,5] = grad_hook %5, hook=\"normalize\"\n"
      "%7 : f32[4,5] = mul %6, %6\n"
      "%8 : f32[4,5] = grad_hook %7, hook=\"clip\"\n"
      "%9 : f32[] = mse_loss %8, %y\n"
      "return %8\nloss %9\n"
      "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=2\n",
      {"inductor-ca", "inductor"});
  EXPECT_TRUE(found.empty()) << found[0].detail;
}

}  // namespace dlfuzz
