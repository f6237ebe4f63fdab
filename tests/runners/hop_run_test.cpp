// Control flow spelled as PyTorch 2.x's higher-order ops (generator/hop.h):
// torch.cond's branches and scan's body, nested functions over closed-over
// values, run eagerly and through Dynamo, AOTAutograd and Inductor, in
// inference and in training (their autograd), and agree with eager.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

const char* kCondThenScan =
    "input %x : f32[4,3] range(-1.0,1.0)\n"
    "%s : f32[] = sum %x\n"
    "%a : f32[] = abs %s\n"
    "%t : f32[] = mul %a, -0.25\n"
    "%c : bool[] = gt %s, %t\n"
    "%1 : f32[4,3] = if cond=%c, hop=true {\n"
    "  %2 : f32[4,3] = matmul %x, %w\n"
    "  %3 : f32[4,3] = tanh %2\n"
    "  yield %3\n"
    "} else {\n"
    "  %4 : f32[4,1] = amax %x, dim=[1], keepdim=true\n"
    "  %5 : f32[4,3] = sub %x, %4\n"
    "  yield %5\n"
    "}\n"
    "%6 : f32[4,3] = clone %1\n"
    "%7 : f32[4,3] = loop n=3, carry=[%6], hop=true (%h : f32[4,3]) {\n"
    "  %8 : f32[4,3] = matmul %h, %w\n"
    "  %9 : f32[4,3] = add %8, %1\n"
    "  %10 : f32[4,3] = sigmoid %9\n"
    "  yield %10\n"
    "}\n";

TEST(HopRun, CondAndScanAgreeWithEagerInInference) {
  if (!test::venv_imports("torch._higher_order_ops")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = test::python_findings(std::string("dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
                                                 "input %w : f32[3,3] range(-0.5,0.5)\n") +
                                         kCondThenScan + "return %7\n",
                                     {"inductor", "inductor-dynamic", "aot-eager"});
  EXPECT_TRUE(found.empty()) << found[0].detail;
}

// Their autograd: the params' gradients flow through both branches' closure
// and the scan's steps. Plain inductor takes no training scan (the corpus's
// inductor-scan-training-item-data-dependent, pytorch#153437): the cond goes
// through it, the scan through inductor-dynamic and aot-eager.
TEST(HopRun, CondAndScanGradientsAgreeWithEager) {
  if (!test::venv_imports("torch._higher_order_ops")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  const std::string head =
      "dlfuzz 1 seed=1 mode=train device=cpu world=1 plan=none target=torch2\n"
      "param %w : f32[3,3] range(-0.5,0.5)\n"
      "target %y : f32[4,3] range(-1.0,1.0)\n";
  const std::string tail = "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=2\n";
  auto cond_only = test::python_findings(
      head + kCondThenScan + "%11 : f32[] = mse_loss %1, %y\nreturn %1\nloss %11\n" + tail, {"inductor"});
  EXPECT_TRUE(cond_only.empty()) << cond_only[0].detail;
  auto both = test::python_findings(head + kCondThenScan + "%11 : f32[] = mse_loss %7, %y\nreturn %7\nloss %11\n" + tail,
                                    {"inductor-dynamic", "aot-eager"});
  EXPECT_TRUE(both.empty()) << both[0].detail;
}

}  // namespace dlfuzz
