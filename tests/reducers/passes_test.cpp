// Golden tests, one or two per pass, as llvm-reduce's tests do: an input
// program, an interestingness test written in C++, and the expected result of
// running that pass alone (no fan-in cut) to a fixed point.
#include "generator/hop.h"
#include "reducers/rewrite.h"
#include "tests/reducers/reduce_test_util.h"

namespace dlfuzz {
using namespace testing;

TEST(PassOutputs, KeepsTheOutputWithAnIntegerDtype) {
  std::string in = kInferHead + R"(input %x : f32[2,3] range(-1,1)
%1 : f32[2,3] = relu %x
%2 : i64[2,3] = to %1, dtype=i64
%3 : f32[2,3] = neg %x
return %1, %2, %3
)";
  auto has_i64_output = [](const Program& p) {
    for (int y : p.body.yields)
      if (p.type(y).dtype == DType::i64) return true;
    return false;
  };
  EXPECT_EQ(reduce_text(in, {"outputs"}, has_i64_output), kInferOut + R"(input %x : f32[2,3] range(-1.0,1.0)
%1 : f32[2,3] = relu %x
%2 : i64[2,3] = to %1, dtype=i64
%3 : f32[2,3] = neg %x
return %2
)");
}

TEST(PassTrain, TurnsTrainingIntoInference) {
  std::string in = R"(dlfuzz 1 seed=0 policy=0 mode=train device=cpu world=1 plan=none
input %x : f32[4,3] range(-1,1)
param %w : f32[2,3] range(-0.5,0.5)
target %y : f32[4,2] range(-1,1)
%1 : f32[4,2] = linear %x, %w
%2 : f32[4,2] = gelu %1
%3 : f32[] = mse_loss %2, %y
return %2
loss %3
step adam lr=0.001 momentum=0.0 weight_decay=0.01 steps=3
)";
  auto has_gelu = [](const Program& p) { return has_op(p, "gelu"); };
  EXPECT_EQ(reduce_text(in, {"train"}, has_gelu), kInferOut + R"(input %x : f32[4,3] range(-1.0,1.0)
param %w : f32[2,3] range(-0.5,0.5)
target %y : f32[4,2] range(-1.0,1.0)
%1 : f32[4,2] = linear %x, %w
%2 : f32[4,2] = gelu %1
%3 : f32[] = mse_loss %2, %y
return %2
)");
  // A bug that needs training keeps it, with the simplest optimizer and one step.
  auto training = [](const Program& p) { return p.is_training(); };
  std::string out = reduce_text(in, {"train"}, training);
  EXPECT_NE(out.find("mode=train"), std::string::npos) << out;
  EXPECT_NE(out.find("step sgd lr=0.001 momentum=0.0 weight_decay=0.0 steps=1"), std::string::npos) << out;
}

TEST(PassControlFlow, InlinesALoopBodyOnce) {
  std::string in = kInferHead + R"(input %x : f32[3] range(-1,1)
%1 : f32[3] = loop n=3, carry=[%x] (%c : f32[3]) {
  %2 : f32[3] = sin %c
  %3 : f32[3] = mul %2, 0.5
  yield %3
}
return %1
)";
  auto has_sin = [](const Program& p) { return has_op(p, "sin"); };
  EXPECT_EQ(reduce_text(in, {"control-flow"}, has_sin), kInferOut + R"(input %x : f32[3] range(-1.0,1.0)
%1 : f32[3] = sin %x
%2 : f32[3] = mul %1, 0.5
return %2
)");
  // Only the loop itself matters: one trip is the smallest loop.
  auto has_loop = [](const Program& p) { return has_op(p, "loop"); };
  EXPECT_NE(reduce_text(in, {"control-flow"}, has_loop).find("loop n=1,"), std::string::npos);
}

