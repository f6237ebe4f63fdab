// The factory, index, scan and pad families and floor_divide: type rules
// (checked against torch 1.13 and 2.x), and over many seeds every new op is
// generated, its programs verify and round-trip through .dlf.
#include <gtest/gtest.h>

#include <set>

#include "tests/generator/infer_table.h"
#include "tests/generator/new_ops.h"

#include "generator/dlf.h"
#include "generator/gen_context.h"
#include "generator/generator.h"
#include "generator/summary.h"
#include "generator/verify.h"

namespace dlfuzz {
namespace {

using Case = InferCase;

// Values by id: 0 f32[4,3]  1 i64[2]  2 i64[4,2]  3 bool[4,3]  4 i32[4,3]  5 f32[2,3]
//               6 bool[3]   7 i64[2,3] 8 f32[]
Program fixture() {
  Program p;
  const std::vector<TensorType> ts = {{DType::f32, {4, 3}}, {DType::i64, {2}},    {DType::i64, {4, 2}},
                                      {DType::b8, {4, 3}},  {DType::i32, {4, 3}}, {DType::f32, {2, 3}},
                                      {DType::b8, {3}},     {DType::i64, {2, 3}}, {DType::f32, {}}};
  for (size_t i = 0; i < ts.size(); ++i) p.add_value("v" + std::to_string(i), ts[i]);
  return p;
}

void check(const std::vector<Case>& cases) { check_infer(fixture(), cases); }

TEST(OpsFactory, Infer) {
  check({
      {"zeros_like", {{"self", V(0)}}, "f32[4,3]"},
      {"ones_like", {{"self", V(4)}, {"dtype", DType::f64}}, "f64[4,3]"},
      {"full_like", {{"self", V(0)}, {"fill_value", 2.5}}, "f32[4,3]"},
      {"full_like", {{"self", V(4)}, {"fill_value", 2.5}}, "error"},
      {"new_zeros", {{"self", V(4)}, {"size", IntList{2, 5}}}, "i32[2,5]"},
      {"new_full", {{"self", V(0)}, {"size", IntList{}}, {"fill_value", int64_t(3)}}, "f32[]"},
      {"new_ones", {{"self", V(0)}, {"size", IntList{-1}}}, "error"},
      {"zeros", {{"size", IntList{3, 0}}}, "f32[3,0]"},
      {"full", {{"size", IntList{2}}, {"fill_value", int64_t(1)}}, "i64[2]"},
      {"full", {{"size", IntList{2}}, {"fill_value", NAN}}, "f32[2]"},
      {"full", {{"size", IntList{2}}, {"fill_value", true}}, "bool[2]"},
      {"full", {{"size", IntList{2}}}, "error"},
      {"arange", {{"start", int64_t(0)}, {"end", int64_t(5)}, {"step", int64_t(2)}}, "i64[3]"},
      {"arange", {{"start", 1.0}, {"end", -1.0}, {"step", -0.5}}, "f32[4]"},
      {"arange", {{"start", int64_t(0)}, {"end", int64_t(4)}, {"step", int64_t(1)}, {"dtype", DType::f64}}, "f64[4]"},
      {"arange", {{"start", int64_t(0)}, {"end", int64_t(4)}, {"step", int64_t(-1)}}, "error"},
      {"arange", {{"start", int64_t(0)}, {"end", int64_t(4)}, {"step", int64_t(0)}}, "error"},
      {"empty_like", {{"self", V(4)}}, "i32[4,3]"},
      {"new_empty", {{"self", V(0)}, {"size", IntList{2}}, {"dtype", DType::f64}}, "f64[2]"},
      {"fill_", {{"self", V(4)}, {"value", int64_t(7)}}, "i32[4,3]"},
      {"fill_", {{"self", V(4)}, {"value", 0.5}}, "error"},  // ATen would truncate
      {"copy_", {{"self", V(0)}, {"src", V(5)}}, "error"},    // [2,3] does not broadcast to [4,3]
      {"copy_", {{"self", V(5)}, {"src", V(8)}}, "f32[2,3]"},
      {"copy_", {{"self", V(4)}, {"src", V(0)}}, "error"},  // float into int
  });
}

// An empty_like / new_empty holds garbage: a program must overwrite it (fill_ or
// copy_ as self, in the same block) before anything reads or returns it.
TEST(OpsFactory, EmptyTensorsAreOverwrittenBeforeAnyRead) {
  const std::string head =
      "dlfuzz 1 seed=0 mode=infer\n"
      "input %x : f32[2,3] range(-1,1)\n"
      "%1 : f32[2,3] = empty_like %x\n";
  auto error_of = [&](const std::string& body) {
    ParseResult r = parse_program(head + body);
    return r.ok() ? std::string() : r.error->message;
  };
  EXPECT_EQ(error_of("%2 : f32[2,3] = fill_ %1, 0.5\n%3 : f32[2,3] = sin %1\nreturn %3\n"), "");
  EXPECT_EQ(error_of("%2 : f32[2,3] = copy_ %1, %x\nreturn %1\n"), "");
  EXPECT_NE(error_of("%2 : f32[2,3] = sin %1\nreturn %2\n").find("not yet overwritten"), std::string::npos);
  EXPECT_NE(error_of("return %1\n").find("not yet overwritten"), std::string::npos);
  EXPECT_NE(error_of("%2 : f32[2,3] = copy_ %x, %1\nreturn %2\n").find("not yet overwritten"), std::string::npos);
  // Generated programs keep to it (verify() runs on every one), and make them.
  GenPolicy policy;
  int empties = 0;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    Program p = generate_program(policy, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    for_each_node(p.body, [&](const Node& n) { empties += n.op == "empty_like" || n.op == "new_empty"; });
  }
  EXPECT_GT(empties, 20);
}

TEST(OpsIndex, Infer) {
  check({
      {"index_select", {{"self", V(0)}, {"dim", int64_t(1)}, {"index", V(1)}}, "f32[4,2]"},
      {"index_select", {{"self", V(0)}, {"dim", int64_t(-2)}, {"index", V(1)}}, "f32[2,3]"},
      {"index_select", {{"self", V(0)}, {"dim", int64_t(2)}, {"index", V(1)}}, "error"},
      {"index_select", {{"self", V(0)}, {"dim", int64_t(0)}, {"index", V(2)}}, "error"},
      {"index_select", {{"self", V(0)}, {"dim", int64_t(0)}, {"index", V(4)}}, "error"},
      {"gather", {{"self", V(0)}, {"dim", int64_t(1)}, {"index", V(2)}}, "f32[4,2]"},
      {"gather", {{"self", V(5)}, {"dim", int64_t(1)}, {"index", V(2)}}, "error"},
      {"scatter", {{"self", V(0)}, {"dim", int64_t(1)}, {"index", V(2)}, {"value", 1.5}}, "f32[4,3]"},
      {"scatter", {{"self", V(4)}, {"dim", int64_t(1)}, {"index", V(2)}, {"value", 1.5}}, "error"},
      {"scatter", {{"self", V(0)}, {"dim", int64_t(0)}, {"index", V(7)}, {"src", V(5)}}, "f32[4,3]"},
      {"scatter_add", {{"self", V(0)}, {"dim", int64_t(0)}, {"index", V(7)}, {"src", V(4)}}, "error"},
      {"scatter_reduce",
       {{"self", V(0)}, {"dim", int64_t(0)}, {"index", V(7)}, {"src", V(5)}, {"reduce", std::string("amax")}},
       "f32[4,3]"},
      {"scatter_reduce",
       {{"self", V(0)}, {"dim", int64_t(0)}, {"index", V(7)}, {"src", V(5)}, {"reduce", std::string("max")}},
       "error"},
      {"index_add", {{"self", V(0)}, {"dim", int64_t(0)}, {"index", V(1)}, {"source", V(5)}}, "f32[4,3]"},
      {"index_copy_", {{"self", V(0)}, {"dim", int64_t(1)}, {"index", V(1)}, {"source", V(5)}}, "error"},
      {"index_fill", {{"self", V(4)}, {"dim", int64_t(0)}, {"index", V(1)}, {"value", int64_t(-1)}}, "i32[4,3]"},
      {"masked_fill", {{"self", V(0)}, {"mask", V(6)}, {"value", -INFINITY}}, "f32[4,3]"},
      {"masked_fill", {{"self", V(5)}, {"mask", V(3)}, {"value", 0.0}}, "error"},
      {"masked_fill_", {{"self", V(4)}, {"mask", V(3)}, {"value", 0.5}}, "error"},
      {"index_put", {{"self", V(0)}, {"indices", ValueList{{1}}}, {"values", V(8)}}, "f32[4,3]"},
      {"index_put",
       {{"self", V(0)}, {"indices", ValueList{{1, 1}}}, {"values", V(8)}, {"accumulate", true}},
       "f32[4,3]"},
      {"index_put", {{"self", V(0)}, {"indices", ValueList{{1}}}, {"values", V(5)}}, "f32[4,3]"},
      {"index_put", {{"self", V(0)}, {"indices", ValueList{{1, 1, 1}}}, {"values", V(8)}}, "error"},
      {"index_put", {{"self", V(0)}, {"indices", ValueList{{1}}}, {"values", V(4)}}, "error"},
  });
}

TEST(OpsScanPad, Infer) {
  check({
      {"sort", {{"self", V(0)}}, "f32[4,3]"},
      {"sort", {{"self", V(0)}, {"dim", int64_t(2)}}, "error"},
      {"topk", {{"self", V(0)}, {"k", int64_t(2)}, {"dim", int64_t(0)}}, "f32[2,3]"},
      {"topk", {{"self", V(0)}, {"k", int64_t(4)}}, "error"},
      {"topk", {{"self", V(0)}, {"k", int64_t(1)}, {"sorted", false}}, "error"},
      {"cummax", {{"self", V(4)}, {"dim", int64_t(1)}}, "i32[4,3]"},
      {"cummin", {{"self", V(0)}}, "error"},
      {"cumprod", {{"self", V(4)}, {"dim", int64_t(0)}}, "i64[4,3]"},
      {"pad", {{"self", V(0)}, {"pad", IntList{1, 2}}}, "f32[4,6]"},
      {"pad", {{"self", V(0)}, {"pad", IntList{0, 0, -1, -1}}, {"value", 2.0}}, "f32[2,3]"},
      {"pad", {{"self", V(0)}, {"pad", IntList{-2, -2}}}, "error"},
      {"pad", {{"self", V(4)}, {"pad", IntList{1, 1}}, {"value", 0.5}}, "error"},
      {"pad", {{"self", V(0)}, {"pad", IntList{1}}}, "error"},
      {"tril", {{"self", V(3)}, {"diagonal", int64_t(-1)}}, "bool[4,3]"},
      {"triu", {{"self", V(1)}}, "error"},
      {"floor_divide", {{"self", V(4)}, {"other", int64_t(2)}}, "i32[4,3]"},
      {"floor_divide", {{"self", V(4)}, {"other", 2.0}}, "f32[4,3]"},
  });
}

// Each new op placed many times into small programs (inference and training)
// gives nodes that type-check and verify; in-place forms get a fresh
// intermediate to write.
TEST(OpsIndex, EachNewOpPlacedAloneVerifies) {
  GenPolicy policy;
  for (const auto& name : test::kNewOps) {
    const OpSpec& spec = *find_op(name);
    int ok = 0;
    for (uint64_t seed = 0; seed < 200; ++seed) {
      Program p;
      if (seed % 3 == 0) p.train = TrainStep{};
      SeededChoices c(seed * 7919 + spec.name.size());
      GenContext g(p, c, policy);
      for (int i = 0; i < 3; ++i) {
        DType t = p.is_training() ? g.random_float_dtype() : g.random_dtype();
        g.emit1("clone", {{"self", ValueRef{g.new_input({t, g.random_shape(0, 3)})}}});
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
    EXPECT_GT(ok, 40) << spec.name << " was placed too rarely";
  }
}

TEST(OpsIndex, EveryNewOpIsGeneratedValidAndRoundTrips) {
  GenPolicy policy = test::new_ops_policy();
  std::map<std::string, int> used;
  for (uint64_t seed = 0; seed < 800; ++seed) {
    Program p = generate_program(policy, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    std::string text = print_program(p);
    ParseResult r = parse_program(text, "gen.dlf");
    ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << r.error->str() << "\n" << text;
    ASSERT_TRUE(r.program == p) << "seed " << seed << "\n" << text;
    ASSERT_EQ(print_program(r.program), text) << "seed " << seed;
    for (const auto& [op, n] : summarize(p).ops) used[op] += n;
  }
  for (const auto& op : test::kNewOps) EXPECT_GE(used[op], 5) << op << " is rarely or never generated";
}

// The math and layout ops (special functions, integer ops, nansum, scans,
// unfold, pixel_shuffle, ...) in programs that favour them, training included.
// Every op of `ops` is generated (and trained through where differentiable) in
// valid programs of `policy` that print and parse back to themselves.
void every_op_is_generated_valid_and_round_trips(const GenPolicy& policy, const std::vector<std::string>& ops) {
  std::map<std::string, int> used, trained;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    Program p = generate_program(policy, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    std::string text = print_program(p);
    ParseResult r = parse_program(text, "gen.dlf");
    ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << r.error->str() << "\n" << text;
    ASSERT_TRUE(r.program == p) << "seed " << seed << "\n" << text;
    ASSERT_EQ(print_program(r.program), text) << "seed " << seed;
    for (const auto& [op, n] : summarize(p).ops) (p.is_training() ? trained : used)[op] += n;
  }
  for (const auto& op : ops) {
    EXPECT_GE(used[op], 5) << op << " is rarely or never generated";
    if (find_op(op)->differentiable) EXPECT_GE(trained[op], 2) << op << " is rarely or never trained through";
  }
}

TEST(OpsMath, EveryOpIsGeneratedValidAndRoundTrips) {
  every_op_is_generated_valid_and_round_trips(test::math_ops_policy(), test::kMathOps);
}

TEST(OpsLossNorm, EveryOpIsGeneratedValidAndRoundTrips) {
  every_op_is_generated_valid_and_round_trips(test::loss_norm_ops_policy(), test::kLossNormOps);
}

TEST(OpsSelectSample, EveryOpIsGeneratedValidAndRoundTrips) {
  every_op_is_generated_valid_and_round_trips(test::select_sample_ops_policy(), test::kSelectSampleOps);
}

}  // namespace
}  // namespace dlfuzz
