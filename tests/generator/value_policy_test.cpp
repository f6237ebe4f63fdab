// The value policy: special and written input values and numbers, their share
// of generated programs, their .dlf spelling, and branch conditions that do not
// sit where the data sums.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/generator.h"
#include "generator/summary.h"
#include "generator/verify.h"

namespace dlfuzz {
namespace {

bool has_init(const Program& p, Init init) {
  for (const auto& in : p.inputs)
    if (in.init == init) return true;
  return false;
}

bool has_special_number(const Program& p) {
  bool found = false;
  for_each_node(p.body, [&](const Node& n) {
    for (const auto& a : n.args)
      if (auto* d = std::get_if<double>(&a.value)) found = found || is_special_number(*d);
  });
  return found;
}

TEST(ValuePolicy, SpecialValuesAreMixedInAtAModerateShare) {
  GenPolicy policy;
  int special = 0, special_inputs = 0, written = 0;
  const int kSeeds = 2000;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    Program p = generate_program(policy, seed);
    bool in = has_init(p, Init::special);
    special_inputs += in;
    special += in || has_special_number(p);
    EXPECT_EQ(summarize(p).special_values, in || has_special_number(p)) << "seed " << seed;
    written += has_init(p, Init::ints) || has_init(p, Init::decimals);
  }
  // Per-input and per-number chances of 6%, over programs of ~30 nodes with
  // many scalar arguments, give about a third of the programs (36% with fill_).
  EXPECT_GE(special, kSeeds * 8 / 100);
  EXPECT_LE(special, kSeeds * 40 / 100);
  EXPECT_GE(special_inputs, kSeeds * 4 / 100);
  EXPECT_GE(written, kSeeds * 15 / 100);

  GenPolicy off = policy;
  off.p_special_values = 0;
  off.p_written_values = 0;
  // (Other knobs may still draw a -0.0 bound; no input and no number is NaN or Inf.)
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Program p = generate_program(off, seed);
    EXPECT_FALSE(has_init(p, Init::special) || has_init(p, Init::ints) || has_init(p, Init::decimals))
        << "seed " << seed;
    for_each_node(p.body, [&](const Node& n) {
      for (const auto& a : n.args)
        // (A vector norm's ord=inf names the max norm: an attribute, not a value.)
        if (auto* d = std::get_if<double>(&a.value); d && a.name != "ord") {
          EXPECT_TRUE(std::isfinite(*d)) << "seed " << seed;
        }
    });
  }
}

TEST(ValuePolicy, InitsAndSpecialNumbersRoundTrip) {
  const std::string text =
      "dlfuzz 1 seed=3 policy=0000000000000000 mode=infer device=cpu world=1 plan=none\n"
      "input %x0 : f32[4] special(-2.0,2.0)\n"
      "input %x1 : f16[4] ints(-4.0,5.0)\n"
      "input %x2 : bf16[2,2] decimals(-2.0,2.0)\n"
      "%1 : f32[4] = add %x0, nan\n"
      "%2 : f32[4] = mul %1, -0.0\n"
      "%3 : f32[4] = sub %2, -inf\n"
      "%4 : f32[4] = add %3, 2.938735877055719e-39\n"
      "return %4, %x1, %x2\n";
  ParseResult r = parse_program(text, "special.dlf");
  ASSERT_TRUE(r.ok()) << r.error->str();
  EXPECT_EQ(print_program(r.program), text);
  EXPECT_TRUE(parse_program(print_program(r.program)).program == r.program);
  EXPECT_EQ(r.program.inputs[0].init, Init::special);
  EXPECT_TRUE(std::signbit(std::get<double>(r.program.body.nodes[1].args[1].value)));
  // The emitters spell them as Python and TorchScript read them.
  std::string py = emit_function(r.program, "f", false);
  EXPECT_NE(py.find("float('nan')"), std::string::npos) << py;
  EXPECT_NE(py.find("-0.0"), std::string::npos) << py;
  EXPECT_NE(py.find("float('-inf')"), std::string::npos) << py;
  // -0.0 and 0.0 are different programs.
  std::string positive = text;
  positive.replace(positive.find("-0.0\n"), 4, "0.0");
  EXPECT_FALSE(parse_program(positive).program == r.program);
}