TEST(PassControlFlow, ReplacesAnIfByTheSideThatMatters) {
  std::string in = kInferHead + R"(input %x : f32[3] range(-1,1)
%1 : f32[] = sum %x
%2 : bool[] = gt %1, 0.0
%3 : f32[3] = if cond=%2 {
  %4 : f32[3] = sin %x
  yield %4
} else {
  %5 : f32[3] = cos %x
  yield %5
}
return %3
)";
  auto has_cos = [](const Program& p) { return has_op(p, "cos"); };
  EXPECT_EQ(reduce_text(in, {"control-flow"}, has_cos), kInferOut + R"(input %x : f32[3] range(-1.0,1.0)
%1 : f32[] = sum %x
%2 : bool[] = gt %1, 0.0
%3 : f32[3] = cos %x
return %3
)");
}

TEST(PassControlFlow, DropsTheHigherOrderSpellingWhereOnlyTheBranchMatters) {
  std::string in = R"(dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none target=torch2
input %x : f32[3] range(-1,1)
%1 : f32[] = sum %x
%2 : bool[] = gt %1, 0.0
%3 : f32[3] = if cond=%2, hop=true {
  %4 : f32[3] = sin %x
  yield %4
} else {
  %5 : f32[3] = cos %x
  yield %5
}
%6 : f32[3] = loop n=2, carry=[%3], hop=true, while=true (%c : f32[3]) {
  %7 : f32[3] = tanh %c
  yield %7
}
return %6
)";
  // A bug of torch.cond and while_loop keeps both constructs and their marks.
  auto is_hop_bug = [](const Program& p) {
    int hops = 0;
    for_each_node(p.body, [&](const Node& n) { hops += is_hop(n); });
    return hops == 2;
  };
  std::string kept = reduce_text(in, {"control-flow"}, is_hop_bug);
  EXPECT_NE(kept.find("if cond=%2, hop=true {"), std::string::npos) << kept;
  EXPECT_NE(kept.find("loop n=1, carry=[%3], hop=true, while=true"), std::string::npos) << kept;
  // One of the branch and the loop, not of the spelling, drops the marks.
  auto has_both = [](const Program& p) { return has_op(p, "if") && has_op(p, "loop"); };
  std::string plain = reduce_text(in, {"control-flow"}, has_both);
  EXPECT_EQ(plain.find("hop="), std::string::npos) << plain;
  EXPECT_EQ(plain.find("while="), std::string::npos) << plain;
  EXPECT_NE(plain.find("= if cond=%2 {"), std::string::npos) << plain;
}

TEST(PassControlFlow, RunsACheckpointsBodyInPlace) {
  std::string in = R"(dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none target=torch2
input %x : f32[3] range(-1,1)
input %w : f32[3] range(-1,1)
%1 : f32[3], %2 : f32[3] = checkpoint inputs=[%x] (%c : f32[3]) {
  %3 : f32[3] = sin %c
  %4 : f32[3] = mul %3, %w
  yield %3, %4
}
%5 : f32[3] = add %1, %2
return %5
)";
  auto has_sin = [](const Program& p) { return has_op(p, "sin"); };
  EXPECT_EQ(reduce_text(in, {"control-flow"}, has_sin),
            R"(dlfuzz 1 seed=0 policy=0000000000000000 mode=infer device=cpu world=1 plan=none target=torch2
input %x : f32[3] range(-1.0,1.0)
input %w : f32[3] range(-1.0,1.0)
%1 : f32[3] = sin %x
%2 : f32[3] = mul %1, %w
%3 : f32[3] = add %1, %2
return %3
)");
  // A bug of checkpointing keeps it; one of checkpointing, not of its selective policy, drops the policy.
  auto has_checkpoint = [](const Program& p) { return has_op(p, "checkpoint"); };
  std::string selective = in;
  selective.replace(selective.find("inputs=[%x]"), 11, "inputs=[%x], selective=true");
  EXPECT_NE(reduce_text(selective, {"control-flow"}, has_checkpoint).find("= checkpoint inputs=[%x] (%"),
            std::string::npos);
}

TEST(PassNodes, KeepsAFracOfANegativeValue) {
  std::string in = kInferHead + R"(input %x : f32[4] range(-2,2)
%1 : f32[4] = abs %x
%2 : f32[4] = sin %x
%3 : f32[4] = mul %2, 2.0
%4 : f32[4] = frac %3
%5 : f32[4] = add %4, %1
return %5
)";
  EXPECT_EQ(reduce_text(in, {"nodes"}, frac_of_negative), kInferOut + R"(input %x : f32[4] range(-2.0,2.0)
%1 : f32[4] = frac %x
return %1
)");
}

