// The perturbed program an ill-conditioned finding is checked on, and the
// rule that decides whether the reference moves as far as the runner did.
#include <gtest/gtest.h>

#include <cmath>

#include "generator/dlf.h"
#include "generator/verify.h"
#include "oracles/ill_conditioned.h"
#include "tests/oracles/host_tensors.h"
#include "tests/parse_program.h"

namespace dlfuzz {

namespace {
using test::parse;

// The node that reads input `name` perturbed, or nullptr.
const Node* perturbation_of(const Program& q, const std::string& name) {
  for (const Node& n : q.body.nodes) {
    if (n.op != "addcmul") continue;
    const auto* self = std::get_if<ValueRef>(&n.arg("self")->value);
    if (self && q.values.at(self->id).name == name) return &n;
  }
  return nullptr;
}

double value_of(const Node& n) { return std::get<double>(n.arg("value")->value); }

HostTensor f32(const std::vector<float>& v) { return test::make_tensor(DType::f32, v); }
}  // namespace

// corpus-like shape of the campaign's finding: group_norm -> std -> loss, the
// param returned as is.
TEST(IllConditioned, PerturbsEveryReadOfRandomFloatInputs) {
  Program p = parse(
      "dlfuzz 1 seed=9269 policy=0 mode=train device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : f32[2,1,3] range(0.0,1.0)\n"
      "param %w0 : f32[1] range(0.0,1.0)\n"
      "target %y0 : f32[1,3] ones\n"
      "input %h : f16[3] range(-1.0,1.0)\n"
      "input %i : i64[3] range(0,4)\n"
      "%1 : f32[2,1,3] = group_norm %x0, num_groups=1, weight=%w0\n"
      "%2 : f32[1,3] = std %1, dim=[-3], keepdim=false\n"
      "%3 : f32[] = smooth_l1_loss %2, %y0\n"
      "return %w0, %h, %i\n"
      "loss %3\n"
      "step sgd lr=0.001 momentum=0.0 weight_decay=0.0 steps=2\n");
  std::optional<Program> q = perturb_inputs(p, 4);
  ASSERT_TRUE(q);
  EXPECT_EQ(verify(*q), "");
  // x0, w0 and h are moved; y0 (ones) and the integer input are not.
  ASSERT_EQ(q->inputs.size(), p.inputs.size() + 3);
  for (size_t k = 0; k < p.inputs.size(); ++k) {
    EXPECT_EQ(q->values.at(q->inputs[k].value).name, p.values.at(p.inputs[k].value).name)
        << "the old inputs keep their places, and so their values";
    EXPECT_EQ(q->inputs[k].init, p.inputs[k].init);
  }
  for (size_t k = p.inputs.size(); k < q->inputs.size(); ++k) {
    EXPECT_EQ(q->inputs[k].kind, InputKind::data);
    EXPECT_EQ(q->inputs[k].lo, -1);
    EXPECT_EQ(q->inputs[k].hi, 1);
  }
  const Node *x0 = perturbation_of(*q, "x0"), *w0 = perturbation_of(*q, "w0"), *h = perturbation_of(*q, "h");
  ASSERT_TRUE(x0 && w0 && h);
  EXPECT_FALSE(perturbation_of(*q, "y0"));
  EXPECT_FALSE(perturbation_of(*q, "i"));
  EXPECT_EQ(value_of(*x0), std::ldexp(4.0, -23)) << "4 units in the last place of a float32";
  EXPECT_EQ(value_of(*h), std::ldexp(4.0, -10)) << "of a float16";
  // group_norm reads the moved values; the outputs still return the inputs.
  const Node& norm = q->body.nodes.at(3);
  ASSERT_EQ(norm.op, "group_norm");
  EXPECT_EQ(std::get<ValueRef>(norm.arg("input")->value).id, x0->outputs[0]);
  EXPECT_EQ(std::get<ValueRef>(norm.arg("weight")->value).id, w0->outputs[0]);
  for (int y : q->body.yields) EXPECT_TRUE(q->input_of(y)) << "an output that returns an input returns it as is";
  // Another direction, another program.
  std::optional<Program> back = perturb_inputs(p, -4);
  ASSERT_TRUE(back);
  EXPECT_EQ(value_of(*perturbation_of(*back, "x0")), -std::ldexp(4.0, -23));
}

TEST(IllConditioned, LeavesInputsAWriteReachesAndProgramsOverRanks) {
  // x is written through a view of it: moving it would move the write too.
  Program p = parse(
      "dlfuzz 1 seed=1 policy=0 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x : f32[2,3] range(-1.0,1.0)\n"
      "input %z : f32[3,2] range(-1.0,1.0)\n"
      "%1 : f32[3,2] = transpose %x, dim0=0, dim1=1\n"
      "%2 : f32[3,2] = mul_ %1, 2.0\n"
      "%3 : f32[3,2] = add %2, %z\n"
      "return %3, %x\n");
  std::optional<Program> q = perturb_inputs(p, 4);
  ASSERT_TRUE(q);
  EXPECT_FALSE(perturbation_of(*q, "x"));
  EXPECT_TRUE(perturbation_of(*q, "z"));
  // Nothing to move: no program.
  Program ones = parse(
      "dlfuzz 1 seed=1 policy=0 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x : f32[3] ones\n"
      "%1 : f32[3] = exp %x\n"
      "return %1\n");
  EXPECT_FALSE(perturb_inputs(ones, 4));
  Program ranks = p;
  ranks.plan.world = 2;
  EXPECT_FALSE(perturb_inputs(ranks, 4));
}

TEST(IllConditioned, TheReferenceMustMoveAQuarterAsFarWhereverTheRunnerDiffers) {
  HostTensor ref = f32({1.0f, 2.0f, 3.0f}), test = f32({1.0f, 2.004f, 3.0f});
  // The reference moves by 0.002 at the differing element: half of 0.004.
  EXPECT_TRUE(within_sensitivity(ref, test, {f32({1.0f, 2.002f, 3.0f})}));
  // By 0.0005 only: an eighth.
  EXPECT_FALSE(within_sensitivity(ref, test, {f32({1.0f, 2.0005f, 3.0f})}));
  // One sample of three is enough: the others landed where the value stood still.
  EXPECT_TRUE(within_sensitivity(ref, test, {f32({1, 2, 3}), f32({1.0f, 1.998f, 3.0f}), f32({1, 2, 3})}));
  // It must move where the runner differs, not elsewhere.
  EXPECT_FALSE(within_sensitivity(ref, test, {f32({1.5f, 2.0f, 3.5f})}));
  // A number that turns NaN moved as far as can be.
  EXPECT_TRUE(within_sensitivity(ref, test, {f32({1.0f, NAN, 3.0f})}));
  // Nothing differs: nothing to explain.
  EXPECT_FALSE(within_sensitivity(ref, ref, {f32({1.0f, 2.5f, 3.0f})}));
  // Shapes that disagree, or no sample: no.
  EXPECT_FALSE(within_sensitivity(ref, test, {f32({1.0f, 2.002f})}));
  EXPECT_FALSE(within_sensitivity(ref, test, {}));
}

TEST(IllConditioned, ANaNWhereTheReferenceHasANumberNeedsTheReferenceToChangeKindToo) {
  HostTensor ref = f32({1.0f, 2.0f}), test = f32({1.0f, NAN});
  EXPECT_TRUE(within_sensitivity(ref, test, {f32({1.0f, 2.0f}), f32({1.0f, INFINITY})}));
  EXPECT_FALSE(within_sensitivity(ref, test, {f32({1.0f, 7.0f})})) << "a number that stays a number does not";
  // Infinities of other signs differ in kind.
  HostTensor inf = f32({INFINITY}), ninf = f32({-INFINITY});
  EXPECT_FALSE(within_sensitivity(inf, ninf, {f32({INFINITY})}));
  EXPECT_TRUE(within_sensitivity(inf, ninf, {f32({3.0f})}));
}

}  // namespace dlfuzz
