// The ill-conditioning check with real runs of LibTorch 1.13's eager: a
// runner that differs about as much as the reference moves under its inputs'
// last bits is explained; one that differs a hundred times more is not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "generator/dlf.h"
#include "oracles/ill_conditioned.h"
#include "oracles/numeric_oracle.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

namespace {
// exp(80 x): a relative change of x moves the result 80 x times as much.
const char* kSteep =
    "dlfuzz 1 seed=3 policy=0 mode=infer device=cpu world=1 plan=none\n"
    "input %x : f32[16] range(0.5,1.0)\n"
    "%1 : f32[16] = mul %x, 80.0\n"
    "%2 : f32[16] = exp %1\n"
    "return %2\n";

float get(const HostTensor& t, int64_t i) {
  float v;
  std::memcpy(&v, t.bytes.data() + i * sizeof(float), sizeof v);
  return v;
}
void set(HostTensor& t, int64_t i, float v) { std::memcpy(t.bytes.data() + i * sizeof(float), &v, sizeof v); }

// The reference, a "runner" that is the reference with element i moved by
// `how_far` times the most the reference moves there, and its finding.
struct Case {
  RunResult ref, test;
  Finding finding;
};

Case differ_at(Executor& ex, const Program& p, double how_far) {
  Case c;
  c.ref = ex.run(p, {"eager"}).at(0);
  EXPECT_TRUE(c.ref.ok()) << c.ref.error;
  // Where the perturbed reference moves most, and how far.
  int64_t at = 0;
  double most = 0;
  for (double ulps : kPerturbations) {
    std::optional<Program> q = perturb_inputs(p, ulps);
    EXPECT_TRUE(q);
    RunResult m = ex.run(*q, {"eager"}).at(0);
    EXPECT_TRUE(m.ok()) << m.error;
    for (int64_t i = 0; i < 16; ++i) {
      double d = std::fabs(get(m.outputs[0], i) - get(c.ref.outputs[0], i));
      if (d > most) most = d, at = i;
    }
  }
  EXPECT_GT(most, 0) << "four units in the last place of x move exp(80 x)";
  c.test = c.ref;
  c.test.runner = "ts";
  set(c.test.outputs[0], at, get(c.ref.outputs[0], at) + how_far * most);
  auto f = check_numeric(c.ref, c.test, nullptr);
  EXPECT_TRUE(f) << "the difference is beyond tolerance";
  if (f) c.finding = *f;
  return c;
}

// The finding of a runner `how_far` times the reference's own movement away,
// after the check.
Finding checked(double how_far) {
  ParseResult r = parse_program(kSteep, "steep.dlf");
  EXPECT_TRUE(r.ok());
  Executor ex(test::python_options());
  Case c = differ_at(ex, r.program, how_far);
  std::vector<Finding> findings = {c.finding};
  explain_ill_conditioning(ex, r.program, {c.ref, c.test}, findings);
  return findings[0];
}
}  // namespace

TEST(IllConditionedRun, ADifferenceWithinWhatTheInputsLastBitsMoveIsExplained) {
  Finding f = checked(2.0);
  EXPECT_EQ(f.first_op, kIllConditioned) << f.detail;
  EXPECT_NE(f.first_op_detail.find("output 0: the reference moves by up to"), std::string::npos) << f.first_op_detail;
}

TEST(IllConditionedRun, AHundredTimesFartherIsStillAFinding) {
  Finding f = checked(100.0);
  EXPECT_EQ(f.first_op, "");
  EXPECT_EQ(f.first_op_detail, "");
}

}  // namespace dlfuzz
