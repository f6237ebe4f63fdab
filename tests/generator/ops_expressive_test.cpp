// conv_transpose1d/2d, instance_norm, einsum, the upsample ops and fake
// quantization: type rules
// (checked against torch 2.x), their Python and TorchScript spellings, and over
// many seeds every one is generated, its programs verify and round-trip
// through .dlf.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "tests/generator/infer_table.h"
#include "tests/generator/new_ops.h"

#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/gen_context.h"
#include "generator/generator.h"
#include "generator/summary.h"
#include "generator/verify.h"

namespace dlfuzz {
namespace {

// Values by id: 0 f32[2,3,5]  1 f32[3,4,2]  2 f32[4]  3 f32[1,2,3,3]  4 f32[2,1,2,2]
//               5 f32[3,5]    6 f32[5,4]    7 i64[3,5] 8 f32[3,3]    9 f32[3]  10 f32[2,3,1]
Program fixture() {
  Program p;
  const std::vector<TensorType> ts = {{DType::f32, {2, 3, 5}},    {DType::f32, {3, 4, 2}},    {DType::f32, {4}},
                                      {DType::f32, {1, 2, 3, 3}}, {DType::f32, {2, 1, 2, 2}}, {DType::f32, {3, 5}},
                                      {DType::f32, {5, 4}},       {DType::i64, {3, 5}},       {DType::f32, {3, 3}},
                                      {DType::f32, {3}},          {DType::f32, {2, 3, 1}}};
  for (size_t i = 0; i < ts.size(); ++i) p.add_value("v" + std::to_string(i), ts[i]);
  return p;
}

void check(const std::vector<InferCase>& cases) { check_infer(fixture(), cases); }

TEST(OpsConvTranspose, Infer) {
  check({
      {"conv_transpose1d", {{"input", V(0)}, {"weight", V(1)}}, "f32[2,4,6]"},
      {"conv_transpose1d",
       {{"input", V(0)},
        {"weight", V(1)},
        {"stride", IntList{2}},
        {"padding", IntList{1}},
        {"output_padding", IntList{1}}},
       "f32[2,4,9]"},
      // output_padding must stay below the stride or the dilation.
      {"conv_transpose1d",
       {{"input", V(0)}, {"weight", V(1)}, {"stride", IntList{2}}, {"output_padding", IntList{2}}},
       "error"},
      {"conv_transpose1d",
       {{"input", V(0)}, {"weight", V(1)}, {"output_padding", IntList{1}}, {"dilation", IntList{2}}},
       "f32[2,4,8]"},
      {"conv_transpose1d", {{"input", V(0)}, {"weight", V(1)}, {"groups", int64_t(3)}}, "f32[2,12,6]"},
      {"conv_transpose1d", {{"input", V(0)}, {"weight", V(1)}, {"bias", V(2)}, {"groups", int64_t(3)}}, "error"},
      {"conv_transpose1d", {{"input", V(0)}, {"weight", V(1)}, {"bias", V(2)}}, "f32[2,4,6]"},
      {"conv_transpose1d", {{"input", V(5)}, {"weight", V(1)}}, "f32[4,6]"},  // unbatched
      {"conv_transpose2d", {{"input", V(3)}, {"weight", V(4)}, {"stride", IntList{2}}}, "f32[1,1,6,6]"},
      {"conv_transpose2d", {{"input", V(3)}, {"weight", V(4)}, {"padding", IntList{3}}}, "error"},
      {"conv_transpose2d", {{"input", V(0)}, {"weight", V(4)}}, "f32[1,4,6]"},  // unbatched [C, H, W]
      {"conv_transpose2d", {{"input", V(5)}, {"weight", V(4)}}, "error"},
      {"conv1d", {{"input", V(0)}, {"weight", V(1)}, {"output_padding", IntList{0}}}, "error"},
  });
}

TEST(OpsInstanceNorm, Infer) {
  auto args = [](int input, ArgValue weight, bool stats) {
    return std::vector<Arg>{{"input", V(input)},      {"weight", weight},      {"bias", None{}},
                            {"running_mean", None{}}, {"running_var", None{}}, {"use_input_stats", stats},
                            {"momentum", 0.1},        {"eps", 1e-5},           {"cudnn_enabled", true}};
  };
  std::vector<Arg> with_stats = args(0, None{}, true);
  with_stats[3].value = V(9);
  check({
      {"instance_norm", args(0, None{}, true), "f32[2,3,5]"},
      {"instance_norm", args(0, V(9), true), "f32[2,3,5]"},
      {"instance_norm", args(0, V(2), true), "error"},     // weight is per channel
      {"instance_norm", args(10, None{}, true), "error"},  // one spatial value
      {"instance_norm", args(5, None{}, true), "error"},   // F.instance_norm needs rank >= 3
      {"instance_norm", args(0, None{}, false), "error"},
      {"instance_norm", with_stats, "error"},
      {"instance_norm", {{"input", V(0)}}, "error"},  // ATen has no defaults
  });
}

TEST(OpsEinsum, Infer) {
  auto e = [](const std::string& eq, std::vector<int> ids) {
    return std::vector<Arg>{{"equation", eq}, {"tensors", ValueList{ids}}};
  };
  check({
      {"einsum", e("ij,jk->ik", {5, 6}), "f32[3,4]"},
      {"einsum", e("ij,jk", {5, 6}), "f32[3,4]"},  // implicit output
      {"einsum", e("ij->ji", {5}), "f32[5,3]"},
      {"einsum", e("ij->", {5}), "f32[]"},
      {"einsum", e("ii->i", {8}), "f32[3]"},  // diagonal
      {"einsum", e("ii", {8}), "f32[]"},      // trace
      {"einsum", e("ii", {5}), "error"},
      {"einsum", e("ij,kl", {5, 6}), "f32[3,5,5,4]"},
      {"einsum", e("ji,k", {5, 9}), "f32[5,3,3]"},  // implicit output is sorted
      {"einsum", e("ij,jk->ikk", {5, 6}), "error"},
      {"einsum", e("ij,jk->iz", {5, 6}), "error"},
      {"einsum", e("ij", {5, 6}), "error"},
      {"einsum", e("ij,jk->ik", {5, 5}), "error"},
      {"einsum", e("ijk->i", {5}), "error"},
      {"einsum", e("...ij->ij", {5}), "error"},  // no ellipsis here
      {"einsum", e("ij,jk->ik", {7, 6}), "error"},
      {"einsum", e("i j->j", {5}), "error"},
  });
}

TEST(OpsUpsample, Infer) {
  check({
      {"upsample_nearest1d", {{"self", V(0)}, {"output_size", IntList{7}}}, "f32[2,3,7]"},
      {"upsample_nearest1d", {{"self", V(0)}, {"output_size", IntList{7, 7}}}, "error"},
      {"upsample_nearest1d", {{"self", V(5)}, {"output_size", IntList{7}}}, "error"},
      {"upsample_nearest1d", {{"self", V(0)}, {"output_size", IntList{4}}, {"align_corners", true}}, "error"},
      {"upsample_linear1d", {{"self", V(0)}, {"output_size", IntList{4}}, {"align_corners", true}}, "f32[2,3,4]"},
      {"upsample_linear1d", {{"self", V(0)}, {"output_size", IntList{4}}}, "error"},
      {"upsample_bilinear2d",
       {{"self", V(3)}, {"output_size", IntList{4, 5}}, {"align_corners", false}},
       "f32[1,2,4,5]"},
      {"upsample_nearest2d", {{"self", V(3)}, {"output_size", IntList{0, 2}}}, "error"},
      {"upsample_nearest2d", {{"self", V(3)}, {"output_size", IntList{1, 2}}}, "f32[1,2,1,2]"},
  });
}

// F.interpolate stands for the upsample ops in Python, with the size
// positional and the mode as a keyword; TorchScript calls the ATen op.
TEST(OpsUpsample, PythonAndTorchScriptSpellings) {
  const char* text =
      "dlfuzz 1 seed=0 policy=0000000000000000 mode=infer device=cpu world=1 plan=none\n"
      "input %x0 : f32[1,2,3,3] range(-2.0,2.0)\n"
      "%1 : f32[1,2,4,5] = upsample_bilinear2d %x0, output_size=[4,5], align_corners=false\n"
      "%2 : f32[1,2,6,2] = upsample_nearest2d %1, output_size=[6,2]\n"
      "%3 : f32[] = einsum \"abcd->\", [%2]\n"
      "return %2, %3\n";
  ParseResult r = parse_program(text, "t.dlf");
  ASSERT_TRUE(r.ok()) << r.error->str();
  std::string py = emit_function(r.program, "f", false);
  EXPECT_NE(py.find("torch.nn.functional.interpolate(x0, [4, 5], align_corners=False, mode='bilinear')"),
            std::string::npos)
      << py;
  EXPECT_NE(py.find("torch.nn.functional.interpolate(v1, [6, 2], mode='nearest')"), std::string::npos) << py;
  EXPECT_NE(py.find("torch.einsum('abcd->', [v2])"), std::string::npos) << py;
  std::string ts = emit_torchscript(r.program);
  EXPECT_NE(ts.find("torch.upsample_bilinear2d(x0, output_size=[4, 5], align_corners=False)"), std::string::npos) << ts;
  EXPECT_EQ(ts.find("mode="), std::string::npos) << ts;
}

// Fake quantization: the type rule holds the qparams to what ATen checks;
// Python passes them positionally, as QAT code calls it, and TorchScript by
// ATen's names.
TEST(OpsFakeQuantize, InferAndSpellings) {
  auto fq = [](int v, double scale, int64_t zp, int64_t lo, int64_t hi) {
    return std::vector<Arg>{{"self", V(v)}, {"scale", scale}, {"zero_point", zp}, {"quant_min", lo}, {"quant_max", hi}};
  };
  const char* op = "fake_quantize_per_tensor_affine";
  check({
      {op, fq(0, 0.1, 3, 0, 255), "f32[2,3,5]"},
      {op, fq(3, 0.05, 0, -8, 7), "f32[1,2,3,3]"},
      {op, fq(0, 0.1, 300, 0, 255), "error"},  // zero point outside the grid
      {op, fq(0, 0.0, 0, 0, 255), "error"},    // scale must be positive
      {op, fq(0, 0.1, 0, 5, 4), "error"},      // quant_min above quant_max
      {op, fq(7, 0.1, 0, 0, 255), "error"},    // float only
  });
  const char* text =
      "dlfuzz 1 seed=0 policy=0000000000000000 mode=infer device=cpu world=1 plan=none\n"
      "input %x0 : f32[2,3] range(-2.0,2.0)\n"
      "%1 : f32[2,3] = fake_quantize_per_tensor_affine %x0, scale=0.05, zero_point=-3, quant_min=-8, quant_max=7\n"
      "return %1\n";
  ParseResult r = parse_program(text, "t.dlf");
  ASSERT_TRUE(r.ok()) << r.error->str();
  std::string py = emit_function(r.program, "f", false);
  EXPECT_NE(py.find("torch.fake_quantize_per_tensor_affine(x0, 0.05, -3, -8, 7)"), std::string::npos) << py;
  std::string ts = emit_torchscript(r.program);
  EXPECT_NE(ts.find("torch.fake_quantize_per_tensor_affine(x0, scale=0.05, zero_point=-3, quant_min=-8, quant_max=7)"),
            std::string::npos)
      << ts;
}

// Each op placed many times into small programs (inference and training)
// gives nodes that type-check, verify and round-trip.
TEST(OpsExpressive, EachOpPlacedAloneVerifies) {
  GenPolicy policy;
  for (const auto& name : test::kExpressiveOps) {
    const OpSpec& spec = *find_op(name);
    int ok = 0;
    for (uint64_t seed = 0; seed < 200; ++seed) {
      Program p;
      if (seed % 3 == 0) p.train = TrainStep{};
      SeededChoices c(seed * 7919 + spec.name.size());
      GenContext g(p, c, policy);
      for (int i = 0; i < 3; ++i) {
        DType t = p.is_training() ? g.random_float_dtype() : g.random_dtype();
        g.emit1("clone", {{"self", ValueRef{g.new_input({t, g.random_shape(0, 4)})}}});
      }
      Node n;
      n.op = spec.name;
      if (!spec.generate(g, spec, n)) continue;
      auto outs = g.emit(n);
      ASSERT_TRUE(outs.has_value()) << spec.name << " seed " << seed << ": " << g.last_error;
      p.train.reset();  // no loss here: check the body only
      ASSERT_EQ(verify(p), "") << spec.name << " seed " << seed;
      std::string text = print_program(p);
      ASSERT_EQ(print_program(parse_program(text).program), text) << spec.name << " seed " << seed;
      ++ok;
    }
    EXPECT_GT(ok, 100) << spec.name << " was placed too rarely";
  }
}

TEST(OpsExpressive, EveryOpIsGeneratedValidAndRoundTrips) {
  GenPolicy policy = test::expressive_ops_policy();
  std::map<std::string, int> used;
  std::set<std::string> equations;
  for (uint64_t seed = 0; seed < 800; ++seed) {
    Program p = generate_program(policy, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    std::string text = print_program(p);
    ParseResult r = parse_program(text, "gen.dlf");
    ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << r.error->str() << "\n" << text;
    ASSERT_TRUE(r.program == p) << "seed " << seed << "\n" << text;
    ASSERT_EQ(print_program(r.program), text) << "seed " << seed;
    for (const auto& [op, n] : summarize(p).ops) used[op] += n;
    for (const Node& n : p.body.nodes)
      if (n.op == "einsum") equations.insert(std::get<std::string>(n.arg("equation")->value));
  }
  for (const auto& op : test::kExpressiveOps) EXPECT_GE(used[op], 20) << op << " is rarely or never generated";
  // Contractions over 1-3 operands with and without an explicit output.
  int operands[4] = {}, implicit = 0;
  for (const auto& eq : equations) {
    operands[std::min<size_t>(3, std::count(eq.begin(), eq.end(), ',') + 1)]++;
    implicit += eq.find("->") == std::string::npos;
  }
  EXPECT_GE(operands[1], 5);
  EXPECT_GE(operands[2], 5);
  EXPECT_GE(operands[3], 5);
  EXPECT_GE(implicit, 5);
}

}  // namespace
}  // namespace dlfuzz
