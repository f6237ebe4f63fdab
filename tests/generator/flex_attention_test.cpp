// flex_attention (generator/ops/attention.cpp): its .dlf form, the runtime
// call the Python emitter writes, what its type rule refuses (the CPU has no
// backward for it and compiles no float64), and what generation draws.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/generator.h"
#include "generator/verify.h"
#include "tests/parse_program.h"

namespace dlfuzz {
namespace {

std::string program(const std::string& mode, const std::string& dtype, const std::string& args) {
  return "dlfuzz 1 seed=1 mode=" + mode +
         " device=cpu world=1 plan=none target=torch2\n"
         "input %q : " +
         dtype + "[2,2,5,4] range(-1.0,1.0)\ninput %k : " + dtype + "[2,2,3,4] range(-1.0,1.0)\ninput %v : " + dtype +
         "[2,2,3,6] range(-1.0,1.0)\n%1 : " + dtype + "[2,2,5,6] = flex_attention %q, %k, %v" + args + "\nreturn %1\n";
}

TEST(FlexAttention, ParsesPrintsAndEmitsTheRuntimeCall) {
  Program p = test::parse(program("infer", "f32", ", score_mod=\"alibi\", block_mask=\"causal\", scale=0.5"));
  EXPECT_EQ(verify(p), "");
  ParseResult back = parse_program(print_program(p));
  ASSERT_TRUE(back.ok()) << back.error->str();
  EXPECT_TRUE(back.program == p);
  std::string py = emit_python(p);
  EXPECT_NE(py.find("_dlfuzz_flex_attention(q, k, v, score_mod='alibi', block_mask='causal', scale=0.5)"),
            std::string::npos)
      << py;
}

TEST(FlexAttention, TypeRuleRefusesWhatTheCpuCannotRun) {
  EXPECT_EQ(test::parse_error(program("infer", "bf16", "")), "");
  EXPECT_NE(test::parse_error(program("infer", "f64", "")).find("float32, float16 and bfloat16 only"),
            std::string::npos);
  EXPECT_NE(test::parse_error(program("infer", "f32", ", score_mod=\"rotary\"")).find("score_mod must be one of"),
            std::string::npos);
  EXPECT_NE(test::parse_error(program("infer", "f32", ", block_mask=\"full\"")).find("block_mask must be one of"),
            std::string::npos);
  std::string training = program("train", "f32", "");
  training.replace(training.find("return %1\n"), 10,
                   "target %y : f32[2,2,5,6] range(-1.0,1.0)\n%2 : f32[] = mse_loss %1, %y\nreturn %1\nloss %2\n"
                   "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=1\n");
  EXPECT_NE(test::parse_error(training).find("no backward on the CPU"), std::string::npos)
      << test::parse_error(training);
  std::string wrong = program("infer", "f32", "");
  wrong.replace(wrong.find("[2,2,3,6] range"), 9, "[2,2,4,6]");
  EXPECT_NE(test::parse_error(wrong).find("one sequence length"), std::string::npos) << test::parse_error(wrong);
}

TEST(FlexAttention, GroupedQueryAttentionAndCapturedTensors) {
  auto with_inputs = [](const std::string& inputs, const std::string& args, const std::string& kv_heads = "2") {
    std::string text = program("infer", "f32", args);
    text.replace(text.find("%1 :"), 0, inputs);
    for (const char* name : {"%k : f32[2,", "%v : f32[2,"}) text.replace(text.find(name) + 11, 1, kv_heads);
    return text;
  };
  Program p = test::parse(
      with_inputs("input %b : f32[2,5,3] range(-1.0,1.0)\n", ", score_mod=\"bias\", bias=%b, enable_gqa=true"));
  std::string py = emit_python(p);
  EXPECT_NE(py.find("_dlfuzz_flex_attention(q, k, v, score_mod='bias', bias=b, enable_gqa=True)"), std::string::npos)
      << py;
  EXPECT_EQ(test::parse_error(with_inputs("", ", enable_gqa=true", "1")), "");
  EXPECT_NE(test::parse_error(with_inputs("", "", "1")).find("batch dims"), std::string::npos);
  EXPECT_NE(test::parse_error(with_inputs("", ", enable_gqa=true", "3")).find("must divide"), std::string::npos);
  // The table each bias mod reads: (H, L, S), (L + S - 1), (H).
  EXPECT_EQ(
      test::parse_error(with_inputs("input %b : f32[7] range(-1.0,1.0)\n", ", score_mod=\"relative_bias\", bias=%b")),
      "");
  EXPECT_EQ(
      test::parse_error(with_inputs("input %b : f32[2] range(-1.0,1.0)\n", ", score_mod=\"head_slope\", bias=%b")), "");
  EXPECT_NE(test::parse_error(with_inputs("input %b : f32[2,5,4] range(-1.0,1.0)\n", ", score_mod=\"bias\", bias=%b"))
                .find("bias of bias must be f32[2,5,3]"),
            std::string::npos);
  EXPECT_NE(test::parse_error(with_inputs("", ", score_mod=\"bias\"")).find("a bias tensor goes with"),
            std::string::npos);
  EXPECT_NE(test::parse_error(with_inputs("input %b : f32[2] range(-1.0,1.0)\n", ", score_mod=\"alibi\", bias=%b"))
                .find("a bias tensor goes with"),
            std::string::npos);
  EXPECT_EQ(
      test::parse_error(with_inputs("input %d : i64[5] range(0,3)\n", ", block_mask=\"document_ids\", doc_ids=%d")),
      "");
  EXPECT_NE(
      test::parse_error(with_inputs("input %d : i64[3] range(0,3)\n", ", block_mask=\"document_ids\", doc_ids=%d"))
          .find("doc_ids must be i64[max(L, S)]"),
      std::string::npos);
}

TEST(FlexAttention, GeneratedOverManySeeds) {
  GenPolicy policy;
  policy.target = Target::torch2;
  policy.focus_ops = {"flex_attention", "add", "mul", "softmax", "linear"};
  std::map<std::string, int> score_mods, masks;
  int programs_with = 0, in_training = 0, uneven = 0, grouped = 0;
  std::map<std::string, int> computed;  // captured tensors made in the program
  for (int seed = 0; seed < 1000; ++seed) {
    Program p = generate_program(policy, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    ParseResult back = parse_program(print_program(p));
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << back.error->str();
    EXPECT_TRUE(back.program == p) << "seed " << seed;
    bool with = false;
    for (const Node& n : p.body.nodes) {
      if (n.op != "flex_attention") continue;
      with = true;
      const Arg* s = n.arg("score_mod");
      const Arg* m = n.arg("block_mask");
      ++score_mods[s ? std::get<std::string>(s->value) : "none"];
      ++masks[m ? std::get<std::string>(m->value) : "none"];
      const TensorType& q = p.type(std::get<ValueRef>(n.arg("query")->value).id);
      const TensorType& k = p.type(std::get<ValueRef>(n.arg("key")->value).id);
      uneven += q.shape[2] != k.shape[2];
      grouped += q.shape[1] != k.shape[1];
      for (const char* captured : {"bias", "doc_ids"})
        if (const Arg* b = n.arg(captured)) computed[captured] += !p.input_of(std::get<ValueRef>(b->value).id);
      EXPECT_NE(q.dtype, DType::f64) << "seed " << seed;
    }
    programs_with += with;
    in_training += with && p.is_training();
  }
  EXPECT_GT(programs_with, 200);
  EXPECT_EQ(in_training, 0);
  EXPECT_GT(uneven, 50);
  EXPECT_GT(grouped, 50);
  EXPECT_GT(computed["bias"], 30);
  EXPECT_GT(computed["doc_ids"], 30);
  EXPECT_EQ(score_mods.size(), 8u);  // the seven named and none
  EXPECT_EQ(masks.size(), 5u);       // the four named and none
  for (const auto& [name, count] : score_mods) EXPECT_GT(count, 20) << name;
  for (const auto& [name, count] : masks) EXPECT_GT(count, 20) << name;
}

}  // namespace
}  // namespace dlfuzz
