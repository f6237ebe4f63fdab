// Type rules of the norm, loss and embedding families, and generation of every
// op of the reduce, cast, ternary, norm, loss and embedding families: what
// generate() builds, the op's own type rule and the verifier accept.
#include <gtest/gtest.h>

#include "tests/generator/infer_table.h"

#include <algorithm>

#include "generator/gen_context.h"
#include "generator/op_spec.h"
#include "generator/verify.h"

namespace dlfuzz {
namespace {

using Case = InferCase;

// Values by id: 0 f32[2,3]  1 i32[2,3]  2 f32[2,4,3]  3 f32[4]  4 f32[3]  5 i64[2]
//               6 i64[2,3]  7 i64[]     8 f32[1,4]    9 f64[2,3]  10 f32[4,3]
Program fixture() {
  Program p;
  const std::vector<TensorType> ts = {{DType::f32, {2, 3}}, {DType::i32, {2, 3}}, {DType::f32, {2, 4, 3}},
                                      {DType::f32, {4}},    {DType::f32, {3}},    {DType::i64, {2}},
                                      {DType::i64, {2, 3}}, {DType::i64, {}},     {DType::f32, {1, 4}},
                                      {DType::f64, {2, 3}}, {DType::f32, {4, 3}}};
  for (size_t i = 0; i < ts.size(); ++i) p.add_value("v" + std::to_string(i), ts[i]);
  return p;
}

void check(const std::vector<Case>& cases) { check_infer(fixture(), cases); }

// batch_norm spells all nine arguments; `edit` replaces or drops some.
std::vector<Arg> bn(int input, ArgValue rm, ArgValue rv, bool training, bool drop_cudnn = false) {
  std::vector<Arg> a = {{"input", V(input)}, {"weight", V(3)},       {"bias", None{}},  {"running_mean", rm},
                        {"running_var", rv}, {"training", training}, {"momentum", 0.1}, {"eps", 1e-5}};
  if (!drop_cudnn) a.push_back({"cudnn_enabled", true});
  return a;
}

TEST(OpsNorm, Infer) {
  check({
      {"layer_norm", {{"input", V(0)}, {"normalized_shape", IntList{3}}}, "f32[2,3]"},
      {"layer_norm", {{"input", V(0)}, {"normalized_shape", IntList{2, 3}}, {"weight", V(0)}}, "f32[2,3]"},
      {"layer_norm", {{"input", V(0)}, {"normalized_shape", IntList{2}}}, "error"},
      {"layer_norm", {{"input", V(0)}, {"normalized_shape", IntList{3}}, {"weight", V(3)}}, "error"},
      {"layer_norm", {{"input", V(1)}, {"normalized_shape", IntList{3}}}, "error"},
      {"layer_norm", {{"input", V(0)}, {"normalized_shape", IntList{3}}, {"eps", 0.0}}, "error"},
      {"layer_norm", {{"input", V(0)}}, "error"},
      {"group_norm", {{"input", V(2)}, {"num_groups", int64_t(2)}, {"weight", V(3)}, {"bias", V(3)}}, "f32[2,4,3]"},
      {"group_norm", {{"input", V(2)}, {"num_groups", int64_t(3)}}, "error"},
      {"group_norm", {{"input", V(2)}}, "error"},
      {"group_norm", {{"input", V(3)}, {"num_groups", int64_t(1)}}, "error"},
      {"group_norm", {{"input", V(2)}, {"num_groups", int64_t(4)}, {"weight", V(4)}}, "error"},
      {"group_norm", {{"input", V(8)}, {"num_groups", int64_t(4)}}, "error"},
      {"group_norm", {{"input", V(8)}, {"num_groups", int64_t(2)}}, "f32[1,4]"},
      {"batch_norm", bn(2, V(3), V(3), false), "f32[2,4,3]"},
      {"batch_norm", bn(2, None{}, None{}, true), "f32[2,4,3]"},
      {"batch_norm", bn(2, V(3), None{}, false), "error"},
      {"batch_norm", bn(2, V(3), V(3), true), "error"},
      {"batch_norm", bn(2, None{}, None{}, true, true), "error"},
      {"batch_norm", bn(8, None{}, None{}, true), "error"},
      {"batch_norm", bn(8, V(3), V(3), false), "f32[1,4]"},
      {"batch_norm", bn(0, None{}, None{}, true), "error"},
  });
}

// Eval-mode running stats may be params (nn.BatchNorm's buffers) in inference
// programs; in training ones autograd refuses them (they would require grad).
TEST(OpsNorm, BatchNormRunningStatsAsParamsOnlyInInference) {
  Program p = fixture();
  int stats = p.add_value("stats", {DType::f32, {4}});
  for (int v : {3, stats}) {
    InputDecl d;
    d.value = v;
    d.kind = v == 3 ? InputKind::param : InputKind::data;
    p.inputs.push_back(d);
  }
  Node n;
  n.op = "batch_norm";
  n.args = bn(2, V(3), V(stats), false);
  const OpSpec& s = *find_op("batch_norm");
  std::vector<TensorType> out;
  EXPECT_EQ(infer_node(s, p, n, out), "");
  p.train = TrainStep{};
  EXPECT_EQ(infer_node(s, p, n, out), "batch_norm's running_mean cannot be a param in a training program");
  n.args = bn(2, V(stats), V(stats), false);
  EXPECT_EQ(infer_node(s, p, n, out), "");
}

TEST(OpsLoss, Infer) {
  check({
      {"mse_loss", {{"self", V(0)}, {"target", V(0)}}, "f32[]"},
      {"l1_loss", {{"self", V(9)}, {"target", V(9)}}, "f64[]"},
      {"mse_loss", {{"self", V(0)}, {"target", V(9)}}, "error"},
      {"l1_loss", {{"self", V(1)}, {"target", V(1)}}, "error"},
      {"smooth_l1_loss", {{"self", V(0)}, {"target", V(0)}, {"beta", 0.5}}, "f32[]"},
      {"smooth_l1_loss", {{"self", V(0)}}, "error"},
      {"cross_entropy", {{"self", V(0)}, {"target", V(5)}}, "f32[]"},
      {"cross_entropy", {{"self", V(2)}, {"target", V(6)}}, "f32[]"},
      {"cross_entropy", {{"self", V(4)}, {"target", V(7)}}, "f32[]"},
      {"cross_entropy", {{"self", V(0)}, {"target", V(1)}}, "error"},
      {"cross_entropy", {{"self", V(0)}, {"target", V(6)}}, "error"},
      {"cross_entropy", {{"self", V(0)}, {"target", V(5)}, {"label_smoothing", 1.5}}, "error"},
      {"nll_loss", {{"self", V(0)}, {"target", V(5)}}, "f32[]"},
      {"nll_loss", {{"self", V(2)}, {"target", V(6)}}, "error"},
  });
}

TEST(OpsEmbedding, Infer) {
  check({
      {"embedding", {{"weight", V(10)}, {"indices", V(5)}}, "f32[2,3]"},
      {"embedding", {{"weight", V(10)}, {"indices", V(6)}}, "f32[2,3,3]"},
      {"embedding", {{"weight", V(10)}, {"indices", V(7)}}, "f32[3]"},
      {"embedding", {{"weight", V(10)}, {"indices", V(1)}, {"padding_idx", int64_t(3)}}, "f32[2,3,3]"},
      {"embedding", {{"weight", V(10)}, {"indices", V(0)}}, "error"},
      {"embedding", {{"weight", V(3)}, {"indices", V(5)}}, "error"},
      {"embedding", {{"weight", V(10)}, {"indices", V(5)}, {"padding_idx", int64_t(4)}}, "error"},
      {"embedding", {{"weight", V(10)}, {"indices", V(5)}, {"padding_idx", int64_t(-1)}}, "error"},
      {"embedding", {{"weight", V(10)}}, "error"},
  });
}

// Each op placed many times into small programs (inference and training) must
// give nodes that emit and verify.
TEST(OpsFamilies, GenerateVerifies) {
  const std::vector<std::string> families = {"reduce", "cast", "ternary", "norm", "loss", "embedding"};
  GenPolicy policy;
  int placed = 0;
  for (const auto& spec : all_ops()) {
    if (std::find(families.begin(), families.end(), spec.family) == families.end()) continue;
    int ok = 0;
    for (uint64_t seed = 0; seed < 300; ++seed) {
      Program p;
      if (seed % 3 == 0) p.train = TrainStep{};
      if (spec.torch2_only) p.target = Target::torch2;
      SeededChoices c(seed * 7919 + spec.name.size());
      GenContext g(p, c, policy);
      for (int i = 0; i < 3; ++i) {
        DType t = p.is_training() ? g.random_float_dtype() : g.random_dtype();
        g.new_input({t, g.random_shape(0, 4)});
      }
      Node n;
      n.op = spec.name;
      if (!spec.generate(g, spec, n)) continue;
      auto outs = g.emit(n);
      ASSERT_TRUE(outs.has_value()) << spec.name << " seed " << seed << ": " << g.last_error;
      p.train.reset();  // no loss here: check the body only
      ASSERT_EQ(verify(p), "") << spec.name << " seed " << seed;
      ++ok;
    }
    EXPECT_GT(ok, 100) << spec.name << " was placed too rarely";
    ++placed;
  }
  EXPECT_EQ(placed, 46);
}

}  // namespace
}  // namespace dlfuzz