TEST(PassNodes, RerouteNeverPicksAValueThatChangesTheBug) {
  // Removing %2 alone reroutes frac to %2's operand %1 (abs, never negative):
  // rejected. Removing %1 and %2 together reroutes it to %x: kept.
  std::string in = kInferHead + R"(input %x : f32[4] range(-2,2)
%1 : f32[4] = abs %x
%2 : f32[4] = neg %1
%3 : f32[4] = frac %2
return %3
)";
  std::string out = reduce_text(in, {"nodes"}, frac_of_negative);
  Program p = parse_or_die(out);
  EXPECT_TRUE(frac_of_negative(p)) << out;
  EXPECT_EQ(p.count_nodes(), 1) << out;
}

TEST(PassNodes, AnOutputWithoutAValueMovesUpToTheOperands) {
  // No bool[4] value can stand in for %2, so the output moves up to %1.
  std::string in = kInferHead + R"(input %x : f32[4] range(-2,2)
%1 : f32[4] = add %x, 0.5
%2 : bool[4] = gt %1, %1
return %2
)";
  auto add_reaches_output = [](const Program& p) {
    Program live = p;
    reduce::remove_dead_nodes(live);
    return has_op(live, "add");
  };
  EXPECT_EQ(reduce_text(in, {"nodes"}, add_reaches_output), kInferOut + R"(input %x : f32[4] range(-2.0,2.0)
%1 : f32[4] = add %x, 0.5
return %1
)");
}

TEST(PassBypass, ReplacesANodeByItsOperand) {
  std::string in = kInferHead + R"(input %x : f32[4] range(-2,2)
input %y : f32[4] range(-2,2)
%1 : f32[4] = relu %x
%2 : f32[4] = add %1, %y
%3 : f32[4] = frac %2
return %3
)";
  auto add_and_frac = [](const Program& p) { return has_op(p, "add") && has_op(p, "frac"); };
  EXPECT_EQ(reduce_text(in, {"bypass"}, add_and_frac), kInferOut + R"(input %x : f32[4] range(-2.0,2.0)
input %y : f32[4] range(-2.0,2.0)
%1 : f32[4] = add %x, %y
%2 : f32[4] = frac %1
return %2
)");
}

// The operand of frac has a type no other value has, so nodes and bypass
// cannot remove the matmul; inputize makes it an input.
TEST(PassInputize, CutsTheConeAboveANode) {
  std::string in = kInferHead + R"(input %x : f32[2,3] range(-2,2)
input %y : f32[3,2] range(-2,2)
%1 : f32[2,2] = matmul %x, %y
%2 : f32[2,2] = frac %1
return %2
)";
  auto frac = [](const Program& p) { return has_op(p, "frac"); };
  EXPECT_EQ(reduce_text(in, {"inputize"}, frac), kInferOut + R"(input %x : f32[2,3] range(-2.0,2.0)
input %y : f32[3,2] range(-2.0,2.0)
input %x2 : f32[2,2] range(-1.0,1.0)
%1 : f32[2,2] = frac %x2
return %1
)");
  EXPECT_EQ(reduce_text(in, {"nodes", "bypass"}, frac), kInferOut + R"(input %x : f32[2,3] range(-2.0,2.0)
input %y : f32[3,2] range(-2.0,2.0)
%1 : f32[2,2] = matmul %x, %y
%2 : f32[2,2] = frac %1
return %2
)");
}

