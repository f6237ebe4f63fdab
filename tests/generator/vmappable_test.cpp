// Which programs the vmap runners take (generator/vmappable.h): the uses vmap
// refuses by design are found through the data inputs' dataflow (params are
// shared, so a param's .item() or an in-place write into a batched value is
// fine), and over many seeds a share of the generator's inference programs
// is taken.
#include <gtest/gtest.h>

#include <string>

#include "generator/generator.h"
#include "generator/vmappable.h"
#include "tests/parse_program.h"

namespace dlfuzz {
namespace {

const std::string kHead =
    "dlfuzz 1 seed=1 policy=0000000000000000 mode=infer device=cpu world=1 plan=none target=torch2\n"
    "input %x : f32[2,3] range(-1.0,1.0)\n"
    "param %w : f32[2,3] range(-1.0,1.0)\n"
    "param %s : f32[] range(-1.0,1.0)\n";

std::string why(const std::string& body) { return why_not_vmappable(test::parse(kHead + body)); }

TEST(Vmappable, APlainProgramIsTaken) {
  EXPECT_EQ(why("%1 : f32[2,3] = mul %x, %w\n"
                "%2 : f32[2,3] = relu %1\n"
                "return %2\n"),
            "");
}

TEST(Vmappable, ItemOfABatchedValueIsRefusedAndOfAParamTaken) {
  EXPECT_EQ(why("%1 : f32[2,3] = mul %x, item(%s)\n"
                "return %1\n"),
            "");
  EXPECT_NE(why("%1 : f32[] = sum %x\n"
                "%2 : f32[2,3] = mul %w, item(%1)\n"
                "return %2\n"),
            "");
}

TEST(Vmappable, AnInPlaceWriteOfABatchedValueIntoAParamIsRefused) {
  EXPECT_EQ(why("%1 : f32[2,3] = clone %x\n"
                "%2 : f32[2,3] = add_ %1, %w\n"
                "return %2\n"),
            "")
      << "a param written into a batched value";
  EXPECT_NE(why("%1 : f32[2,3] = clone %w\n"
                "%2 : f32[2,3] = add_ %1, %x\n"
                "return %2\n")
                .find("in-place add_"),
            std::string::npos);
}

TEST(Vmappable, ControlFlowOnABatchedValueIsRefused) {
  // A Python `if` on a param's value, and a Python for loop, are plain Python.
  EXPECT_EQ(why("%1 : f32[] = sum %w\n"
                "%2 : bool[] = gt %1, 0.0\n"
                "%3 : f32[2,3] = if cond=%2 {\n"
                "  %4 : f32[2,3] = mul %x, %w\n"
                "  yield %4\n"
                "} else {\n"
                "  yield %x\n"
                "}\n"
                "%5 : f32[2,3] = loop n=2, carry=[%3] (%k : f32[2,3]) {\n"
                "  %6 : f32[2,3] = tanh %k\n"
                "  yield %6\n"
                "}\n"
                "return %5\n"),
            "");
  EXPECT_EQ(why("%1 : f32[] = sum %x\n"
                "%2 : bool[] = gt %1, 0.0\n"
                "%3 : f32[2,3] = if cond=%2 {\n"
                "  yield %x\n"
                "} else {\n"
                "  yield %w\n"
                "}\n"
                "return %3\n"),
            "an if on a batched value");
}

TEST(Vmappable, ALoopCarryBecomesBatchedWhenItsNextValueIs) {
  // The carry starts as a param and is written in place with a batched value
  // in the first iteration: vmap refuses that write.
  EXPECT_NE(why("%1 : f32[2,3] = clone %w\n"
                "%2 : f32[2,3] = loop n=2, carry=[%1] (%k : f32[2,3]) {\n"
                "  %3 : f32[2,3] = mul_ %k, %x\n"
                "  yield %3\n"
                "}\n"
                "return %2\n"),
            "");
  // Its next value is batched: the loop's result is, and a write into a
  // param of that result is refused after it.
  EXPECT_NE(why("%1 : f32[2,3] = clone %w\n"
                "%2 : f32[2,3] = loop n=2, carry=[%1] (%k : f32[2,3]) {\n"
                "  %3 : f32[2,3] = mul %k, %x\n"
                "  yield %3\n"
                "}\n"
                "%4 : f32[2,3] = clone %w\n"
                "%5 : f32[2,3] = copy_ %4, %2\n"
                "return %5\n"),
            "");
}

TEST(Vmappable, AutocastAndAChannelsLastCloneOfABatchedValueAreLeftOut) {
  std::string head = kHead;
  head.replace(head.find("target=torch2"), 13, "target=torch2 autocast=bf16");
  EXPECT_NE(why_not_vmappable(test::parse(head + "%1 : f32[2,3] = relu %x\nreturn %1\n")).find("pytorch#192617"),
            std::string::npos);
  const std::string nchw =
      "dlfuzz 1 seed=1 policy=0000000000000000 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x : f32[1,2,3,3] range(-1.0,1.0)\n"
      "param %w : f32[1,2,3,3] range(-1.0,1.0)\n";
  EXPECT_NE(why_not_vmappable(test::parse(nchw + "%1 : f32[1,2,3,3] = clone %x, memory_format=channels_last\n"
                                                 "return %1\n")),
            "");
  EXPECT_EQ(why_not_vmappable(test::parse(nchw + "%1 : f32[1,2,3,3] = clone %w, memory_format=channels_last\n"
                                                 "%2 : f32[1,2,3,3] = add %1, %x\n"
                                                 "return %2\n")),
            "")
      << "a param's";
}

TEST(Vmappable, TrainingAndDrawingRandomOpsAreRefused) {
  EXPECT_NE(why("%1 : f32[2,3] = dropout %x, 0.5, true\n"
                "return %1\n"),
            "");
  EXPECT_EQ(why("%1 : f32[2,3] = dropout %x, 0.5, false\n"
                "return %1\n"),
            "")
      << "dropout in eval mode draws nothing";
}

TEST(Vmappable, ShareOfGeneratedInferenceProgramsOverManySeeds) {
  GenPolicy policy;
  policy.target = Target::torch2;
  policy.p_training = 0;
  int taken = 0;
  const int n = 600;
  for (int seed = 0; seed < n; ++seed) taken += why_not_vmappable(generate_program(policy, seed)).empty();
  // About a quarter at today's defaults (data-dependent sizes, .item() and
  // _foreach ops take most of the rest); the vmap runners need enough.
  EXPECT_GT(taken, n / 8);
  EXPECT_LT(taken, n);
}

// jacfwd batches the tangents, not the primals: what vmap refuses of a
// batched value's contents is fine, an in-place write of a value with a
// tangent into one without is not.
std::string why_tangents(const std::string& body) {
  return why_not_vmappable_tangents(test::parse(kHead + "input %i : i64[2,3] range(-3.0,3.0)\n" + body));
}

TEST(VmappableTangents, ThePrimalsAreNotBatched) {
  EXPECT_EQ(why_tangents("%1 : f32[] = sum %x\n"
                         "%2 : f32[2,3] = mul %w, item(%1)\n"
                         "%3 : f32[2,3] = dropout %2, 0.5, true\n"
                         "return %3\n"),
            "")
      << ".item() of a value with a tangent, a random op (randomness=same)";
  EXPECT_NE(why("%1 : f32[] = sum %x\n"
                "%2 : f32[2,3] = mul %w, item(%1)\n"
                "return %2\n"),
            "")
      << "as vmap's runners refuse it";
}

TEST(VmappableTangents, AnInPlaceWriteIntoATensorWithoutATangentIsRefused) {
  EXPECT_NE(why_tangents("%1 : f32[2,3] = to %i, dtype=f32\n"
                         "%2 : f32[2,3] = add_ %1, %w\n"
                         "return %2\n")
                .find("in-place add_"),
            std::string::npos)
      << "a param has a tangent too";
  EXPECT_EQ(why_tangents("%1 : f32[2,3] = clone %w\n"
                         "%2 : f32[2,3] = add_ %1, %x\n"
                         "%3 : i64[2,3] = add %i, %i\n"
                         "return %2, %3\n"),
            "")
      << "into a value with a tangent; integers have none";
  EXPECT_NE(why_tangents("%1 : f32[2,3] = zeros_like %x\n"
                         "%2 : f32[2,3] = add_ %1, %w\n"
                         "return %2\n"),
            "")
      << "zeros_like has no derivative: its output has no tangent";
  std::string head = kHead;
  head.replace(head.find("target=torch2"), 13, "target=torch2 autocast=bf16");
  EXPECT_NE(why_not_vmappable_tangents(test::parse(head + "%1 : f32[2,3] = relu %x\nreturn %1\n")), "");
}

TEST(VmappableTangents, ShareOfGeneratedInferenceProgramsOverManySeeds) {
  GenPolicy policy;
  policy.target = Target::torch2;
  policy.p_training = 0;
  int taken = 0, vmappable = 0;
  const int n = 600;
  for (int seed = 0; seed < n; ++seed) {
    Program p = generate_program(policy, seed);
    taken += why_not_vmappable_tangents(p).empty();
    vmappable += why_not_vmappable(p).empty();
  }
  // Most are taken: no .item(), size, mask or tensor-list rule; autocast and
  // higher-order ops leave most of the rest.
  EXPECT_GT(taken, vmappable);
  EXPECT_GT(taken, n / 2);
  EXPECT_LT(taken, n);
}

}  // namespace
}  // namespace dlfuzz
