// flex_attention through torch.compile on the CPU: Inductor's C++
// flex-attention template (a kernel that calls into libtorch, linked to this
// install's: runners/python/link_order.py) agrees with eager's unfused
// reference (two of the named score and mask modifications; campaigns draw the rest).
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

}  // namespace dlfuzz
