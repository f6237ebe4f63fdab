// The realistic templates: over many seeds, for both targets, in inference and
// training programs, each one builds a block that verifies, round-trips
// through .dlf and has the ops that make it what it is; and whole generated
// programs mix them in at the policy's rate.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "generator/canonicalize.h"
#include "generator/dlf.h"
#include "generator/generator.h"
#include "generator/templates.h"
#include "generator/verify.h"

namespace dlfuzz {
namespace {

std::set<std::string> ops_of(const Program& p) {
  std::set<std::string> ops;
  for_each_node(p.body, [&](const Node& n) { ops.insert(n.op); });
  return ops;
}

TEST(Templates, EveryTemplateBuildsValidBlocks) {
  const std::map<std::string, std::vector<std::string>> must = {
      {"transformer_block", {"linear", "reshape", "transpose", "add"}},
      {"conv_block", {"conv2d"}},
      {"embedding_head", {"embedding", "reshape"}},
      {"recurrent_cell", {"select", "tanh", "linear"}},
      {"mlp_block", {"linear"}},
      {"decoder_block", {"conv2d"}},
      {"qat_block", {"fake_quantize_per_tensor_affine"}}};
  std::map<std::string, int> built;
  std::set<std::string> attention_ops;
  int position_bias = 0;
  for (Target target : {Target::torch113, Target::torch2}) {
    for (uint64_t seed = 0; seed < 600; ++seed) {
      GenPolicy policy;
      Program p;
      p.target = target;
      if (seed % 2) p.train = TrainStep{};
      SeededChoices c(seed);
      GenContext g(p, c, policy);
      std::string name;
      int out = random_template(g, &name);
      if (out < 0) continue;
      p.body.yields = {out};
      p.train.reset();  // no loss here: the body only
      canonicalize(p);  // as generate_program does: values in textual order
      ASSERT_EQ(verify(p), "") << name << " seed " << seed;
      ParseResult back = parse_program(print_program(p));
      ASSERT_TRUE(back.ok()) << name << " seed " << seed << ": " << back.error->str();
      EXPECT_TRUE(back.program == p) << name << " seed " << seed;
      std::set<std::string> ops = ops_of(p);
      for (const auto& op : must.at(name)) EXPECT_TRUE(ops.count(op)) << name << " seed " << seed << " lacks " << op;
      if (name == "transformer_block") {
        bool attention = ops.count("softmax") || ops.count("scaled_dot_product_attention");
        EXPECT_TRUE(attention) << "seed " << seed;
        if (target == Target::torch113) {
          EXPECT_FALSE(ops.count("scaled_dot_product_attention") || ops.count("rms_norm"));
        }
        for (const char* op : {"scaled_dot_product_attention", "rms_norm", "masked_fill", "silu", "gelu"})
          if (ops.count(op)) attention_ops.insert(op);
        // A learned position bias: a [T, T] param as SDPA's mask or added to the scores.
        for_each_node(p.body, [&](const Node& n) {
          const Arg* a = n.op == "scaled_dot_product_attention" ? n.arg("attn_mask")
                         : n.op == "add"                        ? n.arg("other")
                                                                : nullptr;
          const auto* r = a ? std::get_if<ValueRef>(&a->value) : nullptr;
          const InputDecl* d = r ? p.input_of(r->id) : nullptr;
          if (d && d->kind == InputKind::param && p.type(r->id).rank() == 2) ++position_bias;
        });
      }
      if (name == "decoder_block") {
        // Twice the coarse map's size, by a transposed conv or an upsample, and a skip joined.
        EXPECT_TRUE(ops.count("conv_transpose2d") || ops.count("upsample_nearest2d") ||
                    ops.count("upsample_bilinear2d"))
            << "seed " << seed;
        EXPECT_TRUE(ops.count("cat") || ops.count("add")) << "seed " << seed;
      }
      if (name == "qat_block") {
        // The input, the weight (symmetric: zero point 0) and the output fake-quantized.
        int quantized = 0, symmetric = 0;
        for_each_node(p.body, [&](const Node& n) {
          if (n.op != "fake_quantize_per_tensor_affine") return;
          ++quantized;
          symmetric += std::get<int64_t>(n.arg("zero_point")->value) == 0 &&
                       std::get<int64_t>(n.arg("quant_min")->value) < 0;
        });
        EXPECT_EQ(quantized, 3) << "seed " << seed;
        EXPECT_GE(symmetric, 1) << "seed " << seed;
        EXPECT_TRUE(ops.count("linear") || ops.count("conv2d")) << "seed " << seed;
      }
      ++built[name];
    }
  }
  for (const auto& name : template_names()) EXPECT_GT(built[name], 100) << name;
  EXPECT_EQ(attention_ops.size(), 5u);  // SDPA and written-out attention, RMS norm, both MLPs
  EXPECT_GT(position_bias, 20);
}

// What deployed conv nets and MLPs hold and freezing folds into the layer:
// in inference programs the conv and MLP blocks' norm is eval batch norm on
// params or a frozen per-channel scale and shift; training keeps batch stats.
TEST(Templates, InferenceBlocksHoldWhatFreezingFolds) {
  for (auto [name, block] : {std::pair{"conv_block", conv_block}, std::pair{"mlp_block", mlp_block},
                             std::pair{"decoder_block", decoder_block}}) {
    int eval_bn = 0, scale_shift = 0, depthwise = 0;
    for (Target target : {Target::torch113, Target::torch2}) {
      for (uint64_t seed = 0; seed < 400; ++seed) {
        GenPolicy policy;
        Program p;
        p.target = target;
        bool training = seed % 2;
        if (training) p.train = TrainStep{};
        SeededChoices c(seed);
        GenContext g(p, c, policy);
        int out = block(g);
        ASSERT_GE(out, 0) << name << " seed " << seed;
        p.body.yields = {out};
        p.train.reset();
        canonicalize(p);
        ASSERT_EQ(verify(p), "") << name << " seed " << seed;
        auto is_param = [&](const Arg* a) {
          const auto* ref = a ? std::get_if<ValueRef>(&a->value) : nullptr;
          const InputDecl* d = ref ? p.input_of(ref->id) : nullptr;
          return d && d->kind == InputKind::param;
        };
        bool eval_norm = false;
        for_each_node(p.body, [&](const Node& n) {
          if (n.op == "conv2d" && std::get<int64_t>(n.arg("groups")->value) > 1) ++depthwise;
          if (n.op == "batch_norm") {
            bool eval = !std::get<bool>(n.arg("training")->value);
            EXPECT_EQ(eval, !training) << name << " seed " << seed;
            if (eval) {
              EXPECT_TRUE(is_param(n.arg("running_mean")) && is_param(n.arg("running_var"))) << name << " " << seed;
              eval_norm = true;
              ++eval_bn;
            }
          }
          if (n.op == "mul" && is_param(n.arg("other"))) {
            const TensorType& out = p.type(n.outputs[0]);
            Shape channel(out.rank(), 1);
            channel[1] = out.shape[1];
            EXPECT_EQ(p.type(std::get<ValueRef>(n.arg("other")->value).id).shape, channel) << name << " " << seed;
            eval_norm = true;
            ++scale_shift;
          }
        });
        EXPECT_EQ(eval_norm, !training) << name << " seed " << seed;
      }
    }
    EXPECT_GT(eval_bn, 100) << name;
    EXPECT_GT(scale_shift, 100) << name;
    if (std::string(name) == "conv_block") {
      EXPECT_GT(depthwise, 30);
    }
  }
}

TEST(Templates, GeneratedProgramsMixThemIn) {
  GenPolicy policy;
  policy.target = Target::torch2;
  int with_embedding = 0, with_attention = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    Program p = generate_program(policy, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    std::set<std::string> ops = ops_of(p);
    with_embedding += ops.count("embedding") > 0;
    with_attention += ops.count("scaled_dot_product_attention") > 0;
  }
  // Without templates embedding (weight 1 of ~150) and attention (1.5) are rare.
  EXPECT_GT(with_embedding, 25);
  EXPECT_GT(with_attention, 25);
}

}  // namespace
}  // namespace dlfuzz
