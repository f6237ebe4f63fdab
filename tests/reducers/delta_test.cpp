// The delta driver: the pass table, the fan-in cut, the drift guard (a
// candidate that shows another bug is rejected), the verdict cache, budgets,
// and reduction of generated programs to a handful of nodes.
#include <set>

#include "generator/generator.h"
#include "generator/verify.h"
#include "reducers/pass.h"
#include "reducers/rewrite.h"
#include "tests/reducers/reduce_test_util.h"

namespace dlfuzz {
using namespace testing;

TEST(ReduceTable, PassesHaveUniqueNamesAndHelp) {
  std::set<std::string> names;
  for (const auto& p : reduce::reducer_passes()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_FALSE(std::string(p.help).empty()) << p.name;
    EXPECT_EQ(reduce::find_reducer_pass(p.name), &p);
    EXPECT_NE(reduce::reducer_passes_help().find(p.name), std::string::npos);
  }
  for (const char* required : {"nodes", "bypass", "outputs", "train", "control-flow", "dims", "dtypes", "input-values",
                               "params", "collectives", "world", "inputize"})
    EXPECT_TRUE(names.count(required)) << required;
  ReduceOptions opt;
  opt.passes = {"no-such-pass"};
  Program p = generate_program(GenPolicy{}, 1);
  EXPECT_THROW(reduce_program(
                   p, [](const Program&) { return true; }, opt),
               std::invalid_argument);
}

TEST(ReduceFanIn, KeepsOnlyTheDivergentOutputsCone) {
  std::string in = kInferHead + R"(input %x : f32[4] range(-2,2)
%1 : f32[4] = sin %x
%2 : f32[4] = cos %x
%3 : f32[4] = mul %2, 2.0
%4 : f32[4] = frac %1
return %3, %4
)";
  ReduceStats stats;
  // No pass at all: the fan-in cut alone does it, in one query after the start.
  ReduceOptions opt;
  opt.passes = {"collectives"};
  Program out = reduce_program(parse_or_die(in), frac_of_negative, opt, &stats);
  EXPECT_EQ(print_program(out), kInferOut + R"(input %x : f32[4] range(-2.0,2.0)
%1 : f32[4] = sin %x
%2 : f32[4] = frac %1
return %2
)");
  EXPECT_LE(stats.queries, 3);
  // The hint names the output to keep.
  opt.keep_outputs = {0};
  out = reduce_program(
      parse_or_die(in), [](const Program& p) { return has_op(p, "cos"); }, opt);
  EXPECT_EQ(out.body.yields.size(), 1u);
  EXPECT_FALSE(has_op(out, "frac"));
}

TEST(ReduceFanIn, KeepsInPlaceWritesToLiveTensors) {
  std::string in = kInferHead + R"(input %x : f32[4,3] range(-2,2)
%1 : f32[4,3] = mul %x, 1.5
%2 : f32[3,4] = transpose %1, dim0=0, dim1=1
%3 : f32[3,4] = add_ %2, 1.0
%4 : f32[4,3] = mul %1, 0.5
%5 : f32[4,3] = neg %x
return %4, %5
)";
  ReduceOptions opt;
  opt.passes = {"collectives"};
  opt.keep_outputs = {0};
  Program out = reduce_program(
      parse_or_die(in), [](const Program& p) { return has_op(p, "add_"); }, opt);
  EXPECT_EQ(out.count_nodes(), 4) << print_program(out);
  EXPECT_FALSE(has_op(out, "neg"));
}

// A synthetic oracle: the program's finding signature. "A" while a frac node
// is present, "B" when only floor is, none otherwise (or with no outputs: no
// divergence to see).
std::string signature(const Program& p) {
  if (p.body.yields.empty()) return "";
  if (has_op(p, "frac")) return "A";
  if (has_op(p, "floor")) return "B";
  return "";
}

