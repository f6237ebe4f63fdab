// flex_attention through torch.compile on the CPU: Inductor's C++
// flex-attention template (a kernel that calls into libtorch, linked to this
// install's: runners/python/link_order.py) agrees with eager's unfused
// reference (some of the named score and mask modifications; campaigns draw the rest).
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

TEST(FlexAttentionRun, InductorsTemplateAgreesWithEager) {
  if (!test::venv_imports("torch.nn.attention.flex_attention")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = test::python_findings(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %q : f32[1,2,6,8] range(-1.0,1.0)\n"
      "input %k : f32[1,2,4,8] range(-1.0,1.0)\n"
      "input %v : f32[1,2,4,3] range(-1.0,1.0)\n"
      "%1 : f32[1,2,6,3] = flex_attention %q, %k, %v, score_mod=\"alibi\", block_mask=\"causal\"\n"
      "%2 : f32[1,2,6,3] = flex_attention %q, %k, %v, score_mod=\"softcap\", block_mask=\"document\", scale=0.5\n"
      "return %1, %2\n",
      {"inductor"});
  EXPECT_TRUE(found.empty()) << found[0].detail;
}

// Grouped-query attention, and mods that read tensors the function captures
// (passed in: a captured tensor computed inside fails to compile on the CPU
// in PyTorch 2.15, a campaign's finding).
TEST(FlexAttentionRun, GroupedQueriesAndCapturedTablesAgreeWithEager) {
  if (!test::venv_imports("torch.nn.attention.flex_attention")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  auto found = test::python_findings(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %q : f32[1,4,6,8] range(-1.0,1.0)\n"
      "input %k : f32[1,2,4,8] range(-1.0,1.0)\n"
      "input %v : f32[1,2,4,3] range(-1.0,1.0)\n"
      "input %t : f32[9] range(-1.0,1.0)\n"
      "input %d : i64[6] range(0,3)\n"
      "%1 : f32[1,4,6,3] = flex_attention %q, %k, %v, score_mod=\"relative_bias\", bias=%t, enable_gqa=true\n"
      "%2 : f32[1,4,6,3] = flex_attention %q, %k, %v, block_mask=\"document_ids\", doc_ids=%d, enable_gqa=true\n"
      "return %1, %2\n",
      {"inductor"});
  EXPECT_TRUE(found.empty()) << found[0].detail;
}

}  // namespace dlfuzz
