// The first diverging op of an inductor-dynamic finding: its runs report the
// outputs once per batch size, and the locator compares both (they once
// stopped it with "outputs missing"). Inductor's clamp of uint8 with a
// negative bound is corpus/bugs/inductor-clamp-u8-negative-bound.dlf
// (pytorch#198071), here behind an add and over a batch that is resized.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

TEST(FirstDivergenceRun, AnInductorDynamicFindingIsLocatedAtItsOp) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  ParseResult r = parse_program(
      "dlfuzz 1 seed=9334 policy=0 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : u8[3] zeros\n"
      "%1 : u8[3] = add %x0, 1\n"
      "%2 : u8[3] = clamp %1, min=-4, max=4\n"
      "return %2\n",
      "u8_clamp.dlf");
  ASSERT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
  Executor ex(test::python_options());
  auto found = evaluate(ex, r.program, {"inductor-dynamic"}, /*recheck=*/true).findings;
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].first_op, "clamp") << found[0].first_op_detail;
}

}  // namespace dlfuzz
