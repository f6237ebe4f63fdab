// An inductor finding that goes away with emulate_precision_casts is Inductor's
// float32 intermediates (by design), one labelled bug; a float32 one is not.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "oracles/precision_casts.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

namespace {
std::vector<Finding> findings_of(const std::string& text, const std::string& runner = "inductor") {
  ParseResult r = parse_program(text, "precision.dlf");
  EXPECT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
  Executor ex(test::python_options());
  return evaluate(ex, r.program, {runner}, /*recheck=*/true).findings;
}

// (x + 0.1) - 0.1 == x: eager rounds x + 0.1 to float16, Inductor keeps it in
// float32 and gets x back, so the comparison differs (exactly: a bool).
const char* kHalfChainComparedExactly =
    "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
    "input %x0 : f16[64] range(-2.0,2.0)\n"
    "%1 : f16[64] = add %x0, 0.1\n"
    "%2 : f16[64] = sub %1, 0.1\n"
    "%3 : bool[64] = eq %2, %x0\n"
    "return %3\n";
}  // namespace

TEST(PrecisionCasts, AHalfChainComparedExactlyIsInductorsFloat32Intermediates) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = findings_of(kHalfChainComparedExactly);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].first_op, kInductorFloat32Intermediates) << found[0].first_op_detail;
  EXPECT_NE(found[0].bug_signature().find("|first=(Inductor's float32 intermediates)"), std::string::npos);
}

// inductor-dynamic's and aoti's findings are judged by twins of their own
// (compiled as they compile, with the setting): c84's bug 10, a float16
// scaled_dot_product_attention 10 of 400 elements apart through aoti, was this.
TEST(PrecisionCasts, InductorDynamicAndAotiFindingsAreJudgedByTheirTwins) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  for (const std::string runner : {"inductor-dynamic", "aoti"}) {
    auto found = findings_of(kHalfChainComparedExactly, runner);
    ASSERT_EQ(found.size(), 1u) << runner;
    EXPECT_EQ(found[0].test_runner, runner);
    EXPECT_EQ(found[0].first_op, kInductorFloat32Intermediates) << runner << ": " << found[0].first_op_detail;
  }
}

// A real Inductor bug (clamp of a uint8 with a negative bound, pytorch#198071)
// in a program that also computes float16 values stays where it is.
TEST(PrecisionCasts, ARealBugBesideHalfValuesIsNotLabelled) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = findings_of(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : u8[] zeros\n"
      "input %x1 : f16[8] range(-2.0,2.0)\n"
      "%1 : u8[] = clamp %x0, min=-4, max=4\n"
      "%2 : f16[8] = mul %x1, 1.5\n"
      "return %1, %2\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].first_op, kInductorFloat32Intermediates) << found[0].first_op_detail;
  EXPECT_EQ(found[0].first_op, "clamp");
}

}  // namespace dlfuzz
