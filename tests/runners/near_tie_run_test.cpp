// A float comparison flipped by rounding upstream is labelled (near_tie.h):
// c84's bug 9, reduced, through inductor.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "oracles/near_tie.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

// le(linear(ln, w3), linear(ln, w4)): Inductor's matmul sums in another order,
// so elements where the two linears nearly tie compare the other way.
TEST(NearTieRun, ALinearsComparisonFlippedByRoundingIsLabelled) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  ParseResult r = parse_program(
      "dlfuzz 1 seed=84256 mode=train device=cpu world=1 plan=none target=torch2\n"
      "input %x1 : f32[4,6,32] range(0.0,1.0)\n"
      "input %w0 : f32[32] ones\n"
      "input %w1 : f32[32] zeros\n"
      "input %w3 : f32[32,32] range(-0.17677669529663687,0.17677669529663687)\n"
      "input %w4 : f32[32,32] range(-0.17677669529663687,0.17677669529663687)\n"
      "input %x4 : f32[1,6,32] strided zeros\n"
      "input %w11 : f32[1,6,1] zeros\n"
      "param %w12 : f32[1] zeros\n"
      "target %y0 : f32[1,1,34] zeros\n"
      "%1 : f32[4,6,32] = layer_norm %x1, normalized_shape=[32], weight=%w0, bias=%w1\n"
      "%2 : f32[4,6,32] = linear %1, %w3\n"
      "%3 : f32[4,6,4,8] = reshape %2, shape=[4,6,4,8]\n"
      "%4 : f32[4,4,6,8] = transpose %3, dim0=1, dim1=2\n"
      "%5 : f32[4,6,32] = linear %1, %w4\n"
      "%6 : f32[4,6,4,8] = reshape %5, shape=[4,6,4,8]\n"
      "%7 : f32[4,4,6,8] = transpose %6, dim0=1, dim1=2\n"
      "%8 : f32[1,1,34] = conv1d %x4, %w11, bias=%w12, padding=[1], dilation=[1]\n"
      "%9 : bool[4,4,6,8] = le %4, %7\n"
      "%10 : f32[] = l1_loss %8, %y0\n"
      "return %9\n"
      "loss %10\n"
      "step sgd lr=0.01 momentum=0.0 weight_decay=0.0 steps=1\n",
      "near_tie.dlf");
  ASSERT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
  Executor ex(test::python_options());
  auto found = evaluate(ex, r.program, {"inductor"}, /*recheck=*/true).findings;
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].first_op, kNearTie) << found[0].first_op_detail;
}

}  // namespace dlfuzz
