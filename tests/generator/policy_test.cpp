// Steering the generator: a GenPolicy read from JSON, focus and excluded ops.
#include <gtest/gtest.h>

#include "generator/generator.h"
#include "generator/summary.h"
#include "generator/verify.h"

namespace dlfuzz {
namespace {

TEST(PolicyJson, ReadsTheKnobsItNamesAndKeepsTheRest) {
  GenPolicy p;
  ASSERT_EQ(policy_from_json(R"({"p_training": 0, "max_nodes": 12, "p_special_values": 0.5,
      "dtype_weights": {"bf16": 40}, "family_weights": {"index": 20, "conv": 0},
      "focus_ops": ["gather"], "exclude_ops": ["relu"]})",
                             p),
            "");
  EXPECT_EQ(p.p_training, 0);
  EXPECT_EQ(p.max_nodes, 12);
  EXPECT_EQ(p.min_nodes, GenPolicy().min_nodes);
  EXPECT_EQ(p.p_special_values, 0.5);
  EXPECT_EQ(p.dtype_weights[DType::bf16], 40);
  EXPECT_EQ(p.dtype_weights[DType::f32], GenPolicy().dtype_weights.at(DType::f32));
  EXPECT_EQ(p.family_weights["index"], 20);
  EXPECT_EQ(p.family_weights["conv"], 0);
  EXPECT_EQ(p.focus_ops, std::vector<std::string>{"gather"});
  EXPECT_NE(p.hash(), GenPolicy().hash());

  GenPolicy back;
  ASSERT_EQ(policy_from_json(policy_to_json(p), back), "");
  EXPECT_EQ(back.hash(), p.hash());
}

TEST(PolicyJson, ErrorsNameWhatIsWrongAndChangeNothing) {
  GenPolicy p;
  const uint64_t before = p.hash();
  EXPECT_NE(policy_from_json("[1]", p), "");
  EXPECT_NE(policy_from_json("{not json", p), "");
  EXPECT_NE(policy_from_json(R"({"p_trainig": 0})", p).find("p_trainig"), std::string::npos);
  EXPECT_NE(policy_from_json(R"({"family_weights": {"nope": 1}})", p).find("nope"), std::string::npos);
  EXPECT_NE(policy_from_json(R"({"dtype_weights": {"f128": 1}})", p).find("f128"), std::string::npos);
  EXPECT_NE(policy_from_json(R"({"focus_ops": ["frobnicate"]})", p).find("frobnicate"), std::string::npos);
  EXPECT_NE(policy_from_json(R"({"templates": ["resnet"]})", p).find("unknown template 'resnet'"), std::string::npos);
  EXPECT_NE(policy_from_json(R"({"max_nodes": "many"})", p), "");
  EXPECT_NE(policy_from_json(R"({"min_nodes": 9, "max_nodes": 3})", p), "");
  EXPECT_EQ(p.hash(), before);
}

TEST(PolicySteering, FocusOpsDominateAndExcludedOpsVanish) {
  GenPolicy focus;
  focus.focus_ops = {"scatter_reduce", "index_put_"};
  focus.exclude_ops = {"relu", "add"};
  int programs_with_focus = 0, total = 0, focused = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Program p = generate_program(focus, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    ProgramSummary s = summarize(p);
    EXPECT_EQ(s.ops.count("relu"), 0u) << "seed " << seed;
    int f = (s.ops.count("scatter_reduce") ? s.ops.at("scatter_reduce") : 0) +
            (s.ops.count("index_put_") ? s.ops.at("index_put_") : 0);
    programs_with_focus += f > 0;
    focused += f;
    total += s.nodes;
  }
  EXPECT_GE(programs_with_focus, 190);
  EXPECT_GE(focused * 4, total) << "a quarter of all nodes (guards and helpers included)";
}

// `templates` narrows the realistic blocks drawn: with only the conv block and
// p_template 1, every program holds its conv; the default hash is unchanged.
TEST(PolicySteering, TemplatesNameTheBlocksDrawn) {
  GenPolicy p;
  const uint64_t before = p.hash();
  ASSERT_EQ(policy_from_json(R"({"templates": ["conv_block"], "p_template": 1})", p), "");
  EXPECT_NE(p.hash(), before);
  p.templates.clear();
  p.p_template = GenPolicy().p_template;
  EXPECT_EQ(p.hash(), before);
  ASSERT_EQ(policy_from_json(R"({"templates": ["conv_block"], "p_template": 1})", p), "");
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Program prog = generate_program(p, seed);
    ASSERT_EQ(verify(prog), "") << "seed " << seed;
    ProgramSummary s = summarize(prog);
    EXPECT_TRUE(s.ops.count("conv2d")) << "seed " << seed;
  }
}

}  // namespace
}  // namespace dlfuzz
