// Activation checkpointing (generator/checkpoint.h): the structural node in
// .dlf text, its emitted forms, the recomputation hazards verify() refuses,
// and the regions the generator draws over many seeds.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "generator/checkpoint.h"
#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/generator.h"
#include "generator/op_spec.h"
#include "generator/summary.h"
#include "generator/verify.h"
#include "tests/parse_program.h"

namespace dlfuzz {
namespace {

const std::string kTrain =
    "dlfuzz 1 seed=1 policy=0000000000000000 mode=train device=cpu world=1 plan=none target=torch2\n"
    "input %x : f32[2,3] range(-1.0,1.0)\n"
    "param %w : f32[3,3] range(-1.0,1.0)\n";
const std::string kStep = "loss %4\nstep sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=1\n";

// One region: an explicit argument (%x as %c), a closure read (%w), two results.
const std::string kRegion =
    "%1 : f32[2,3], %2 : f32[2,3] = checkpoint inputs=[%x] (%c : f32[2,3]) {\n"
    "  %a : f32[2,3] = mm %c, %w\n"
    "  %b : f32[2,3] = tanh %a\n"
    "  yield %a, %b\n"
    "}\n";

TEST(Checkpoint, ParsesPrintsAndVerifies) {
  const std::string text = kTrain + kRegion + "%3 : f32[2,3] = mul %1, %2\n%4 : f32[] = sum %3\nreturn %3\n" + kStep;
  Program p = test::parse(text);
  EXPECT_EQ(verify(p), "");
  ParseResult back = parse_program(print_program(p));
  ASSERT_TRUE(back.ok()) << back.error->str();
  EXPECT_TRUE(back.program == p);
  EXPECT_NE(print_program(p).find("= checkpoint inputs=[%x] (%c : f32[2,3]) {"), std::string::npos) << print_program(p);
}

TEST(Checkpoint, EmitsANestedFunctionForPythonAndRunsInPlaceForTorchScript) {
  Program p = test::parse(kTrain + kRegion + "%3 : f32[2,3] = mul %1, %2\n%4 : f32[] = sum %3\nreturn %3\n" + kStep);
  std::string py = emit_function(p, "program", false);
  EXPECT_NE(py.find("    def _checkpointed_v1(c):\n"
                    "        a = torch.mm(c, w)\n"
                    "        b = torch.tanh(a)\n"
                    "        return (a, b)\n"
                    "    _v1 = torch.utils.checkpoint.checkpoint(_checkpointed_v1, x, use_reentrant=False)\n"
                    "    v1 = _v1[0]\n"
                    "    v2 = _v1[1]\n"),
            std::string::npos)
      << py;
  // Selective: matmul results saved (the runtime's context_fn), the rest recomputed.
  std::string sel = kTrain + kRegion + "%3 : f32[2,3] = mul %1, %2\n%4 : f32[] = sum %3\nreturn %3\n" + kStep;
  sel.replace(sel.find("inputs=[%x]"), 11, "inputs=[%x], selective=true");
  EXPECT_NE(emit_function(test::parse(sel), "program", false)
                .find("checkpoint(_checkpointed_v1, x, use_reentrant=False, context_fn=_dlfuzz_save_matmuls)\n"),
            std::string::npos);
  std::string ts = emit_function(p, "program", true);
  EXPECT_EQ(ts.find("checkpoint"), std::string::npos) << ts;
  EXPECT_NE(ts.find("    c = x\n    a = torch.mm(c, w)\n"), std::string::npos) << ts;
  EXPECT_NE(ts.find("    v1 = a\n    v2 = b\n"), std::string::npos) << ts;
}

TEST(Checkpoint, VerifyRefusesWhatRecomputationWouldGetWrong) {
  const std::string tail = "%3 : f32[2,3] = mul %1, %2\n%4 : f32[] = sum %3\nreturn %3\n" + kStep;
  // Not TorchScript's: torch2 programs only.
  std::string old = kTrain + kRegion + tail;
  old.replace(old.find(" target=torch2"), 14, "");
  EXPECT_NE(test::parse_error(old).find("checkpoint needs target=torch2"), std::string::npos) << test::parse_error(old);
  // A write after the region into a tensor the region read (as a closure):
  // eager's recomputation in backward would read the new values.
  const std::string write_after = kTrain + "%0 : f32[3,3] = mul %w, 2.0\n" +
                                  "%1 : f32[2,3], %2 : f32[2,3] = checkpoint inputs=[%x] (%c : f32[2,3]) {\n"
                                  "  %a : f32[2,3] = mm %c, %0\n"
                                  "  %b : f32[2,3] = tanh %a\n"
                                  "  yield %a, %b\n"
                                  "}\n"
                                  "%5 : f32[3,3] = add_ %0, 1.0\n" +
                                  tail;
  EXPECT_NE(test::parse_error(write_after).find("written in place at or after the checkpoint"), std::string::npos)
      << test::parse_error(write_after);
  // The same through the explicit argument's alias (a view of it written inside).
  const std::string write_inside = kTrain +
                                   "%0 : f32[2,3] = mul %x, 2.0\n"
                                   "%1 : f32[2,3], %2 : f32[2,3] = checkpoint inputs=[%0] (%c : f32[2,3]) {\n"
                                   "  %v : f32[3,2] = t %c\n"
                                   "  %u : f32[3,2] = mul_ %v, 2.0\n"
                                   "  %a : f32[2,3] = mm %c, %w\n"
                                   "  %b : f32[2,3] = tanh %a\n"
                                   "  yield %a, %b\n"
                                   "}\n" +
                                   tail;
  EXPECT_NE(test::parse_error(write_inside).find("written in place"), std::string::npos)
      << test::parse_error(write_inside);
  // ... and through a maybe-alias (reshape of a contiguous tensor returns a view of it).
  const std::string write_maybe_alias = kTrain +
                                        "%0 : f32[2,3] = mul %x, 2.0\n"
                                        "%1 : f32[2,3], %2 : f32[2,3] = checkpoint inputs=[%0] (%c : f32[2,3]) {\n"
                                        "  %a : f32[2,3] = mm %c, %w\n"
                                        "  %b : f32[2,3] = tanh %a\n"
                                        "  yield %a, %b\n"
                                        "}\n"
                                        "%6 : f32[6] = reshape %0, shape=[6]\n"
                                        "%7 : f32[6] = mul_ %6, 2.0\n" +
                                        tail;
  EXPECT_NE(test::parse_error(write_maybe_alias).find("written in place"), std::string::npos)
      << test::parse_error(write_maybe_alias);
  // Writes to the region's own values are fine.
  const std::string own = kTrain +
                          "%1 : f32[2,3], %2 : f32[2,3] = checkpoint inputs=[%x] (%c : f32[2,3]) {\n"
                          "  %a : f32[2,3] = mm %c, %w\n"
                          "  %b : f32[2,3] = tanh %a\n"
                          "  %d : f32[2,3] = mul_ %b, 2.0\n"
                          "  yield %a, %d\n"
                          "}\n" +
                          tail;
  EXPECT_EQ(test::parse_error(own), "");
  // ... but not in a selective one, which may have cached them.
  std::string own_selective = own;
  own_selective.replace(own_selective.find("inputs=[%x]"), 11, "inputs=[%x], selective=true");
  EXPECT_NE(test::parse_error(own_selective).find("selective checkpoint's values may be cached"), std::string::npos)
      << test::parse_error(own_selective);
  // Its shape: one param per input, something yielded, only at the top level.
  std::string params = kTrain + kRegion + tail;
  params.replace(params.find(" (%c : f32[2,3])"), 16, " (%c : f32[2,3], %e : f32[2,3])");
  EXPECT_NE(test::parse_error(params).find("one value per input"), std::string::npos) << test::parse_error(params);
}

TEST(Checkpoint, GeneratedRegionsOverManySeeds) {
  GenPolicy policy;
  policy.target = Target::torch2;
  policy.p_training = 1;
  policy.p_checkpoint = 1;
  int with = 0, explicit_args = 0, closures = 0, loss_inside = 0, nodes_inside = 0, selective = 0;
  for (int seed = 0; seed < 600; ++seed) {
    Program p = generate_program(policy, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    ParseResult back = parse_program(print_program(p));
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << (back.ok() ? "" : back.error->str());
    EXPECT_TRUE(back.program == p) << "seed " << seed;
    for (size_t i = 0; i < p.body.nodes.size(); ++i) {
      const Node& n = p.body.nodes[i];
      if (n.op != "checkpoint") continue;
      ++with;
      selective += n.arg("selective") != nullptr;
      EXPECT_EQ(checkpoint_hazard(p, i), "") << "seed " << seed;
      explicit_args += !n.blocks[0].params.empty();
      std::set<int> params(n.blocks[0].params.begin(), n.blocks[0].params.end()), inside;
      for_each_node(n.blocks[0], [&](const Node& m) {
        ++nodes_inside;
        inside.insert(m.outputs.begin(), m.outputs.end());
      });
      bool closure = false;
      for_each_node(n.blocks[0], [&](const Node& m) {
        for (int v : node_inputs(m)) closure |= !inside.count(v) && !params.count(v);
      });
      closures += closure;
      for (int o : n.outputs) loss_inside += o == p.train->loss;
      // Its results are read later, returned, or the loss: nothing it yields is dead.
      for (int o : n.outputs) {
        bool used = o == p.train->loss;
        for (int y : p.body.yields) used |= y == o;
        for (size_t j = i + 1; j < p.body.nodes.size(); ++j) {
          for (int v : node_inputs(p.body.nodes[j])) used |= v == o;
          for (const Block& inner : p.body.nodes[j].blocks)
            for_each_node(inner, [&](const Node& m) {
              for (int v : node_inputs(m)) used |= v == o;
            });
        }
        EXPECT_TRUE(used) << "seed " << seed << ": %" << p.values[o].name;
      }
    }
  }
  EXPECT_GT(with, 450);  // most programs have a stretch that qualifies
  EXPECT_GT(explicit_args, 200);
  EXPECT_GT(closures, 200);
  EXPECT_GT(loss_inside, 30);
  EXPECT_GT(nodes_inside, 3 * with);
  EXPECT_GT(selective, with / 3);  // half of them
  EXPECT_LT(selective, 2 * with / 3);
}

TEST(Checkpoint, DefaultPolicyDrawsItForSomeTorch2OneRankTrainingPrograms) {
  auto count = [](GenPolicy policy, int seeds) {
    int with = 0;
    for (int seed = 0; seed < seeds; ++seed)
      with += summarize(generate_program(policy, seed)).ops.count("checkpoint") > 0;
    return with;
  };
  GenPolicy policy;
  EXPECT_EQ(count(policy, 300), 0);  // torch1.13
  policy.target = Target::torch2;
  policy.p_training = 1;
  int with = count(policy, 1000);
  EXPECT_GT(with, 150);  // p_checkpoint 0.25, of those with a stretch that qualifies
  EXPECT_LT(with, 300);
  policy.p_training = 0;
  EXPECT_EQ(count(policy, 300), 0);
  policy.p_training = 1;
  policy.world = 2;
  EXPECT_EQ(count(policy, 100), 0);
}

}  // namespace
}  // namespace dlfuzz