TEST(PassParams, MergesOrDemotesParams) {
  std::string in = kInferHead + R"(input %x : f32[4] range(-2,2)
param %w : f32[4] range(-0.5,0.5)
%1 : f32[4] = mul %x, %w
return %1
)";
  auto has_mul = [](const Program& p) { return has_op(p, "mul"); };
  EXPECT_EQ(reduce_text(in, {"params"}, has_mul), kInferOut + R"(input %x : f32[4] range(-2.0,2.0)
%1 : f32[4] = mul %x, %x
return %1
)");
  // Two distinct operands needed: the param stays, as a plain data input.
  auto distinct_mul = [](const Program& p) {
    bool ok = false;
    for_each_node(p.body, [&](const Node& n) {
      if (n.op == "mul") ok = ok || node_inputs(n).at(0) != node_inputs(n).at(1);
    });
    return ok;
  };
  EXPECT_EQ(reduce_text(in, {"params"}, distinct_mul), kInferOut + R"(input %x : f32[4] range(-2.0,2.0)
input %w : f32[4] range(-0.5,0.5)
%1 : f32[4] = mul %x, %w
return %1
)");
}

TEST(PassInputs, DropsUnreadInputs) {
  std::string in = kInferHead + R"(input %a : f32[4] range(-2,2)
input %b : i64[2] range(0,3)
input %c : f32[4] range(-2,2)
%1 : f32[4] = neg %c
return %1
)";
  auto has_neg = [](const Program& p) { return has_op(p, "neg"); };
  EXPECT_EQ(reduce_text(in, {"inputs"}, has_neg), kInferOut + R"(input %c : f32[4] range(-2.0,2.0)
%1 : f32[4] = neg %c
return %1
)");
}

TEST(PassDtypes, MakesFloatsF32AndReinfers) {
  std::string in = kInferHead + R"(input %x : f64[3] range(-2,2)
input %i : i8[3] range(0,5)
%1 : f64[3] = sin %x
%2 : f16[3] = to %1, dtype=f16
%3 : i8[3] = neg %i
return %2, %3
)";
  auto has_sin = [](const Program& p) { return has_op(p, "sin"); };
  EXPECT_EQ(reduce_text(in, {"dtypes"}, has_sin), kInferOut + R"(input %x : f32[3] range(-2.0,2.0)
input %i : i64[3] range(0.0,5.0)
%1 : f32[3] = sin %x
%2 : f32[3] = to %1, dtype=f32
%3 : i64[3] = neg %i
return %2, %3
)");
}

TEST(PassAutocast, DropsAutocastAndReinfersWhereTheBugDoesNotNeedIt) {
  std::string in = R"(dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none target=torch2 autocast=bf16
input %x : f32[2,3] range(-1,1)
input %w : f32[4,3] range(-1,1)
%1 : bf16[2,4] = linear %x, %w
%2 : bf16[2,4] = relu %1
return %2
)";
  auto has_relu = [](const Program& p) { return has_op(p, "relu"); };
  EXPECT_EQ(reduce_text(in, {"autocast"}, has_relu), R"(dlfuzz 1 seed=0 policy=0000000000000000 mode=infer device=cpu world=1 plan=none target=torch2
input %x : f32[2,3] range(-1.0,1.0)
input %w : f32[4,3] range(-1.0,1.0)
%1 : f32[2,4] = linear %x, %w
%2 : f32[2,4] = relu %1
return %2
)");
  // A bug of the bf16 result keeps autocast.
  auto bf16_result = [](const Program& p) { return p.type(p.body.yields[0]).dtype == DType::bf16; };
  EXPECT_NE(reduce_text(in, {"autocast"}, bf16_result).find(" autocast=bf16\n"), std::string::npos);
}

TEST(PassDims, ShrinksOnlyWhereTheTypeRulesAgree) {
  // %y shrinks to [1,1]; %x's dims are pinned by the reshape to 48 elements.
  std::string in = kInferHead + R"(input %x : f32[8,6] range(-2,2)
input %y : f32[4,5] range(-2,2)
%1 : f32[48] = reshape %x, shape=[48]
%2 : f32[4,5] = relu %y
%3 : f32[4] = sum %2, dim=[1]
return %1, %3
)";
  auto rank2_relu = [](const Program& p) {
    bool ok = false;
    for_each_node(p.body, [&](const Node& n) {
      if (n.op == "relu") ok = ok || p.type(n.outputs[0]).rank() == 2;
    });
    return ok && has_op(p, "reshape");
  };
  EXPECT_EQ(reduce_text(in, {"dims"}, rank2_relu), kInferOut + R"(input %x : f32[8,6] range(-2.0,2.0)
input %y : f32[1,1] range(-2.0,2.0)
%1 : f32[48] = reshape %x, shape=[48]
%2 : f32[1,1] = relu %y
%3 : f32[1] = sum %2, dim=[1]
return %1, %3
)");
}

