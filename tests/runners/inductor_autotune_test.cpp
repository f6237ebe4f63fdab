// inductor-autotune compiles as inductor-freezing does, with torch.compile's
// max-autotune mode (dlfuzz_runtime.frozen's `mode`): matmuls with constant
// weights and float32 bmms are benchmarked against Inductor's C++ GEMM
// templates, and whatever wins agrees with eager; a finding freezing already
// shows is put on freezing, not on max-autotune (its ladder's top rung).
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

namespace {
bool have_torch2() { return test::venv_imports("torch._inductor.freezing"); }
}  // namespace

TEST(InductorAutotune, TunedMatmulsAgreeWithEager) {
  if (!have_torch2()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = test::python_findings(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : f32[8,16] range(-2.0,2.0)\n"
      "param %w0 : f32[32,16] range(-0.25,0.25)\n"
      "param %w1 : f32[32] range(-0.5,0.5)\n"
      "param %w2 : f32[32,8] range(-0.25,0.25)\n"
      "input %x1 : f32[2,8,16] range(-2.0,2.0)\n"
      "input %x2 : f32[2,16,4] range(-2.0,2.0)\n"
      "%1 : f32[8,32] = linear %x0, %w0, bias=%w1\n"
      "%2 : f32[8,32] = relu %1\n"
      "%3 : f32[8,8] = matmul %2, %w2\n"
      "%4 : f32[2,8,4] = bmm %x1, %x2\n"
      "return %3, %4\n",
      {"inductor-autotune"});
  EXPECT_TRUE(found.empty()) << found[0].detail;
}

// PyTorch 2.15's freezing prepacks a float64 conv weight for oneDNN, which has
// no double kernels (corpus/bugs/inductor-freezing-conv2d-float64-prepack.dlf):
// inductor-autotune fails as inductor-freezing does, so the layer is freezing's.
TEST(InductorAutotune, AFindingFreezingShowsIsPutOnFreezing) {
  if (!have_torch2()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = test::parse(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : f64[1,2,5,5] range(-2.0,2.0)\n"
      "param %w0 : f64[2,1,1,2] range(-0.5,0.5)\n"
      "%1 : f64[1,2,5,4] = conv2d %x0, %w0, stride=[1,1], padding=[0,0], groups=2\n"
      "return %1\n");
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, p, {"inductor-autotune"}, /*recheck=*/true);
  ASSERT_EQ(ev.findings.size(), 1u);
  const Finding& f = ev.findings[0];
  EXPECT_EQ(f.oracle, "status");
  EXPECT_EQ(f.stage, "compile");
  EXPECT_EQ(f.layer, "Inductor freezing (params folded as constants, weights prepacked)") << f.ablation.dump();
}

}  // namespace dlfuzz
