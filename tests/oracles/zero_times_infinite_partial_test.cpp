// A jvp runner's tangent that is NaN where the other mode's is finite, and
// every tangent its op reads is 0 there, is named kZeroTimesInfinitePartial
// (first_divergence.h): the jacfwd campaign's reduced `hypot(round(x),
// round(x))` at x = 0, where forward mode multiplies round's zero tangent by
// hypot's 0/0 partial and gets NaN, and reverse mode's round backward drops
// hypot's NaN gradient and gives 0.
#include <gtest/gtest.h>

#include <cmath>

#include "generator/dlf.h"
#include "oracles/first_divergence.h"
#include "tests/oracles/host_tensors.h"

namespace dlfuzz {
namespace {

Program reduced(const std::string& hypot_of) {
  ParseResult r = parse_program(
      "dlfuzz 1 seed=44342 policy=0 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x : f32[4] zeros\n"
      "%1 : f32[4] = round %x\n"
      "%2 : f32[4] = hypot " +
          hypot_of +
          "\n"
          "return %2\n",
      "hypot.dlf");
  EXPECT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
  return r.program;
}

HostTensor f32(std::vector<float> v) { return test::make_tensor(DType::f32, v); }

// A jvp run of q (outputs %2, %1, then their tangents) with the values 0.
RunResult jvp_run(const std::string& runner, std::vector<float> hypot_tangent, std::vector<float> round_tangent) {
  RunResult r;
  r.runner = runner;
  r.outputs = {f32({0, 0, 0, 0}), f32({0, 0, 0, 0}), f32(std::move(hypot_tangent)), f32(std::move(round_tangent))};
  return r;
}

const Node& hypot_node(const Program& q) {
  for (const auto& n : q.body.nodes)
    if (n.op == "hypot") return n;
  throw std::runtime_error("hypot");
}

TEST(ZeroTimesInfinitePartial, ANonFiniteTangentFromZeroTangentsIsNamed) {
  std::vector<int> observed;
  Program q = with_intermediates(reduced("%1, %1"), &observed);
  ASSERT_EQ(q.body.yields.size(), 2u);  // %2, then %1
  RunResult reverse = jvp_run("py-eager-jvp", {0, 0, 0, 0}, {0, 0, 0, 0});
  RunResult forward = jvp_run("jacfwd", {NAN, 0, NAN, 0}, {0, 0, 0, 0});
  EXPECT_EQ(zero_times_infinite_partial(q, hypot_node(q), reverse, forward, 2, 2, nullptr, {}), "jacfwd");
  EXPECT_EQ(zero_times_infinite_partial(q, hypot_node(q), forward, reverse, 2, 2, nullptr, {}), "jacfwd")
      << "either side may be the one that is not finite";
}

TEST(ZeroTimesInfinitePartial, ANonZeroTangentInOrAnotherDifferenceIsNot) {
  std::vector<int> observed;
  Program q = with_intermediates(reduced("%1, %1"), &observed);
  RunResult reverse = jvp_run("py-eager-jvp", {0, 0, 0, 0}, {1, 0, 0, 0});
  RunResult forward = jvp_run("jacfwd", {NAN, 0, 0, 0}, {1, 0, 0, 0});
  EXPECT_EQ(zero_times_infinite_partial(q, hypot_node(q), reverse, forward, 2, 2, nullptr, {}), "")
      << "a tangent of 1 goes in where the NaN comes out: a formula's NaN, not 0 × ∞";
  RunResult zero_in = jvp_run("py-eager-jvp", {0, 0, 0, 0}, {0, 0, 0, 0});
  RunResult also_wrong = jvp_run("jacfwd", {NAN, 0, 5, 0}, {0, 0, 0, 0});
  EXPECT_EQ(zero_times_infinite_partial(q, hypot_node(q), zero_in, also_wrong, 2, 2, nullptr, {}), "")
      << "element 2 differs too, and finitely";
  RunResult agree = jvp_run("jacfwd", {0, 0, 0, 0}, {0, 0, 0, 0});
  EXPECT_EQ(zero_times_infinite_partial(q, hypot_node(q), zero_in, agree, 2, 2, nullptr, {}), "");
}

TEST(ZeroTimesInfinitePartial, ATangentNotReturnedIsNotAssumedZero) {
  // hypot reads the input x, whose tangent the runs do not return.
  std::vector<int> observed;
  Program q = with_intermediates(reduced("%x, %1"), &observed);
  RunResult reverse = jvp_run("py-eager-jvp", {0, 0, 0, 0}, {0, 0, 0, 0});
  RunResult forward = jvp_run("jacfwd", {NAN, 0, 0, 0}, {0, 0, 0, 0});
  EXPECT_EQ(zero_times_infinite_partial(q, hypot_node(q), reverse, forward, 2, 2, nullptr, {}), "");
}

}  // namespace
}  // namespace dlfuzz
