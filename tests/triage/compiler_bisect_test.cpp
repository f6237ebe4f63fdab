// Reading PyTorch's compiler_bisector output: the last "Bisection complete"
// line's fields, whichever of them are None.
#include <gtest/gtest.h>

#include "triage/compiler_bisect.h"

namespace dlfuzz {
namespace {

TEST(CompilerBisect, ReadsTheBisectorsResultLine) {
  auto full = parse_bisection(
      "Moving to the next subsystem: inductor - lowerings\n"
      "Binary search completed for inductor - lowerings. The bisect number is 1. Debug info: var_mean\n"
      "Bisection complete: BisectionResult(backend='inductor', subsystem='lowerings', bisect_number=1, "
      "debug_info='var_mean')\n");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->backend, "inductor");
  EXPECT_EQ(full->subsystem, "lowerings");
  EXPECT_EQ(full->bisect_number, 1);
  EXPECT_EQ(full->debug_info, "var_mean");
  EXPECT_EQ(full->summary(), "inductor / lowerings #1 (var_mean)");

  auto layer_only = parse_bisection(
      "The issue is in the aot_eager system.\n"
      "Bisection complete: BisectionResult(backend='aot_eager', subsystem=None, bisect_number=None, debug_info=None)");
  ASSERT_TRUE(layer_only);
  EXPECT_EQ(layer_only->summary(), "aot_eager");
  EXPECT_EQ(layer_only->bisect_number, -1);

  // A debug_info with quotes inside is repr'd in double quotes.
  auto decomposition = parse_bisection(
      "Bisection complete: BisectionResult(backend='aot_eager_decomp_partition', subsystem='decomposition', "
      "bisect_number=0, debug_info=\"<OpOverload(op='aten.lerp', overload='Tensor')>\")\n");
  ASSERT_TRUE(decomposition);
  EXPECT_EQ(decomposition->debug_info, "<OpOverload(op='aten.lerp', overload='Tensor')>");
  EXPECT_EQ(decomposition->bisect_number, 0);

  EXPECT_FALSE(parse_bisection("Traceback (most recent call last):\n  ...\nModuleNotFoundError: torch\n"));
}

}  // namespace
}  // namespace dlfuzz
