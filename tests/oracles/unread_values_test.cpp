// The cut a zero-tangent finding is checked on: the loss alone.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/unread_values.h"
#include "tests/parse_program.h"

namespace dlfuzz {

namespace {
using test::parse;
}  // namespace

// corpus/bugs/aot-unread-output-zero-tangent-inf.dlf's shape: w * inf is
// returned beside the loss; the cut keeps the loss alone.
TEST(UnreadValues, TheCutKeepsWhatTheLossReads) {
  Program p = parse(
      "dlfuzz 1 seed=0 policy=0 mode=train device=cpu world=1 plan=none target=torch2\n"
      "input %x : f32[4] special(-1,1)\n"
      "param %w : f32[4] range(-1,1)\n"
      "%1 : f32[4] = mul %w, %x\n"
      "%2 : f32[4] = mul %w, %w\n"
      "%3 : f32[] = sum %2\n"
      "return %1\n"
      "loss %3\n"
      "step sgd lr=0.01 momentum=0.0 weight_decay=0.0 steps=1\n");
  std::optional<Program> cut = cut_to_the_loss(p);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->count_nodes(), 2);
  ASSERT_EQ(cut->body.yields.size(), 1u);
  EXPECT_EQ(cut->body.yields[0], cut->train->loss);
  EXPECT_EQ(cut->inputs.size(), p.inputs.size()) << "params keep their places: grads compare one to one";
  // Nothing more to cut, and nothing to cut in inference.
  EXPECT_FALSE(cut_to_the_loss(*cut));
  p.train.reset();
  EXPECT_FALSE(cut_to_the_loss(p));
}

}  // namespace dlfuzz
