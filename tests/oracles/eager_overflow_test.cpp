// A first diverging op that reads a value eager computed as Inf or NaN where
// float64 is finite is named after that overflow (first_divergence.h): the
// inductor campaign of session 28, reduced, `nextafter(sum(|x|), kl_div(sum,
// vector_norm(x, 1), log_target))`: exp(108.5) is Inf in float32, and times
// the difference of two sums that rounded apart it is Inf in eager and NaN
// compiled; nextafter then makes eager's Inf a finite value.
#include <gtest/gtest.h>

#include <cmath>

#include "generator/dlf.h"
#include "oracles/first_divergence.h"
#include "tests/oracles/host_tensors.h"

namespace dlfuzz {
namespace {

Program reduced() {
  ParseResult r = parse_program(
      "dlfuzz 1 seed=7526 policy=0 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : f32[6,3,6] range(-2.0,2.0)\n"
      "%1 : f32[6,3,6] = abs %x0\n"
      "%2 : f32[] = sum %1\n"
      "%3 : f32[] = linalg_vector_norm %x0, ord=1\n"
      "%4 : f32[] = kl_div %2, %3, log_target=true\n"
      "%5 : f32[] = nextafter %2, %4\n"
      "return %5\n",
      "overflow.dlf");
  EXPECT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
  return r.program;
}

// A run of the program with its intermediates returned: kl_div's value is
// `kl`, every other 0-d value 108.5 and the abs ones.
RunResult run_of(const Program& q, double kl) {
  RunResult r;
  for (int id : q.body.yields) {
    const TensorType& t = q.type(id);
    if (t.shape.empty()) {
      r.outputs.push_back(
          test::make_tensor(t.dtype, {}, std::vector<float>{float(q.values.at(id).name == "4" ? kl : 108.5)}));
    } else {
      r.outputs.push_back(test::make_tensor(t.dtype, t.shape, std::vector<float>(t.numel(), 1.0f)));
    }
  }
  return r;
}

const Node& node_named(const Program& q, const std::string& op) {
  for (const auto& n : q.body.nodes)
    if (n.op == op) return n;
  throw std::runtime_error(op);
}

TEST(EagerOverflow, AnOpReadingEagersOverflowedValueIsNamedAfterIt) {
  std::vector<int> observed;
  Program q = with_intermediates(reduced(), &observed);
  RunResult eager = run_of(q, INFINITY), fp64 = run_of(q, 1e30);
  int v = reads_eager_overflow(q, node_named(q, "nextafter"), eager, fp64);
  ASSERT_GE(v, 0);
  EXPECT_EQ(q.values.at(v).name, "4");
  // Where float64 overflows too, or eager did not, it is an ordinary divergence.
  RunResult fp64_inf = run_of(q, INFINITY), eager_finite = run_of(q, 3.0);
  EXPECT_EQ(reads_eager_overflow(q, node_named(q, "nextafter"), eager, fp64_inf), -1);
  EXPECT_EQ(reads_eager_overflow(q, node_named(q, "nextafter"), eager_finite, fp64), -1);
  // An op that does not read the overflowed value is not named after it.
  EXPECT_EQ(reads_eager_overflow(q, node_named(q, "sum"), eager, fp64), -1);
  // No float64 run, no judgement.
  fp64.status = RunStatus::exception;
  EXPECT_EQ(reads_eager_overflow(q, node_named(q, "nextafter"), eager, fp64), -1);
}

}  // namespace
}  // namespace dlfuzz