TEST(PassInputValues, SimplestValuesThatKeepTheBug) {
  std::string in = kInferHead + R"(input %x : f32[4] range(-3,2)
input %y : f32[4] normal(0,1)
%1 : f32[4] = add %x, %y
%2 : f32[4] = frac %x
return %1, %2
)";
  EXPECT_EQ(reduce_text(in, {"input-values"}, frac_of_negative), kInferOut + R"(input %x : f32[4] range(-1.0,1.0)
input %y : f32[4] zeros
%1 : f32[4] = add %x, %y
%2 : f32[4] = frac %x
return %1, %2
)");
}

TEST(PassCollectives, NoCandidatesAtWorldOne) {
  std::string in = kInferHead + R"(input %x : f32[4] range(-2,2)
%1 : f32[4] = relu %x
return %1
)";
  ReduceStats stats;
  auto yes = [](const Program&) { return true; };
  EXPECT_EQ(reduce_text(in, {"collectives"}, yes, &stats), kInferOut + R"(input %x : f32[4] range(-2.0,2.0)
%1 : f32[4] = relu %x
return %1
)");
  EXPECT_EQ(stats.queries, 1) << "only the input itself is tested";
}

TEST(PassCollectives, ShrinksTheWorldAndDropsCollectives) {
  std::string in = R"(dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=2 plan=dp
input %x : f32[4,3] shard(0) range(-2,2)
%1 : f32[8,3] = all_gather %x, dim=0
%2 : f32[8,3] = relu %1
%3 : f32[8,3] = all_reduce %2, op="sum"
return %3
)";
  auto has_relu = [](const Program& p) { return has_op(p, "relu"); };
  EXPECT_EQ(reduce_text(in, {"world", "collectives"}, has_relu), kInferOut + R"(input %x : f32[4,3] range(-2.0,2.0)
%1 : f32[4,3] = relu %x
return %1
)");
}

TEST(PassWorld, HalvesTheWorldWhileTheFindingNeedsSeveralRanks) {
  std::string in = R"(dlfuzz 1 seed=0 policy=0 mode=train device=cpu world=8 plan=dp
input %x : f32[2,3] shard(0) range(-2,2)
param %w : f32[4,3] range(-0.5,0.5)
%1 : f32[2,4] = linear %x, %w
%2 : f32[] = sum %1
return %1
loss %2
step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=1
)";
  auto several = [](const Program& p) { return p.plan.world > 1; };
  std::string out = reduce_text(in, {"world"}, several);
  EXPECT_NE(out.find("world=2 plan=dp"), std::string::npos) << out;
  EXPECT_NE(out.find("shard(0)"), std::string::npos) << "per-rank shapes and placements stay";
}

// A tensor-parallel program at world 1 is the unsharded model: split params
// whole, the regions the identity, the same output types.
TEST(PassWorld, TensorParallelProgramBecomesTheWholeModel) {
  std::string in = R"(dlfuzz 1 seed=0 policy=0 mode=train device=cpu world=2 plan=tp
input %x : f32[4,6] range(-2,2)
param %w : f32[3,6] shard(0) range(-0.5,0.5)
target %y : f32[4,6] range(-1,1)
%1 : f32[4,6] = tp_copy %x
%2 : f32[4,3] = linear %1, %w
%3 : f32[4,6] = tp_gather %2, dim=1
%4 : f32[] = l1_loss %3, %y
return %3
loss %4
step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=1
)";
  std::string out = reduce_text(in, {"world"}, [](const Program&) { return true; });
  EXPECT_NE(out.find("world=1 plan=none"), std::string::npos) << out;
  EXPECT_NE(out.find("param %w : f32[6,6] range"), std::string::npos) << out;
  EXPECT_NE(out.find("f32[4,6] = linear"), std::string::npos) << out;
}

}  // namespace dlfuzz
