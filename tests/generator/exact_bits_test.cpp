// Ops that read their float operands' bits (OpSpec::reads_bits: argmax,
// argsort, logical ops, view(dtype)) are generated only of values every
// backend computes to the same bits: else float rounding, which is no bug,
// becomes an exact difference the numeric oracle reports (a 30-minute
// campaign stored two such: view(dtype) of a param after Adam's steps, and
// logical_xor of group_norm's near-zero outputs).
#include <gtest/gtest.h>

#include <set>

#include "tests/generator/new_ops.h"

#include "generator/choices.h"
#include "generator/dlf.h"
#include "generator/gen_context.h"
#include "generator/generator.h"
#include "generator/mutators/mutators.h"
#include "generator/op_spec.h"
#include "generator/verify.h"

namespace dlfuzz {
namespace {

// The first top-level node of p that reads bits of a float the generator
// does not hold exact where it reads it (its own GenContext over the
// finished program), or "".
std::string inexact_bit_read(Program p) {
  SeededChoices c(0);
  GenPolicy policy;
  GenContext g(p, c, policy);
  g.adopt();
  if (g.inexact_bit_reads().empty()) return "";
  const Node& n = p.body.nodes[g.inexact_bit_reads()[0]];
  return n.op + " -> %" + p.values[n.outputs[0]].name;
}

// Values that depend on a param through any chain of nodes: in a training
// program those change with every optimizer step. A checkpoint's outputs
// are its body's yields (an output may depend on none of its params).
void derive(const Block& b, std::set<int>& from) {
  for (const Node& n : b.nodes) {
    if (n.op == "checkpoint") {
      const auto& args = std::get<ValueList>(n.arg("inputs")->value).ids;
      const Block& body = n.blocks[0];
      for (size_t k = 0; k < args.size(); ++k)
        if (from.count(args[k])) from.insert(body.params[k]);
      derive(body, from);
      for (size_t k = 0; k < n.outputs.size(); ++k)
        if (from.count(body.yields[k])) from.insert(n.outputs[k]);
      continue;
    }
    for (int v : node_inputs(n))
      if (from.count(v)) from.insert(n.outputs.begin(), n.outputs.end());
    for (const Block& inner : n.blocks) derive(inner, from);
  }
}

std::set<int> param_derived(const Program& p) {
  std::set<int> from;
  for (const auto& in : p.inputs)
    if (in.kind == InputKind::param) from.insert(in.value);
  derive(p.body, from);
  return from;
}

TEST(ExactBits, GeneratedProgramsReadBitsOnlyOfExactValues) {
  int reads = 0, training_reads = 0;
  for (Target target : {Target::torch113, Target::torch2}) {
    GenPolicy policy = test::data_ops_policy(target);
    policy.family_weights["compare"] = 8;
    for (uint64_t seed = 0; seed < 800; ++seed) {
      Program p = generate_program(policy, seed);
      ASSERT_EQ(inexact_bit_read(p), "") << "seed " << seed << "\n" << print_program(p);
      std::set<int> from_param = p.is_training() ? param_derived(p) : std::set<int>{};
      for (const Node& n : p.body.nodes) {
        const OpSpec* s = find_op(n.op);
        if (!s || !s->reads_bits) continue;
        ++reads;
        training_reads += p.is_training();
        for (int v : node_inputs(n))
          EXPECT_FALSE(is_float(p.type(v).dtype) && from_param.count(v))
              << "seed " << seed << ": " << n.op << " reads a param's bits after the optimizer's steps";
      }
    }
  }
  EXPECT_GE(reads, 400) << "ops that read bits are rarely generated";
  EXPECT_GE(training_reads, 50) << "training programs keep them of data";
}

// clamp of a NaN gives eager's NaN or Inductor's (sign and payload differ),
// which view(dtype) would read (a 20-minute campaign stored one): a comparing
// op of a special-valued input is not exact; of numbers, or a sign-only op
// like abs, it still is.
TEST(ExactBits, ACompareOfAValueThatMayBeNaNIsNotExact) {
  auto read_of = [](const std::string& init, const std::string& op) {
    ParseResult r = parse_program(
        "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
        "input %x0 : f32[2,4] " + init + "(-2.0,2.0)\n"
        "%1 : f32[2,4] = " + op + "\n"
        "%2 : f16[2,8] = view_dtype %1, dtype=f16\n"
        "return %2\n",
        "nan.dlf");
    EXPECT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
    return inexact_bit_read(r.program);
  };
  EXPECT_EQ(read_of("special", "clamp %x0, min=-4.0, max=4.0"), "view_dtype -> %2");
  EXPECT_EQ(read_of("special", "relu %x0"), "view_dtype -> %2");
  EXPECT_EQ(read_of("range", "clamp %x0, min=-4.0, max=4.0"), "");
  EXPECT_EQ(read_of("special", "abs %x0"), "");
  EXPECT_EQ(read_of("special", "flip %x0, dims=[0]"), "");
}

// The training mutator turns an inference program into a training one only
// where no op reads bits the steps would change.
TEST(ExactBits, TrainingMutatorRefusesWhereAnOpReadsAParamsBits) {
  auto program = [](const std::string& op) {
    Program p;
    p.target = Target::torch2;
    InputDecl x, w;
    x.value = p.add_value("x0", {DType::f32, {2, 3}});
    w.value = p.add_value("w0", {DType::f32, {2, 3}});
    w.kind = InputKind::param;
    p.inputs = {x, w};
    int sum = p.add_value("1", {DType::f32, {2, 3}});
    p.body.nodes.push_back(Node{"add", {{"self", ValueRef{0}}, {"other", ValueRef{1}}}, {sum}, {}});
    int read = p.add_value("2", {op == "view_dtype" ? DType::i32 : DType::b8, {2, 3}});
    std::vector<Arg> args = {{"self", ValueRef{1}}};
    if (op == "view_dtype") args.push_back({"dtype", DType::i32});
    else args.push_back({"other", ValueRef{0}});
    p.body.nodes.push_back(Node{op, args, {read}, {}});
    p.body.yields = {sum, read};
    return p;
  };
  GenPolicy policy;
  policy.target = Target::torch2;
  for (const char* op : {"view_dtype", "logical_xor"}) {
    Program p = program(op);
    ASSERT_EQ(verify(p), "") << op;
    Program before = p;
    SeededChoices c(1);
    EXPECT_FALSE(add_training_step(p, c, policy)) << op;
    EXPECT_TRUE(p == before) << op << ": a refused program is left as it was";
  }
  // The same op of data (an input no step changes) is kept.
  int made = 0;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Program p = program("logical_xor");
    std::get<ValueRef>(p.body.nodes[1].args[0].value).id = 0;
    SeededChoices c(seed);
    if (!add_training_step(p, c, policy)) continue;
    ++made;
    EXPECT_EQ(verify(p), "") << "seed " << seed;
    EXPECT_TRUE(p.is_training());
  }
  EXPECT_GT(made, 40);
}

}  // namespace
}  // namespace dlfuzz
