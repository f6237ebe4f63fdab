// The vmap runners (runners/Runners.def): a program under torch.func.vmap,
// its data inputs batched and its params shared, eagerly and compiled, gives
// eager's values in its first sample; a program outside vmap's stated limits
// is skipped; and the gap that keeps autocast programs out is still there:
// under CPU autocast, vmap's convolution gives float32 where eager gives
// bfloat16 (PyTorch 2.15, pytorch#192617's class,
// corpus/bugs/vmap-autocast-conv-float32.dlf; should a newer pinned PyTorch
// fix it, this test says so, and generator/vmappable.cpp may let them in).
#include <gtest/gtest.h>

#include <algorithm>

#include "generator/dlf.h"
#include "generator/vmappable.h"
#include "oracles/evaluate.h"
#include "runners/executor.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {
namespace {

const std::string kHead = "dlfuzz 1 seed=3 mode=infer device=cpu world=1 plan=none target=torch2\n";

TEST(VmapRun, AgreesWithEagerAndSkipsWhatVmapRefuses) {
  if (!test::venv_imports("torch.func")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  // A conv with shared weights, a Python for loop, and an in-place write
  // into a batched value.
  Program p = test::parse(kHead +
                          "input %x : f32[1,2,5,5] range(-1.0,1.0)\n"
                          "param %w : f32[3,2,3,3] range(-0.5,0.5)\n"
                          "param %b : f32[3] range(-0.5,0.5)\n"
                          "%1 : f32[1,3,3,3] = conv2d %x, %w, bias=%b, stride=[1,1], padding=[0,0], "
                          "dilation=[1,1], groups=1\n"
                          "%2 : f32[1,3,3,3] = loop n=2, carry=[%1] (%h : f32[1,3,3,3]) {\n"
                          "  %3 : f32[1,3,3,3] = relu %h\n"
                          "  %4 : f32[1,3,3,3] = mul %3, 0.5\n"
                          "  yield %4\n"
                          "}\n"
                          "%5 : f32[1,3,3,3] = add_ %2, %b\n"
                          "%6 : f32[1,3] = amax %5, dim=[2,3]\n"
                          "return %6, %5\n");
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, p, {"vmap", "inductor-vmap"}, /*recheck=*/false);
  EXPECT_TRUE(ev.skipped.empty());
  EXPECT_TRUE(ev.findings.empty()) << ev.findings[0].detail;
  // .item() of a batched value: not vmap's to run.
  Program item = test::parse(kHead +
                             "input %x : f32[4] range(-1.0,1.0)\n"
                             "%1 : f32[] = sum %x\n"
                             "%2 : f32[4] = mul %x, item(%1)\n"
                             "return %2\n");
  Evaluation skipped = evaluate(ex, item, {"vmap"}, /*recheck=*/false);
  EXPECT_NE(std::find(skipped.skipped.begin(), skipped.skipped.end(), "vmap"), skipped.skipped.end());
}

TEST(VmapRun, SeesAutocastLeaveVmapsConvolutionInFloat32) {
  if (!test::venv_imports("torch.func")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p =
      test::parse(std::string("dlfuzz 1 seed=3 mode=infer device=cpu world=1 plan=none target=torch2 autocast=bf16\n") +
                  "input %x : f32[1,2,5] range(-1.0,1.0)\n"
                  "param %w : f32[3,2,1] range(-0.5,0.5)\n"
                  "%1 : bf16[1,3,5] = conv1d %x, %w, stride=[1], padding=[0], dilation=[1], groups=1\n"
                  "return %1\n");
  EXPECT_NE(why_not_vmappable(p), "") << "campaigns leave autocast programs out";
  Executor ex(test::python_options());
  auto results = ex.run(p, {"py-eager", "vmap"});  // run directly: evaluate() would skip it
  ASSERT_EQ(results.size(), 2u);
  ASSERT_TRUE(results[0].ok() && results[1].ok()) << results[1].error;
  EXPECT_EQ(results[0].outputs.at(0).dtype, DType::bf16);
  EXPECT_EQ(results[1].outputs.at(0).dtype, DType::f32) << "fixed upstream? vmap now keeps autocast's bfloat16";
}

}  // namespace
}  // namespace dlfuzz
