// Splitting a bug whose findings reduce to different op sets
// (triage/bug_split.h): the findings of each other op set move to a bug of
// their own, named after the bug it came from; a merge keeps that link.
#include <gtest/gtest.h>

#include <filesystem>

#include "triage/bug_split.h"
#include "triage/merge.h"
#include "triage/report.h"
#include "triage/store.h"

namespace dlfuzz {

namespace {
namespace fs = std::filesystem;

std::string temp_db(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_bug_split_test";
  fs::create_directories(dir);
  std::string p = (dir / name).string();
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p + suffix);
  return p;
}

Finding numeric(const std::string& first_op) {
  Finding f;
  f.oracle = "numeric";
  f.ref_runner = "eager";
  f.test_runner = "static";
  f.stage = "output";
  f.layer = "Static Runtime out variants";
  f.first_op = first_op;
  return f;
}

struct Filled {
  int64_t bug;
  std::vector<int64_t> findings;  // one per program, in order
};

// One bug, four findings over four programs (the first is the example).
Filled fill(Store& s) {
  int64_t c = s.begin_campaign("{}", "v");
  Filled out{};
  for (int i = 0; i < 4; ++i) {
    std::string prog = s.add_program("dlfuzz 1 seed=" + std::to_string(i) + "\n", i, 10);
    out.bug = s.add_finding(c, prog, numeric("abs"), "v");
    out.findings.push_back(s.db().last_insert_id());
  }
  return out;
}

int64_t bug_of(Store& s, int64_t finding) {
  auto st = s.db().prepare("SELECT bug_id FROM findings WHERE id = ?");
  st.bind(1, finding);
  EXPECT_TRUE(st.step());
  return st.column_int(0);
}

BugRow row(Store& s, int64_t id) {
  for (const auto& b : s.bugs())
    if (b.id == id) return b;
  ADD_FAILURE() << "no bug " << id;
  return {};
}
}  // namespace

TEST(BugSplit, FindingsToReduceStartWithTheExampleAndSkipReducedOnes) {
  Store s(temp_db("pick.db"));
  Filled f = fill(s);
  EXPECT_EQ(example_finding(s, f.bug), f.findings[0]);
  EXPECT_EQ(findings_to_reduce(s, f.bug, 2), (std::vector<int64_t>{f.findings[0], f.findings[1]}));
  record_finding_reduction(s, f.findings[0], s.add_program("r0\n", 0, 2), "abs,div_");
  EXPECT_EQ(findings_to_reduce(s, f.bug, 5), (std::vector<int64_t>{f.findings[1], f.findings[2], f.findings[3]}));
}

TEST(BugSplit, FindingsOfAnotherOpSetMoveToABugOfTheirOwn) {
  Store s(temp_db("split.db"));
  Filled f = fill(s);
  std::string r0 = s.add_program("r0\n", 0, 2), r2 = s.add_program("r2\n", 2, 1);
  s.record_reduction(f.bug, r0, "abs,div_");
  record_finding_reduction(s, f.findings[0], r0, "abs,div_");
  record_finding_reduction(s, f.findings[1], s.add_program("r1\n", 1, 2), "abs,div_");
  record_finding_reduction(s, f.findings[2], r2, "layer_norm");
  record_finding_reduction(s, f.findings[3], s.add_program("r3\n", 3, 1), "layer_norm");

  std::vector<int64_t> made = split_by_reduced_ops(s, f.bug);
  ASSERT_EQ(made.size(), 1u);
  int64_t split = made[0];
  EXPECT_EQ(bug_of(s, f.findings[0]), f.bug);
  EXPECT_EQ(bug_of(s, f.findings[1]), f.bug);
  EXPECT_EQ(bug_of(s, f.findings[2]), split);
  EXPECT_EQ(bug_of(s, f.findings[3]), split);

  BugRow from = row(s, f.bug), to = row(s, split);
  EXPECT_EQ(from.hits, 2);
  EXPECT_EQ(to.hits, 2);
  EXPECT_EQ(to.split_from, f.bug);
  EXPECT_EQ(to.reduced_ops, "layer_norm");
  EXPECT_EQ(to.signature, from.signature + "|ops=layer_norm");
  EXPECT_EQ(base_signature(to.signature), base_signature(from.signature)) << "a new finding of either compares alike";
  EXPECT_EQ(to.layer, from.layer);
  EXPECT_EQ(to.example_program, s.add_program("dlfuzz 1 seed=2\n", 2, 10));

  EXPECT_TRUE(split_by_reduced_ops(s, f.bug).empty()) << "nothing left to split";
  EXPECT_EQ(to.full_signature(), to.signature) << "the op set is in its signature once";
  auto d = load_bug(s, split);
  ASSERT_TRUE(d);
  std::string md = markdown_report(*d, "split.db");
  EXPECT_NE(md.find("split from bug " + std::to_string(f.bug)), std::string::npos) << md;
  EXPECT_NE(md.find("- layer: Static Runtime out variants"), std::string::npos) << md;
}

