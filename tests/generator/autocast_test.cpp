// Autocast programs: the forward under torch.autocast("cpu", bf16 or f16),
// typed by CPU autocast's rules (generator/autocast.h): through .dlf text,
// over many generated programs, and in the emitted function.
#include <gtest/gtest.h>

#include <string>

#include "generator/autocast.h"
#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/generator.h"
#include "generator/op_spec.h"
#include "generator/verify.h"
#include "tests/parse_program.h"

namespace dlfuzz {
namespace {

const char* kHeader = "dlfuzz 1 seed=1 policy=0 mode=infer device=cpu world=1 plan=none target=torch2 autocast=bf16\n";

// The parse error of a program text, "" when it parses.

TEST(Autocast, TypeRulesAreCpuAutocasts) {
  const std::string in = "input %a : f32[2,3] range(-1.0,1.0)\ninput %b : f32[3,4] range(-1.0,1.0)\n";
  // lower: mm of float32 runs in bfloat16.
  EXPECT_EQ(test::parse_error(std::string(kHeader) + in + "%1 : bf16[2,4] = mm %a, %b\nreturn %1\n"), "");
  EXPECT_NE(
      test::parse_error(std::string(kHeader) + in + "%1 : f32[2,4] = mm %a, %b\nreturn %1\n").find("gives bf16[2,4]"),
      std::string::npos);
  // Its operands are cast: float32 with bfloat16 is fine under autocast.
  EXPECT_EQ(test::parse_error(std::string(kHeader) + in +
                              "%1 : bf16[3,4] = to %b, dtype=bf16\n%2 : bf16[2,4] = mm %a, %1\nreturn %2\n"),
            "");
  // float64 is never cast.
  EXPECT_EQ(test::parse_error(std::string(kHeader) +
                              "input %a : f64[2,3] range(-1.0,1.0)\ninput %b : f64[3,4] range(-1.0,1.0)\n"
                              "%1 : f64[2,4] = mm %a, %b\nreturn %1\n"),
            "");
  // fp32: a loss of bfloat16 values is float32.
  EXPECT_EQ(test::parse_error(std::string(kHeader) + in +
                              "%1 : bf16[2,4] = mm %a, %b\n%2 : f32[] = mse_loss %1, %1\nreturn %2\n"),
            "");
  // promote: cat refuses the half type that is not autocast's (at::autocast::prioritize).
  EXPECT_NE(test::parse_error(std::string(kHeader) +
                              "input %a : f16[2] range(-1.0,1.0)\n%1 : f16[4] = cat [%a, %a]\nreturn %1\n")
                .find("cannot promote"),
            std::string::npos);
  EXPECT_EQ(test::parse_error(std::string(kHeader) + in +
                              "%1 : bf16[2,4] = mm %a, %b\n%2 : f32[2,7] = cat [%1, %a], dim=1\nreturn %2\n"),
            "");
  // einsum's dtype depends on ATen's decomposition: not under autocast.
  EXPECT_NE(
      test::parse_error(std::string(kHeader) + in + "%1 : bf16[2,4] = einsum \"ij,jk->ik\", [%a, %b]\nreturn %1\n")
          .find("decomposition"),
      std::string::npos);
}

TEST(Autocast, HalfActivationsTakeFloat32NormParamsInTorch2) {
  // The CPU norms' mixed dtype: bf16 input, float32 weight and bias.
  const std::string body =
      "input %x : bf16[2,3] range(-1.0,1.0)\nparam %w : f32[3] range(0.5,1.5)\nparam %b : f32[3] range(-0.5,0.5)\n"
      "%1 : bf16[2,3] = layer_norm %x, normalized_shape=[3], weight=%w, bias=%b\nreturn %1\n";
  EXPECT_EQ(test::parse_error(std::string(kHeader) + body), "");
  // Not in 1.13, and not with one param of another dtype.
  EXPECT_NE(test::parse_error("dlfuzz 1 seed=1 policy=0 mode=infer device=cpu world=1 plan=none\n" + body), "");
  EXPECT_NE(
      test::parse_error(
          std::string(kHeader) +
          "input %x : bf16[2,3] range(-1.0,1.0)\nparam %w : f32[3] range(0.5,1.5)\n"
          "param %b : bf16[3] range(-0.5,0.5)\n%1 : bf16[2,3] = layer_norm %x, normalized_shape=[3], weight=%w, bias=%b\n"
          "return %1\n")
          .find("'weight' must be bf16[3], not f32[3]"),
      std::string::npos);
}

TEST(Autocast, HeaderNeedsTorch2AndAHalfDtype) {
  EXPECT_NE(
      test::parse_error("dlfuzz 1 seed=1 policy=0 mode=infer device=cpu world=1 plan=none target=torch2 autocast=f32\n"
                        "input %a : f32[2] range(-1.0,1.0)\nreturn %a\n")
          .find("autocast must be bf16 or f16"),
      std::string::npos);
  // A 1.13 program with autocast fails at its first autocast op.
  EXPECT_NE(test::parse_error("dlfuzz 1 seed=1 policy=0 mode=infer device=cpu world=1 plan=none autocast=bf16\n"
                              "input %a : f32[2,2] range(-1.0,1.0)\n%1 : bf16[2,2] = mm %a, %a\nreturn %1\n")
                .find("target=torch2"),
            std::string::npos);
}

TEST(Autocast, TheForwardRunsUnderAutocastAndTheFloat64TwinDoesNot) {
  Program p = test::parse(std::string(kHeader) +
                          "input %a : f32[2,3] range(-1.0,1.0)\ninput %b : f32[3,4] range(-1.0,1.0)\n"
                          "%1 : bf16[2,4] = mm %a, %b\nreturn %1\n");
  std::string f = emit_function(p, "program", false);
  EXPECT_NE(f.find("    with torch.autocast('cpu', dtype=torch.bfloat16):\n        v1 = torch.mm(a, b)\n"),
            std::string::npos)
      << f;
  EXPECT_NE(f.find("\n    return (v1,)"), std::string::npos) << f;
  nlohmann::json j = python_worker_program(p);
  EXPECT_EQ(j["function_fp64"].get<std::string>().find("autocast"), std::string::npos);
  EXPECT_NE(print_program(p).find(" autocast=bf16"), std::string::npos);
}

TEST(Autocast, GeneratedProgramsOverManySeeds) {
  GenPolicy policy;
  policy.target = Target::torch2;
  policy.p_autocast = 1;
  policy.p_template = 0.5;
  int f16 = 0, lowered = 0, to_f32 = 0, templates_bf16 = 0, training = 0;
  for (int seed = 0; seed < 600; ++seed) {
    Program p = generate_program(policy, seed);
    ASSERT_TRUE(p.autocast) << "seed " << seed;
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    ParseResult back = parse_program(print_program(p));
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << (back.ok() ? "" : back.error->str());
    EXPECT_TRUE(back.program == p) << "seed " << seed;
    f16 += *p.autocast == DType::f16;
    training += p.is_training();
    const DType other = *p.autocast == DType::f16 ? DType::bf16 : DType::f16;
    for (const auto& v : p.values) EXPECT_NE(v.type.dtype, other) << "seed " << seed << ": %" << v.name;
    for_each_node(p.body, [&](const Node& n) {
      if (n.outputs.empty() || node_inputs(n).empty()) return;
      DType in = p.type(node_inputs(n).front()).dtype, out = p.type(n.outputs[0]).dtype;
      AutocastPolicy ap = autocast_policy(n.op);
      if (ap == AutocastPolicy::lower && in == DType::f32 && out == *p.autocast) ++lowered;
      if (ap == AutocastPolicy::fp32 && in == *p.autocast && out == DType::f32) ++to_f32;
      if ((n.op == "layer_norm" || n.op == "batch_norm" || n.op == "rms_norm") && in == *p.autocast) ++templates_bf16;
      EXPECT_NE(ap, AutocastPolicy::unknown) << "seed " << seed << ": " << n.op;
    });
  }
  EXPECT_GT(f16, 100);  // one in four
  EXPECT_LT(f16, 200);
  EXPECT_GT(training, 150);
  EXPECT_GT(lowered, 300);        // matmuls, convs and linears of float32 in the half type
  EXPECT_GT(to_f32, 20);          // losses and fp32 ops of half values in float32
  EXPECT_GT(templates_bf16, 40);  // norms of half activations with float32 params
}

TEST(Autocast, DefaultPolicyDrawsItForSomeTorch2CpuProgramsOnly) {
  GenPolicy policy;
  int with = 0;
  for (int seed = 0; seed < 300; ++seed) EXPECT_FALSE(generate_program(policy, seed).autocast);  // torch1.13
  policy.target = Target::torch2;
  for (int seed = 0; seed < 1000; ++seed) with += generate_program(policy, seed).autocast.has_value();
  EXPECT_GT(with, 140);  // p_autocast 0.2
  EXPECT_LT(with, 260);
  policy.device = "cuda";
  for (int seed = 0; seed < 300; ++seed) EXPECT_FALSE(generate_program(policy, seed).autocast);
}

}  // namespace
}  // namespace dlfuzz