TEST(ReduceDriftGuard, RejectsCandidatesThatShowAnotherBug) {
  std::string in = kInferHead + R"(input %x : f32[4] range(-2,2)
%1 : f32[4] = frac %x
%2 : f32[4] = floor %1
%3 : f32[4] = sin %2
return %3
)";
  Program start = parse_or_die(in);
  const std::string original = signature(start);
  ASSERT_EQ(original, "A");
  std::set<std::string> seen;
  auto same_bug = [&](const Program& p) {
    seen.insert(signature(p));
    return signature(p) == original;
  };
  Program out = reduce_program(start, same_bug, ReduceOptions{});
  EXPECT_EQ(signature(out), "A");
  EXPECT_TRUE(seen.count("B")) << "a candidate showed bug B and was rejected";
  // The signature ignores shapes and values, so those shrink too.
  EXPECT_EQ(print_program(out), kInferOut + R"(input %x : f32[] zeros
%1 : f32[] = frac %x
return %1
)");
  // Without the guard ("any bug is fine") the same reduction drifts to B:
  // bypassing frac comes first and leaves floor(%x).
  auto any_bug = [](const Program& p) { return !signature(p).empty(); };
  Program drifted = reduce_program(start, any_bug, ReduceOptions{});
  EXPECT_EQ(signature(drifted), "B") << print_program(drifted);
}

TEST(ReduceCache, NeverTestsTheSameCandidateTwice) {
  int total_hits = 0;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    Program p = generate_program(GenPolicy{}, seed);
    std::string op = p.body.nodes.at(p.body.nodes.size() / 2).op;
    std::set<uint64_t> tested;
    int calls = 0;
    auto test = [&](const Program& c) {
      ++calls;
      EXPECT_TRUE(tested.insert(program_hash(c)).second) << "seed " << seed << " tested twice:\n" << print_program(c);
      return has_op(c, op);
    };
    ReduceStats stats;
    reduce_program(p, test, ReduceOptions{}, &stats);
    EXPECT_EQ(stats.queries, calls);
    total_hits += stats.cache_hits;
  }
  EXPECT_GT(total_hits, 0) << "later rounds meet candidates already judged";
}

TEST(ReduceBudget, StopsAtMaxQueries) {
  Program p = generate_program(GenPolicy{}, 3);
  ReduceOptions opt;
  opt.max_queries = 5;
  ReduceStats stats;
  std::vector<std::string> lines;
  Program out = reduce_program(
      p, [](const Program&) { return true; }, opt, &stats, [&](const std::string& l) { lines.push_back(l); });
  EXPECT_EQ(stats.queries, 5);
  EXPECT_TRUE(stats.budget_exhausted);
  EXPECT_TRUE(verify(out).empty());
  EXPECT_FALSE(lines.empty());
}

TEST(ReduceStart, UninterestingInputIsReturnedUnchanged) {
  Program p = generate_program(GenPolicy{}, 4);
  ReduceStats stats;
  Program out = reduce_program(
      p, [](const Program&) { return false; }, ReduceOptions{}, &stats);
  EXPECT_FALSE(stats.start_interesting);
  EXPECT_EQ(stats.queries, 1);
  EXPECT_EQ(print_program(out), print_program(p));
}

// 50 generated programs, "contains op X" for an op of the program: the result
// verifies, keeps X, and is tiny in most cases. X is picked among the nodes an
// output depends on, and the stricter variant also asks that X still reaches
// an output (as a divergence in that output would).
TEST(ReduceGenerated, ContainsOpReducesToAFewNodes) {
  for (bool must_reach_output : {false, true}) {
    int small = 0, total = 0;
    for (uint64_t seed = 100; seed < 150; ++seed) {
      Program p = generate_program(GenPolicy{}, seed);
      Program live = p;
      reduce::remove_dead_nodes(live);
      std::string op;
      for (size_t i = live.body.nodes.size() / 2; i < live.body.nodes.size() && op.empty(); ++i)
        if (!is_structural(live.body.nodes[i].op)) op = live.body.nodes[i].op;
      if (op.empty()) continue;
      ++total;
      auto test = [&](const Program& c) {
        if (!must_reach_output) return has_op(c, op);
        Program d = c;
        reduce::remove_dead_nodes(d);
        return has_op(d, op);
      };
      Program out = reduce_program(p, test, ReduceOptions{});
      EXPECT_EQ(verify(out), "") << "seed " << seed;
      EXPECT_TRUE(test(out)) << "seed " << seed;
      small += out.count_nodes() <= 5;
      if (out.count_nodes() > 5) std::cout << "seed " << seed << " op " << op << ":\n" << print_program(out);
    }
    EXPECT_GE(total, 45);
    EXPECT_GE(small, total * 9 / 10) << small << " of " << total << " reduced to at most 5 nodes";
  }
}

}  // namespace dlfuzz