TEST(BugSplit, OpSetsThatShareAnOpAreOneBug) {
  EXPECT_EQ(ops_of("abs,div_+train"), (std::vector<std::string>{"abs", "div_"}));
  EXPECT_EQ(ops_of("none"), (std::vector<std::string>{"none"}));
  using Groups = std::vector<std::vector<std::string>>;
  EXPECT_EQ(linked_op_sets({"frac,silu", "frac,hardtanh", "layer_norm"}),
            (Groups{{"frac,silu", "frac,hardtanh"}, {"layer_norm"}}));
  EXPECT_EQ(linked_op_sets({"a,b", "c", "b,c+train", "d"}), (Groups{{"a,b", "c", "b,c+train"}, {"d"}}))
      << "linked through a third set";

  Store s(temp_db("linked.db"));
  Filled f = fill(s);
  record_finding_reduction(s, f.findings[0], s.add_program("r0\n", 0, 2), "frac,silu");
  record_finding_reduction(s, f.findings[1], s.add_program("r1\n", 1, 2), "frac,hardtanh");
  EXPECT_TRUE(split_by_reduced_ops(s, f.bug).empty()) << "NNC's frac bug with two companions is one bug";
  EXPECT_EQ(bug_of(s, f.findings[1]), f.bug);
}

TEST(BugSplit, NothingToSplitWithoutTheBugsOwnOpSet) {
  Store s(temp_db("unreduced.db"));
  Filled f = fill(s);
  record_finding_reduction(s, f.findings[2], s.add_program("r2\n", 2, 1), "layer_norm");
  EXPECT_TRUE(split_by_reduced_ops(s, f.bug).empty()) << "the example is not reduced: no op set to keep";
  record_finding_reduction(s, f.findings[0], s.add_program("r0\n", 0, 2), "abs,div_");
  EXPECT_EQ(split_by_reduced_ops(s, f.bug).size(), 1u) << "the example finding's op set is the bug's";
}

TEST(BugSplit, AMergeKeepsWhereASplitBugCameFrom) {
  std::string shard = temp_db("shard.db");
  {
    Store s(shard);
    Filled f = fill(s);
    record_finding_reduction(s, f.findings[0], s.add_program("r0\n", 0, 2), "abs,div_");
    record_finding_reduction(s, f.findings[1], s.add_program("r1\n", 1, 1), "layer_norm");
    ASSERT_EQ(split_by_reduced_ops(s, f.bug).size(), 1u);
  }
  Store merged(temp_db("merged.db"));
  merge_store(merged, shard);
  std::map<std::string, BugRow> by_sig;
  for (const auto& b : merged.bugs()) by_sig[b.signature] = b;
  ASSERT_EQ(by_sig.size(), 2u);
  int64_t from_id = 0;
  for (const auto& [sig, b] : by_sig)
    if (b.split_from == 0) from_id = b.id;
  int splits = 0;
  for (const auto& [sig, b] : by_sig) {
    if (b.split_from == 0) continue;
    EXPECT_EQ(b.split_from, from_id) << sig;
    ++splits;
  }
  EXPECT_EQ(splits, 1);
  auto st = merged.db().prepare("SELECT count(*) FROM findings WHERE reduced_ops IS NOT NULL");
  st.step();
  EXPECT_EQ(st.column_int(0), 2) << "the findings' own reductions travel too";
}

}  // namespace dlfuzz
