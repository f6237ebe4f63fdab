// Control flow as higher-order ops (generator/hop.h): the hop=true mark in
// .dlf text, torch.cond and scan in the Python spelling (plain control flow in
// TorchScript), what verify() refuses inside a branch or body, and how often
// the generator draws it over many seeds.
#include <gtest/gtest.h>

#include <string>

#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/generator.h"
#include "generator/hop.h"
#include "generator/op_spec.h"
#include "generator/verify.h"
#include "tests/parse_program.h"

namespace dlfuzz {
namespace {

const std::string kHead =
    "dlfuzz 1 seed=1 policy=0000000000000000 mode=infer device=cpu world=1 plan=none target=torch2\n"
    "input %x : f32[2,3] range(-1.0,1.0)\n"
    "input %w : f32[2,3] range(-1.0,1.0)\n"
    "%s : f32[] = sum %x\n"
    "%c : bool[] = gt %s, 0.0\n";

// A branch that closes over %w and one that yields it unchanged (cloned when
// spelled as torch.cond); a scan whose body reads %w.
const std::string kCond =
    "%1 : f32[2,3] = if cond=%c, hop=true {\n"
    "  %2 : f32[2,3] = mul %x, %w\n"
    "  yield %2\n"
    "} else {\n"
    "  yield %w\n"
    "}\n";
const std::string kScan =
    "%3 : f32[2,3] = loop n=3, carry=[%1], hop=true (%k : f32[2,3]) {\n"
    "  %4 : f32[2,3] = tanh %k\n"
    "  %5 : f32[2,3] = add %4, %w\n"
    "  yield %5\n"
    "}\n"
    "return %3\n";

TEST(Hop, ParsesPrintsAndVerifies) {
  Program p = test::parse(kHead + kCond + kScan);
  EXPECT_EQ(verify(p), "");
  EXPECT_EQ(print_program(p), kHead + kCond + kScan);
  EXPECT_TRUE(is_hop(p.body.nodes[2]));
  EXPECT_TRUE(is_hop(p.body.nodes[3]));
}

TEST(Hop, PythonSpellsCondAndScanTorchScriptPlainControlFlow) {
  Program p = test::parse(kHead + kCond + kScan);
  std::string py = emit_function(p, "f", false, false);
  EXPECT_NE(py.find("def _true_v1():"), std::string::npos) << py;
  EXPECT_NE(py.find("return (_dlfuzz_dense(w.clone()),)"), std::string::npos) << py;  // a closure is not returned as is
  EXPECT_NE(py.find("return (_dlfuzz_dense(v2),)"), std::string::npos) << py;
  EXPECT_NE(py.find("_v1 = torch.cond(c, _true_v1, _false_v1, ())"), std::string::npos) << py;
  EXPECT_NE(py.find("def _body_v3(_carry, _x):\n        (k,) = _carry"), std::string::npos) << py;
  EXPECT_NE(py.find("return (_dlfuzz_dense(v5),), ()"), std::string::npos) << py;
  EXPECT_NE(py.find("_v3 = torch._higher_order_ops.scan(_body_v3, (_dlfuzz_dense(v1),), None, length=3)"),
            std::string::npos)
      << py;
  EXPECT_NE(py.find("v3 = _v3[0][0]"), std::string::npos) << py;
  std::string ts = emit_torchscript(p);
  EXPECT_EQ(ts.find("torch.cond"), std::string::npos) << ts;
  EXPECT_EQ(ts.find("scan"), std::string::npos) << ts;
  EXPECT_NE(ts.find("if bool(c):"), std::string::npos) << ts;
  EXPECT_NE(ts.find("for _ in range(3):"), std::string::npos) << ts;
}

// A loop with while=true: torch._higher_order_ops.while_loop with the trip
// count carried as an int64 counter in front of the carry.
TEST(Hop, AWhileLoopIsSpelledWithACounterCarried) {
  std::string text = kHead + kCond + kScan;
  text.replace(text.find("hop=true (%k"), 8, "hop=true, while=true");
  Program p = test::parse(text);
  EXPECT_EQ(verify(p), "");
  EXPECT_EQ(print_program(p), text);
  EXPECT_TRUE(is_while_loop(p.body.nodes[3]));
  EXPECT_FALSE(is_while_loop(p.body.nodes[2]));
  std::string py = emit_function(p, "f", false, false);
  EXPECT_NE(py.find("def _cond_v3(_i, k):\n        return _i < 3"), std::string::npos) << py;
  EXPECT_NE(py.find("def _body_v3(_i, k):"), std::string::npos) << py;
  EXPECT_NE(py.find("return (_i + 1, _dlfuzz_dense(v5))"), std::string::npos) << py;
  EXPECT_NE(py.find("_v3 = torch._higher_order_ops.while_loop(_cond_v3, _body_v3, "
                    "(torch.zeros((), dtype=torch.int64), _dlfuzz_dense(v1)))"),
            std::string::npos)
      << py;
  EXPECT_NE(py.find("v3 = _v3[1]"), std::string::npos) << py;
  EXPECT_EQ(py.find("scan"), std::string::npos) << py;
  EXPECT_NE(emit_torchscript(p).find("for _ in range(3):"), std::string::npos);
  // Only on a loop that is a higher-order op, and only as a bool.
  std::string plain = text;
  plain.replace(plain.find("hop=true, while"), 10, "");
  EXPECT_NE(test::parse_error(plain).find("hop=true"), std::string::npos) << test::parse_error(plain);
  std::string not_bool = text;
  not_bool.replace(not_bool.find("while=true"), 10, "while=2");
  EXPECT_NE(test::parse_error(not_bool).find("true or false"), std::string::npos) << test::parse_error(not_bool);
  std::string on_if = kHead + kCond + kScan;
  on_if.replace(on_if.find("cond=%c, hop=true"), 17, "cond=%c, hop=true, while=true");
  EXPECT_NE(test::parse_error(on_if).find("no argument 'while'"), std::string::npos) << test::parse_error(on_if);
}

TEST(Hop, VerifyRefusesWhatTheOpsRefuse) {
  auto with_body = [](const std::string& op_line) {
    return kHead + "%1 : f32[2,3] = if cond=%c, hop=true {\n" + op_line +
           "  yield %2\n} else {\n  yield %w\n}\nreturn %1\n";
  };
  EXPECT_EQ(test::parse_error(with_body("  %2 : f32[2,3] = mul %x, %w\n")), "");
  // A write to what the branch closes over.
  EXPECT_NE(test::parse_error(with_body("  %2 : f32[2,3] = mul_ %x, 2.0\n")).find("in-place"), std::string::npos);
  // .item() breaks the graph inside the branch.
  EXPECT_NE(test::parse_error(with_body("  %2 : f32[2,3] = mul %x, %s.item()\n")).find("item"), std::string::npos);
  // A random draw.
  EXPECT_NE(test::parse_error(with_body("  %2 : f32[2,3] = dropout %x, 0.5, true\n")).find("may not run"),
            std::string::npos);
  // A scan of zero trips (torch.compile needs one), or a mark that is not a bool.
  std::string zero = kHead + kCond + kScan;
  zero.replace(zero.find("n=3"), 3, "n=0");
  EXPECT_NE(test::parse_error(zero).find("one trip"), std::string::npos) << test::parse_error(zero);
  // Nor one of an empty carry (scan compares strides a zero-size tensor does not fix).
  std::string empty = kHead + kCond + kScan;
  for (auto at = empty.find("f32[2,3]"); at != std::string::npos; at = empty.find("f32[2,3]"))
    empty.replace(at, 8, "f32[0,3]");
  EXPECT_NE(test::parse_error(empty).find("empty"), std::string::npos) << test::parse_error(empty);
  std::string not_bool = kHead + kCond + kScan;
  not_bool.replace(not_bool.find("hop=true"), 8, "hop=1");
  EXPECT_NE(test::parse_error(not_bool).find("true or false"), std::string::npos) << test::parse_error(not_bool);
  // Nor in a program for LibTorch 1.13.
  std::string old = kHead + kCond + kScan;
  old.replace(old.find(" target=torch2"), 14, "");
  EXPECT_NE(test::parse_error(old).find("torch2"), std::string::npos) << test::parse_error(old);
  // if and loop take no other argument.
  std::string other = kHead + kCond + kScan;
  other.replace(other.find("hop=true"), 8, "fast=true");
  EXPECT_NE(test::parse_error(other).find("no argument 'fast'"), std::string::npos) << test::parse_error(other);
}

// A loop with region=true: its body a module-level function under
// torch.compiler.nested_compile_region taking the carry and what the body
// closes over, called per trip; plain control flow in TorchScript.
const std::string kRegion =
    "%3 : f32[2,3] = loop n=3, carry=[%x], region=true (%k : f32[2,3]) {\n"
    "  %4 : f32[2,3] = tanh %k\n"
    "  %5 : f32[2,3] = add %4, %w\n"
    "  %6 : f32[] = sum %w\n"
    "  %7 : f32[2,3] = mul %5, %6\n"
    "  yield %7\n"
    "}\n"
    "return %3\n";

TEST(Hop, ARegionLoopCallsItsBodyAsANestedCompileRegion) {
  Program p = test::parse(kHead + kRegion);
  EXPECT_EQ(verify(p), "");
  EXPECT_EQ(print_program(p), kHead + kRegion);
  EXPECT_TRUE(is_region(p.body.nodes[2]));
  EXPECT_FALSE(is_hop(p.body.nodes[2]));
  std::vector<int> free = free_values(p.body.nodes[2].blocks[0]);
  ASSERT_EQ(free.size(), 1u);
  EXPECT_EQ(p.values.at(free[0]).name, "w");
  std::string py = emit_function(p, "f", false, false);
  // Defined before the function, at module level, where Dynamo allows the decorator.
  EXPECT_EQ(py.find("@torch.compiler.nested_compile_region\ndef _region_v3(k, w):\n    v4 = torch.tanh(k)"), 0) << py;
  EXPECT_LT(py.find("    return (v7,)\n"), py.find("def f(")) << py;
  EXPECT_NE(py.find("    k = x\n    for _ in range(3):\n        (k,) = _region_v3(k, w)\n    v3 = k\n"),
            std::string::npos)
      << py;
  std::string ts = emit_torchscript(p);
  EXPECT_EQ(ts.find("region"), std::string::npos) << ts;
  EXPECT_NE(ts.find("for _ in range(3):"), std::string::npos) << ts;
  // A yield the body does not compute is cloned (higher-order ops refuse an output aliasing an input).
  std::string alias = kHead + kRegion;
  alias.replace(alias.find("yield %7"), 8, "yield %k");
  EXPECT_NE(emit_function(test::parse(alias), "f", false, false).find("return (k.clone(),)"), std::string::npos);
  // Not with hop=true, not of zero trips, not over what a region refuses, not for LibTorch 1.13.
  std::string both = kHead + kRegion;
  both.replace(both.find("region=true"), 11, "region=true, hop=true");
  EXPECT_NE(test::parse_error(both).find("cannot also"), std::string::npos) << test::parse_error(both);
  std::string zero = kHead + kRegion;
  zero.replace(zero.find("n=3"), 3, "n=0");
  EXPECT_NE(test::parse_error(zero).find("one trip"), std::string::npos) << test::parse_error(zero);
  std::string item = kHead + kRegion;
  item.replace(item.find("mul %5, %6"), 10, "mul %5, %6.item()");
  EXPECT_NE(test::parse_error(item).find("item"), std::string::npos) << test::parse_error(item);
  std::string old = kHead + kRegion;
  old.replace(old.find(" target=torch2"), 14, "");
  EXPECT_NE(test::parse_error(old).find("torch2"), std::string::npos) << test::parse_error(old);
  std::string on_if = kHead + kCond + "return %1\n";
  on_if.replace(on_if.find("hop=true"), 8, "region=true");
  EXPECT_NE(test::parse_error(on_if).find("no argument 'region'"), std::string::npos) << test::parse_error(on_if);
}

TEST(Hop, GeneratedOverManySeeds) {
  GenPolicy policy;
  policy.target = Target::torch2;
  policy.p_control_flow = 1;
  int conds = 0, scans = 0, whiles = 0, plain = 0, regions = 0, training = 0;
  for (int seed = 0; seed < 1000; ++seed) {
    policy.p_training = seed % 2 ? 1 : 0;
    Program p = generate_program(policy, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    ParseResult back = parse_program(print_program(p));
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << (back.ok() ? "" : back.error->str());
    EXPECT_TRUE(back.program == p) << "seed " << seed;
    for_each_node(p.body, [&](const Node& n) {
      if (n.op != "if" && n.op != "loop") return;
      if (is_region(n)) {
        EXPECT_EQ(region_error(p, n), "") << "seed " << seed;
        ++regions;
        return;
      }
      if (!is_hop(n)) {
        ++plain;
        return;
      }
      EXPECT_EQ(hop_error(p, n), "") << "seed " << seed;
      (n.op == "if" ? conds : is_while_loop(n) ? whiles : scans)++;
      // A scan's body never reads its init (compile refuses that as aliasing).
      if (n.op == "loop")
        for_each_node(n.blocks[0], [&](const Node& m) {
          for (int v : node_inputs(m))
            EXPECT_NE(v, std::get<ValueList>(n.arg("carry")->value).ids.at(0)) << "seed " << seed;
        });
      training += p.is_training();
    });
  }
  // p_hop 0.5 of the programs with control flow, less those whose branch holds .item().
  EXPECT_GT(conds, 150);
  EXPECT_GT(scans, 70);
  EXPECT_GT(whiles, 70);  // p_while_loop 0.5 of the loops
  EXPECT_GT(regions, 70);  // p_region 0.5 of the loops that are not higher-order ops
  EXPECT_GT(plain, 200);
  EXPECT_GT(training, 150);
  // Never inside an activation checkpoint (PyTorch 2.15 compiles none there).
  policy.p_training = 1;
  policy.p_checkpoint = 1;
  int checkpoints = 0;
  for (int seed = 0; seed < 300; ++seed) {
    Program p = generate_program(policy, seed);
    for (const Node& n : p.body.nodes)
      if (n.op == "checkpoint") {
        ++checkpoints;
        for_each_node(n.blocks[0], [&](const Node& m) { EXPECT_FALSE(is_hop(m)) << "seed " << seed; });
      }
  }
  EXPECT_GT(checkpoints, 200);
  // Never for LibTorch 1.13 or over ranks.
  policy.target = Target::torch113;
  for (int seed = 0; seed < 200; ++seed)
    for_each_node(generate_program(policy, seed).body, [&](const Node& n) {
      EXPECT_FALSE(is_hop(n));
      EXPECT_FALSE(is_region(n));
    });
}

}  // namespace
}  // namespace dlfuzz
