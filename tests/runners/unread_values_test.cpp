// A gradient finding that goes away on the program cut to its loss is the
// zero-tangent family (pytorch#131794), one bug; a real backward bug is not.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "oracles/unread_values.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

namespace {
Finding only_finding(const ParseResult& r, const std::string& runner) {
  EXPECT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, r.program, {runner}, /*recheck=*/true);
  EXPECT_EQ(ev.findings.size(), 1u);
  return ev.findings.empty() ? Finding{} : ev.findings[0];
}

Finding only_finding(const std::string& corpus_file, const std::string& runner) {
  return only_finding(load_program(std::string(DLFUZZ_SOURCE_DIR) + "/corpus/bugs/" + corpus_file), runner);
}
}  // namespace

TEST(UnreadValues, AnUnreadOutputsNaNGradientIsTheZeroTangentFamily) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Finding f = only_finding("aot-unread-output-zero-tangent-inf.dlf", "aot-eager");
  EXPECT_EQ(f.stage, "grad");
  EXPECT_EQ(f.first_op, kUnreadByTheLoss) << f.first_op_detail;
  EXPECT_NE(f.bug_signature().find("|first=(values the loss does not read)"), std::string::npos);
}

// Two steps: the NaN gradient of the unread w * inf updated w, so the output
// w + 1 of step 2 differs first; the one-step run differs at the gradient.
TEST(UnreadValues, AnOutputAfterAStepWithSuchAGradientIsTheFamilyToo) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  const char* program =
      "dlfuzz 1 seed=0 policy=0 mode=train device=cpu world=1 plan=none target=torch2\n"
      "param %w : f32[] zeros\n"
      "target %y : f32[] zeros\n"
      "%1 : f32[] = mul %w, inf\n"
      "%2 : f32[] = mse_loss %w, %y\n"
      "%3 : f32[] = add %w, 1.0\n"
      "return %1, %3\n"
      "loss %2\n"
      "step sgd lr=0.001 momentum=0.0 weight_decay=0.0 steps=2\n";
  Finding f = only_finding(parse_program(program, "two_steps.dlf"), "aot-eager");
  EXPECT_EQ(f.stage, "output");
  EXPECT_EQ(f.first_op, kUnreadByTheLoss) << f.first_op_detail;
}

// smooth_l1_loss's decomposed backward gives NaN with the loss alone: a real
// backward bug keeps its own place.
TEST(UnreadValues, ABackwardBugOfTheLossItselfIsNot) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Finding f = only_finding("decomp-smooth-l1-backward-nan.dlf", "aot-decomp");
  EXPECT_EQ(f.stage, "grad");
  EXPECT_NE(f.first_op, kUnreadByTheLoss) << f.first_op_detail;
}

}  // namespace dlfuzz
