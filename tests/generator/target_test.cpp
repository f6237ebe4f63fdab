// Programs know the PyTorch they are for: torch1.13 programs keep to what
// Debian's LibTorch 1.13 runs (no int16, no half where its CPU kernels lack
// it, no ops added since); torch2 programs use them. Over many seeds, and
// through the .dlf text.
#include <gtest/gtest.h>

#include <set>

#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/generator.h"
#include "generator/op_spec.h"
#include "generator/verify.h"

namespace dlfuzz {
namespace {

struct Uses {
  int programs = 0, i16 = 0, half_where_113_lacks = 0;  // f16 into an op whose 1.13 CPU kernels lack it
  int wide_unsigned = 0;                                 // programs with a uint16/32/64 value
  std::set<std::string> torch2_ops, wide_unsigned_ops;   // ops reading a uint16/32/64 tensor
};

Uses generate(Target target, int count) {
  GenPolicy policy;
  policy.target = target;
  Uses u;
  for (int seed = 0; seed < count; ++seed) {
    Program p = generate_program(policy, seed);
    EXPECT_EQ(p.target, target);
    EXPECT_EQ(verify(p), "") << "seed " << seed;
    ParseResult back = parse_program(print_program(p));
    EXPECT_TRUE(back.ok()) << "seed " << seed << ": " << (back.ok() ? "" : back.error->str());
    EXPECT_TRUE(back.program == p) << "seed " << seed;
    ++u.programs;
    bool i16 = false, half = false, wide = false;
    for (const auto& v : p.values) i16 |= v.type.dtype == DType::i16, wide |= is_wide_unsigned(v.type.dtype);
    for_each_node(p.body, [&](const Node& n) {
      const OpSpec* s = find_op(n.op);
      if (!s) return;
      if (s->torch2_only) u.torch2_ops.insert(n.op);
      for (int in : node_inputs(n))
        if (is_wide_unsigned(p.type(in).dtype)) u.wide_unsigned_ops.insert(n.op);
      // The type rules check the first operand's dtype (a bf16 exponent of pow is fine).
      for (int in : node_inputs(n)) {
        if (in != node_inputs(n).front()) break;
        DType t = p.type(in).dtype;
        bool h = !s->half_ok && t == DType::f16;  // (some of these ops have bf16 kernels in 1.13)
        if (h && target == Target::torch113)
          ADD_FAILURE() << "seed " << seed << ": " << n.op << " reads " << dtype_name(t);
        half |= h;
      }
    });
    u.i16 += i16;
    u.wide_unsigned += wide;
    u.half_where_113_lacks += half;
  }
  return u;
}

TEST(Target, TorchOneThirteenProgramsKeepToWhatItRuns) {
  Uses u = generate(Target::torch113, 1500);
  EXPECT_EQ(u.i16, 0);
  EXPECT_EQ(u.wide_unsigned, 0);
  EXPECT_EQ(u.half_where_113_lacks, 0);
  EXPECT_TRUE(u.torch2_ops.empty());
  // Their text is as before targets existed: no target field.
  EXPECT_EQ(print_program(generate_program(GenPolicy(), 7)).find("target="), std::string::npos);
}

TEST(Target, TorchTwoProgramsUseWhatOneThirteenLacks) {
  Uses u = generate(Target::torch2, 1500);
  std::cout << "torch2: i16 in " << u.i16 << ", half where 1.13 lacks it in " << u.half_where_113_lacks << " of "
            << u.programs << "\n";
  std::cout << "torch2: uint16/32/64 in " << u.wide_unsigned << " programs, read by " << u.wide_unsigned_ops.size()
            << " ops\n";
  EXPECT_GT(u.i16, 30);
  EXPECT_GT(u.wide_unsigned, 30);
  EXPECT_GT(u.wide_unsigned_ops.size(), 15u);
  EXPECT_EQ(u.wide_unsigned_ops.count("add"), 0u);  // no add kernel for them
  EXPECT_GT(u.half_where_113_lacks, 30);
  EXPECT_EQ(u.torch2_ops, (std::set<std::string>{"rms_norm", "scaled_dot_product_attention", "flex_attention",
                                                 "view_dtype", "_foreach_lerp", "grad_hook"}));
}

TEST(Target, HeaderFieldRoundTripsAndIsChecked) {
  GenPolicy policy;
  policy.target = Target::torch2;
  Program p = generate_program(policy, 3);
  std::string text = print_program(p);
  EXPECT_NE(text.find(" target=torch2"), std::string::npos);
  EXPECT_NE(policy.hash(), GenPolicy().hash());

  ParseResult bad = parse_program("dlfuzz 1 seed=0 mode=infer target=torch3\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error->line, 1);
  EXPECT_NE(bad.error->message.find("unknown target 'torch3'"), std::string::npos) << bad.error->message;
}

TEST(Target, TorchTwoOpsAreRefusedInOneThirteenPrograms) {
  const std::string body =
      "input %x0 : f32[2,3,4] range(-1,1)\n"
      "%1 : f32[2,3,4] = rms_norm %x0, normalized_shape=[4]\n"
      "return %1\n";
  ParseResult old = parse_program("dlfuzz 1 seed=0 mode=infer\n" + body);
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.error->message.find("rms_norm needs target=torch2"), std::string::npos) << old.error->message;
  ParseResult ok = parse_program("dlfuzz 1 seed=0 mode=infer target=torch2\n" + body);
  ASSERT_TRUE(ok.ok()) << ok.error->str();
  EXPECT_NE(emit_python(ok.program).find("torch.nn.functional.rms_norm(x0, normalized_shape=[4])"), std::string::npos)
      << emit_python(ok.program);
}

// A repro loads libtorch as dlfuzz's worker does, before its first `import torch`:
// on an install whose Inductor links another libtorch first, a plain process runs
// other (scalar) kernels than the campaign did.
TEST(Target, ReproLoadsTorchGlobalBeforeImportingIt) {
  ParseResult p = parse_program(
      "dlfuzz 1 seed=0 mode=infer target=torch2\n"
      "input %x0 : f32[3] range(-1,1)\n"
      "%1 : f32[3] = relu %x0\n"
      "return %1\n");
  ASSERT_TRUE(p.ok()) << p.error->str();
  std::string repro = emit_python(p.program);
  size_t global = repro.find("os.environ.setdefault(\"TORCH_USE_RTLD_GLOBAL\", \"1\")");
  ASSERT_NE(global, std::string::npos) << repro;
  EXPECT_LT(global, repro.find("\nimport torch")) << repro;
}

// uint16/32/64 as PyTorch 2.x has them: kernels in a few ops, promotion only
// with themselves and floats, sums in int64, nothing of it in 1.13 programs.
TEST(Target, WideUnsignedTypeRulesFollowPyTorch) {
  const std::string head =
      "dlfuzz 1 seed=0 mode=infer target=torch2\n"
      "input %a : u16[3] range(0,10)\n"
      "input %b : u16[3] range(0,10)\n"
      "input %i : i64[3] range(0,10)\n"
      "input %f : f32[3] range(0,10)\n";
  auto error_of = [&](const std::string& body, const std::string& h) {
    ParseResult r = parse_program(h + body + "return %1\n");
    return r.ok() ? std::string() : r.error->message;
  };
  EXPECT_EQ(error_of("%1 : u16[3] = mul %a, %b\n", head), "");
  EXPECT_EQ(error_of("%1 : u16[3] = mul %a, 2\n", head), "");
  EXPECT_EQ(error_of("%1 : f32[3] = mul %a, %f\n", head), "");
  EXPECT_EQ(error_of("%1 : i64[] = sum %a\n", head), "");
  EXPECT_EQ(error_of("%1 : f32[3] = div %a, %b\n", head), "");
  EXPECT_NE(error_of("%1 : u16[3] = mul %a, %i\n", head).find("does not promote"), std::string::npos);
  EXPECT_NE(error_of("%1 : u16[3] = add %a, %b\n", head).find("add"), std::string::npos);
  EXPECT_NE(error_of("%1 : f32[3] = div %a, %b, rounding_mode=\"floor\"\n", head).find("rounding mode"),
            std::string::npos);
  std::string old = head;
  old.replace(old.find(" target=torch2"), 14, "");
  EXPECT_NE(error_of("%1 : u16[3] = mul %a, %b\n", old).find("need target=torch2"), std::string::npos)
      << error_of("%1 : u16[3] = mul %a, %b\n", old);
}

TEST(Target, AttentionTypeRule) {
  const std::string head =
      "dlfuzz 1 seed=0 mode=infer target=torch2\n"
      "input %q : f32[2,3,4,8] range(-1,1)\n"
      "input %k : f32[2,3,5,8] range(-1,1)\n"
      "input %v : f32[2,3,5,6] range(-1,1)\n"
      "input %m : bool[4,5] range(0,2)\n";
  ParseResult ok = parse_program(head +
                                 "%1 : f32[2,3,4,6] = scaled_dot_product_attention %q, %k, %v, attn_mask=%m\n"
                                 "return %1\n");
  ASSERT_TRUE(ok.ok()) << ok.error->str();
  ParseResult both = parse_program(
      head + "%1 : f32[2,3,4,6] = scaled_dot_product_attention %q, %k, %v, attn_mask=%m, is_causal=true\nreturn %1\n");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error->message.find("is_causal"), std::string::npos) << both.error->message;
  ParseResult wrong = parse_program(head + "%1 : f32[2,3,4,6] = scaled_dot_product_attention %q, %v, %k\nreturn %1\n");
  EXPECT_FALSE(wrong.ok());
}

}  // namespace
}  // namespace dlfuzz
