// fake-crossref runs a program eagerly with every ATen call checked against its
// FakeTensor twin: a meta kernel that gives another layout or shape than eager
// is a finding named by its op; a program whose meta kernels agree is none.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

namespace {
std::vector<Finding> crossref_findings(const std::string& text) {
  return test::python_findings(text, {"fake-crossref"});
}
}  // namespace

// copysign's meta returns contiguous strides for a channels_last input where
// eager keeps channels_last (pytorch#198364; corpus/bugs/aot-copysign-...).
TEST(FakeCrossref, AMetaKernelsOtherStridesAreAFindingNamedByItsOp) {
  if (!test::venv_imports("torch._subclasses.fake_utils")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = crossref_findings(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : f32[1,3,3,2] channels_last range(-2.0,2.0)\n"
      "input %x1 : f32[1,1] strided range(-2.0,2.0)\n"
      "%1 : f32[1,3,3,2] = copysign %x0, %x1\n"
      "return %1\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].test_runner, "fake-crossref");
  EXPECT_EQ(found[0].oracle, "status");
  EXPECT_NE(found[0].detail.find("aten.copysign"), std::string::npos) << found[0].detail;
  EXPECT_NE(found[0].detail.find("Stride mismatch"), std::string::npos) << found[0].detail;
}

// The same op on a contiguous input, and a training step through linear and
// relu (backward and optimizer ops checked too): no finding.
TEST(FakeCrossref, AgreeingMetaKernelsAreNoFinding) {
  if (!test::venv_imports("torch._subclasses.fake_utils")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  EXPECT_TRUE(crossref_findings("dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
                                "input %x0 : f32[1,3,3,2] range(-2.0,2.0)\n"
                                "input %x1 : f32[1,1] range(-2.0,2.0)\n"
                                "%1 : f32[1,3,3,2] = copysign %x0, %x1\n"
                                "return %1\n")
                  .empty());
  EXPECT_TRUE(crossref_findings("dlfuzz 1 seed=1 mode=train device=cpu world=1 plan=none target=torch2\n"
                                "input %x0 : f32[4,8] range(-2.0,2.0)\n"
                                "param %w0 : f32[3,8] range(-0.5,0.5)\n"
                                "target %y0 : f32[4,3] range(-1.0,1.0)\n"
                                "%1 : f32[4,3] = linear %x0, %w0\n"
                                "%2 : f32[4,3] = relu %1\n"
                                "%3 : f32[] = mse_loss %2, %y0\n"
                                "return %2\n"
                                "loss %3\n"
                                "step adam lr=0.01 momentum=0.0 weight_decay=0.0 steps=2\n")
                  .empty());
}

}  // namespace dlfuzz