TEST(ValuePolicy, SpecialValuesNeedAFloatingInput) {
  ParseResult r = parse_program(
      "dlfuzz 1 seed=3 policy=0000000000000000 mode=infer device=cpu world=1 plan=none\n"
      "input %x0 : i64[4] special(-2.0,2.0)\nreturn %x0\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error->str().find("floating"), std::string::npos) << r.error->str();
}

// Float32 sums of one vector in two orders, as eager and a compiled kernel
// may add it up.
float sum_forward(const std::vector<float>& v) {
  float s = 0;
  for (float x : v) s += x;
  return s;
}
float sum_pairwise(const std::vector<float>& v, size_t lo, size_t hi) {
  if (hi - lo == 1) return v[lo];
  size_t mid = (lo + hi) / 2;
  return sum_pairwise(v, lo, mid) + sum_pairwise(v, mid, hi);
}

// Data that sums to 0 mathematically (x - mean(x), as after batch_norm): the
// old condition sum(v) > 0 follows the summation order; the generator's
// sum(v) > c * sum(abs(v)) does not.
TEST(BranchCondition, StaysAwayFromWhereNormalizedDataSums) {
  int old_flips = 0, new_flips = 0;
  uint32_t state = 12345;
  auto next = [&] { return (state = state * 1664525u + 1013904223u) / 4294967296.0f; };
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<float> v(7 + trial % 50);
    double mean = 0;
    for (auto& x : v) mean += (x = next() * 4 - 2);
    mean /= double(v.size());
    for (auto& x : v) x = static_cast<float>(x - mean);
    std::vector<float> mag(v.size());
    for (size_t i = 0; i < v.size(); ++i) mag[i] = std::fabs(v[i]);
    float a = sum_forward(v), b = sum_pairwise(v, 0, v.size());
    old_flips += (a > 0) != (b > 0);
    for (float c : {0.25f, -0.25f}) {
      bool fa = a > sum_forward(mag) * c, fb = b > sum_pairwise(mag, 0, mag.size()) * c;
      new_flips += fa != fb;
    }
  }
  EXPECT_GT(old_flips, 0) << "the data should show the old condition's problem";
  EXPECT_EQ(new_flips, 0);
}

// Every generated branch compares sum(v) with +-0.25 * sum(abs(v)).
TEST(BranchCondition, GeneratedBranchesUseTheRelativeThreshold) {
  GenPolicy policy;
  policy.p_control_flow = 1;
  int branches = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Program p = generate_program(policy, seed);
    std::map<int, const Node*> producer;
    for_each_node(p.body, [&](const Node& n) {
      for (int o : n.outputs) producer[o] = &n;
    });
    for_each_node(p.body, [&](const Node& n) {
      if (n.op != "if") return;
      ++branches;
      const Node* gt = producer.at(std::get<ValueRef>(n.arg("cond")->value).id);
      ASSERT_EQ(gt->op, "gt");
      const Node* sum = producer.at(std::get<ValueRef>(gt->arg("self")->value).id);
      const Node* scaled = producer.at(std::get<ValueRef>(gt->arg("other")->value).id);
      EXPECT_EQ(sum->op, "sum");
      ASSERT_EQ(scaled->op, "mul");
      EXPECT_EQ(std::fabs(std::get<double>(scaled->arg("other")->value)), 0.25);
      const Node* mag = producer.at(std::get<ValueRef>(scaled->arg("self")->value).id);
      ASSERT_EQ(mag->op, "sum");
      const Node* abs = producer.at(std::get<ValueRef>(mag->arg("self")->value).id);
      EXPECT_EQ(abs->op, "abs");
      EXPECT_EQ(std::get<ValueRef>(abs->arg("self")->value), std::get<ValueRef>(sum->arg("self")->value));
    });
  }
  EXPECT_GE(branches, 50);
}

}  // namespace
}  // namespace dlfuzz
