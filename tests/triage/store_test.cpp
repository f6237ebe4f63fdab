// The SQLite bug store: dedup by signature, durability under SIGKILL, and
// clear refusals of corrupt or newer databases that leave them untouched.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "triage/report.h"
#include "triage/store.h"

namespace dlfuzz {

namespace {
namespace fs = std::filesystem;

std::string temp_db(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_store_test";
  fs::create_directories(dir);
  std::string p = (dir / name).string();
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p + suffix);
  return p;
}

Finding finding(const std::string& test_runner, const std::string& error) {
  Finding f;
  f.oracle = "status";
  f.ref_runner = "eager";
  f.test_runner = test_runner;
  f.stage = "run";
  f.error_text = normalize_error(error);
  f.detail = error;
  return f;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST(Store, DeduplicatesBySignature) {
  std::string path = temp_db("dedup.db");
  Store s(path);
  int64_t c = s.begin_campaign("{}", "torch test");
  std::string prog = s.add_program("dlfuzz 1 seed=1\n", 1, 3);
  EXPECT_EQ(s.add_program("dlfuzz 1 seed=1\n", 1, 3), prog) << "same text, same hash";
  bool fresh = false;
  int64_t a = s.add_finding(c, prog, finding("ts-nnc", "size 3 does not match 4"), "v", &fresh);
  EXPECT_TRUE(fresh);
  int64_t b = s.add_finding(c, prog, finding("ts-nnc", "size 7 does not match 9"), "v", &fresh);
  EXPECT_FALSE(fresh);
  EXPECT_EQ(a, b) << "numbers are normalized away";
  int64_t other = s.add_finding(c, prog, finding("frozen", "size 3 does not match 4"), "v", &fresh);
  EXPECT_NE(a, other) << "another runner is another bug";
  auto bugs = s.bugs();
  ASSERT_EQ(bugs.size(), 2u);
  EXPECT_EQ(bugs[0].hits, 2);
  EXPECT_EQ(s.count("findings"), 3);
}

TEST(Store, SigkillLosesNothingCommitted) {
  std::string path = temp_db("kill.db");
  { Store s(path); }
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipefd[0]);
    Store s(path);
    int64_t c = s.begin_campaign("{}", "v");
    for (int i = 0;; ++i) {
      std::string prog = s.add_program("program " + std::to_string(i), i, 1);
      s.add_finding(c, prog, finding("r" + std::to_string(i % 7), "error " + std::to_string(i)), "v");
      char byte = 1;
      if (write(pipefd[1], &byte, 1) != 1) _exit(1);  // reported only after the commit
    }
  }
  close(pipefd[1]);
  int reported = 0;
  char buf[64];
  while (reported < 50) {
    ssize_t k = read(pipefd[0], buf, sizeof buf);
    ASSERT_GT(k, 0);
    reported += static_cast<int>(k);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  close(pipefd[0]);
  Store reopened(path);
  EXPECT_GE(reopened.count("findings"), reported);
  EXPECT_EQ(reopened.bugs().size(), 7u);
  auto check = reopened.db().prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
}

TEST(Store, CorruptFileIsRefusedAndLeftAlone) {
  std::string path = temp_db("corrupt.db");
  std::ofstream(path) << std::string(8192, 'x');
  std::string before = slurp(path);
  try {
    Store s(path);
    FAIL() << "opened a corrupt file";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(path), before);
}

TEST(Store, NewerSchemaIsRefused) {
  std::string path = temp_db("newer.db");
  {
    Store s(path);
    s.db().exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  }
  try {
    Store s(path);
    FAIL() << "opened a newer schema";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
  }
}

}  // namespace dlfuzz

#include "triage/merge.h"

namespace dlfuzz {

TEST(Store, OldSchemaIsMigratedKeepingItsData) {
  std::string path = temp_db("migrate.db");
  {
    Store s(path);
    int64_t c = s.begin_campaign("{}", "v");
    s.add_finding(c, s.add_program("p\n", 1, 1), finding("ts", "boom"), "v");
    // Turn it back into a version-1 store, as an older dlfuzz wrote it.
    s.db().exec(
        "ALTER TABLE bugs DROP COLUMN split_from; ALTER TABLE findings DROP COLUMN reduced_program;"
        "ALTER TABLE findings DROP COLUMN reduced_ops;"
        "ALTER TABLE bugs DROP COLUMN compiler_pass;"
        "ALTER TABLE findings DROP COLUMN first_op; ALTER TABLE findings DROP COLUMN first_op_detail;"
        "ALTER TABLE throughput DROP COLUMN campaign_rss_kb; ALTER TABLE throughput DROP COLUMN workers_rss_kb;"
        "ALTER TABLE throughput DROP COLUMN workers; ALTER TABLE throughput DROP COLUMN open_fds;"
        "ALTER TABLE throughput DROP COLUMN store_bytes;"
        "ALTER TABLE findings DROP COLUMN layer; ALTER TABLE findings DROP COLUMN ablation;"
        "ALTER TABLE bugs DROP COLUMN layer;"
        "ALTER TABLE findings DROP COLUMN evidence; DROP TABLE bug_envs; ALTER TABLE bugs DROP COLUMN duplicate_of;"
        "ALTER TABLE bugs DROP COLUMN reduced_ops; DROP TABLE rejections;"
        "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  }
  Store s(path);
  auto st = s.db().prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.column_text(0), std::to_string(kSchemaVersion));
  ASSERT_EQ(s.bugs().size(), 1u);
  EXPECT_EQ(s.bugs()[0].hits, 1);
  EXPECT_EQ(s.bugs()[0].reduced_ops, "");
  EXPECT_EQ(s.count("findings"), 1);
  EXPECT_TRUE(s.env_checks(s.bugs()[0].id).empty()) << "bug_envs (v3) exists and is empty";
  EXPECT_TRUE(s.bug_evidence(s.bugs()[0].id).is_null()) << "findings.evidence (v4) exists and is empty";
  EXPECT_EQ(s.bugs()[0].layer, "") << "bugs.layer (v5) exists and is empty";
  EXPECT_TRUE(s.bug_ablation(s.bugs()[0].id).is_null()) << "findings.ablation (v5) exists and is empty";
  EXPECT_EQ(s.bugs()[0].compiler_pass, "") << "bugs.compiler_pass (v8) exists and is empty";
  s.record_compiler_pass(s.bugs()[0].id, "inductor / lowerings #1 (var_mean)");
  EXPECT_EQ(s.bugs()[0].compiler_pass, "inductor / lowerings #1 (var_mean)");
  EXPECT_EQ(s.bugs()[0].split_from, 0) << "bugs.split_from (v9) exists and is empty";
  EXPECT_TRUE(s.rejections().empty()) << "rejections (v10) exists and is empty";
}

// Programs the eager reference rejects: one row per reference and reason,
// the first program kept as the example, the later ones only counted.
TEST(Store, RejectionsFoldByReferenceAndReasonKeepingTheFirstProgram) {
  Store s(temp_db("rejections.db"));
  int64_t a = s.add_rejection("py-eager", normalize_error("shape [2, 3] is invalid"), "first\n", 1, 4);
  int64_t b = s.add_rejection("py-eager", normalize_error("shape [5, 7] is invalid"), "second\n", 2, 4);
  int64_t other = s.add_rejection("eager", normalize_error("shape [5, 7] is invalid"), "third\n", 3, 4);
  EXPECT_EQ(a, b) << "numbers are normalized away";
  EXPECT_NE(a, other) << "another reference is another reason";
  auto rows = s.rejections();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, a) << "most hits first";
  EXPECT_EQ(rows[0].hits, 2);
  EXPECT_EQ(rows[0].reference, "py-eager");
  EXPECT_EQ(rows[0].example, "first\n");
  EXPECT_EQ(s.count("programs"), 2) << "the second program of a reason is not stored";
}

TEST(Store, LayerAndAblationReachTheBugItsReportAndItsKey) {
  std::string path = temp_db("layer.db");
  Store s(path);
  int64_t c = s.begin_campaign("{}", "v");
  Finding f = finding("inductor", "BackendCompilerFailed: backend='inductor' raised: required rank 4 tensor");
  f.ref_runner = "py-eager";
  f.stage = "compile";
  std::string unattributed = f.signature();
  f.layer = "AOTAutograd decompositions";
  f.ablation = nlohmann::json::array();
  for (auto [rung, verdict] :
       {std::pair{"eager", "pass"}, {"aot_eager", "pass"}, {"decomp", "fail"}, {"inductor", "fail"}})
    f.ablation.push_back({{"rung", rung}, {"runner", "x"}, {"verdict", verdict}});
  EXPECT_EQ(f.signature(), unattributed) << "the reducer compares signatures of unattributed candidates";
  std::string prog = s.add_program("p\n", 1, 1);
  int64_t bug = s.add_finding(c, prog, f, "v");
  EXPECT_EQ(s.add_finding(c, prog, f, "v"), bug) << "the same finding at the same layer: the same bug";
  Finding lower = f;  // the same error first seen at another layer: another bug
  lower.layer = "Dynamo";
  EXPECT_NE(s.add_finding(c, prog, lower, "v"), bug);
  ASSERT_EQ(s.bugs().size(), 2u);
  EXPECT_EQ(base_signature(s.bugs()[0].signature), unattributed);
  EXPECT_EQ(s.bugs()[0].layer, "AOTAutograd decompositions");
  EXPECT_EQ(s.bug_ablation(bug), f.ablation);
  auto d = load_bug(s, bug);
  ASSERT_TRUE(d);
  std::string md = markdown_report(*d, path);
  EXPECT_NE(md.find("- layer: AOTAutograd decompositions\n"), std::string::npos) << md;
  // Escaped for Markdown (triage/escape.h): renders as aot_eager.
  EXPECT_NE(md.find("| eager | aot\\_eager | decomp | inductor |\n| --- | --- | --- | --- |\n"
                    "| pass | pass | fail | fail |\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(export_json(s)["bugs"][0]["layer"], "AOTAutograd decompositions");
  EXPECT_EQ(ablation_markdown(nullptr), "") << "no ladder ran: no table";
  nlohmann::json knob = nlohmann::json::array(
      {{{"rung", "inductor"}, {"runner", "inductor"}, {"verdict", "pass"}},
       {{"rung", "inductor-knob-1"}, {"runner", "inductor-knob-1"}, {"verdict", "fail"}, {"config", "cpp.simdlen=0"}}});
  EXPECT_NE(ablation_markdown(knob).find("| inductor | inductor-knob-1 (cpp.simdlen=0) |"), std::string::npos)
      << "a rung that drew a config names it";
}

TEST(Store, PerformanceFindingKeepsItsKindAndEvidence) {
  std::string path = temp_db("perf.db");
  Store s(path);
  int64_t c = s.begin_campaign("{}", "v");
  Finding f;
  f.oracle = "performance";
  f.kind = FindingKind::performance;
  f.ref_runner = "py-eager";
  f.test_runner = "inductor";
  f.stage = "slower";
  f.error_text = "hot: fused add mul";
  f.detail = "inductor 1.50x the time of py-eager per call";
  f.evidence = {{"first", {{"ratio", 1.5}}}, {"test_profile", {{"ops", {{"cpp_fused_add_mul_0", 0.2, 1}}}}}};
  int64_t bug = s.add_finding(c, s.add_program("p\n", 1, 1), f, "v");
  ASSERT_EQ(s.bugs().size(), 1u);
  EXPECT_EQ(s.bugs()[0].kind, "performance");
  EXPECT_EQ(s.bugs()[0].signature, "performance|py-eager|inductor|slower|hot: fused add mul");
  nlohmann::json e = s.bug_evidence(bug);
  ASSERT_TRUE(e.is_object());
  EXPECT_DOUBLE_EQ(e["first"]["ratio"].get<double>(), 1.5);
  // A second finding of the bug: the latest evidence is read.
  f.evidence["first"]["ratio"] = 1.6;
  s.add_finding(c, s.add_program("p\n", 1, 1), f, "v");
  EXPECT_DOUBLE_EQ(s.bug_evidence(bug)["first"]["ratio"].get<double>(), 1.6);
}

TEST(Store, ReducedOpSetRefinesTheSignatureAndMarksDuplicatesWithinARunnerFamily) {
  std::string path = temp_db("reduced.db");
  Store s(path);
  int64_t c = s.begin_campaign("{}", "v");
  std::string prog = s.add_program("p\n", 1, 1), small = s.add_program("small\n", 1, 1);
  int64_t ts = s.add_finding(c, prog, finding("ts", "modified by an inplace operation"), "v");
  int64_t nnc = s.add_finding(c, prog, finding("ts-nnc", "modified by an inplace operation"), "v");
  int64_t legacy = s.add_finding(c, prog, finding("ts-legacy", "modified by an inplace operation"), "v");
  int64_t frozen = s.add_finding(c, prog, finding("frozen", "modified by an inplace operation"), "v");
  EXPECT_EQ(s.record_reduction(ts, small, "mul,relu_+train"), 0);
  EXPECT_EQ(s.record_reduction(nnc, small, "mul,relu_+train"), ts) << "same bug through another TorchScript executor";
  EXPECT_EQ(s.record_reduction(legacy, small, "add,sigmoid_+train"), 0) << "another op set is another bug";
  EXPECT_EQ(s.record_reduction(frozen, small, "mul,relu_+train"), 0) << "another runner family";
  for (const auto& b : s.bugs()) {
    EXPECT_EQ(b.status, "reduced");
    if (b.id == nnc) {
      EXPECT_EQ(b.full_signature(), b.signature + "|ops=mul,relu_+train");
    }
  }
}

TEST(Merge, OverlappingShardsFoldIntoOneWithTheRightCounts) {
  std::string a = temp_db("shard_a.db"), b = temp_db("shard_b.db"), all = temp_db("merged.db");
  {
    Store s(a);
    int64_t c = s.begin_campaign("{}", "v");
    std::string p = s.add_program("prog shared", 1, 2);
    s.add_finding(c, p, finding("ts-nnc", "boom 1"), "v");                             // bug X
    s.add_finding(c, p, finding("ts-nnc", "boom 2"), "v");                             // bug X again
    s.add_finding(c, s.add_program("prog a", 2, 2), finding("frozen", "crash"), "v");  // bug Y
    s.add_rejection("py-eager", "no such op", "prog rejected a", 4, 2);
    s.add_rejection("py-eager", "no such op", "prog rejected a2", 5, 2);
  }
  {
    Store s(b);
    int64_t c = s.begin_campaign("{}", "v");
    std::string p = s.add_program("prog shared", 1, 2);
    s.add_finding(c, p, finding("ts-nnc", "boom 3"), "v");                              // bug X
    s.add_finding(c, s.add_program("prog b", 3, 2), finding("static", "assert"), "v");  // bug Z
    s.add_rejection("py-eager", "no such op", "prog rejected b", 6, 2);
  }
  Store merged(all);
  MergeStats m1 = merge_store(merged, a);
  MergeStats m2 = merge_store(merged, b);
  EXPECT_EQ(m1.new_bugs, 2);
  EXPECT_EQ(m2.new_bugs, 1);
  EXPECT_EQ(m2.merged_bugs, 1);
  EXPECT_EQ(m1.rejections, 1) << "one reason, its two hits one row";
  EXPECT_EQ(merged.count("campaigns"), 2);
  EXPECT_EQ(merged.count("programs"), 5) << "the shared program is stored once";
  auto rejections = merged.rejections();
  ASSERT_EQ(rejections.size(), 1u);
  EXPECT_EQ(rejections[0].hits, 3);
  EXPECT_EQ(rejections[0].example, "prog rejected a") << "the first shard's example is kept";
  EXPECT_EQ(merged.count("findings"), 5);
  auto bugs = merged.bugs();
  ASSERT_EQ(bugs.size(), 3u);
  EXPECT_EQ(bugs[0].hits, 3) << "bug X: 2 hits in shard a + 1 in shard b";
  auto orphans = merged.db().prepare("SELECT count(*) FROM findings WHERE bug_id NOT IN (SELECT id FROM bugs)");
  ASSERT_TRUE(orphans.step());
  EXPECT_EQ(orphans.column_int(0), 0);
}

}  // namespace dlfuzz

namespace dlfuzz {

TEST(Store, EnvChecksKeepTheLatestVerdictPerEnvironment) {
  Store s(temp_db("envs.db"));
  int64_t c = s.begin_campaign("{}", "v");
  int64_t bug = s.add_finding(c, s.add_program("p\n", 1, 1), finding("ts", "boom"), "v");
  EXPECT_EQ(affects_line(s.env_checks(bug)), "");
  s.record_env_check(bug, "build", "torch 1.13.0 (debian)", true);
  s.record_env_check(bug, "build-pip", "torch 2.15.0 (pip)", true);
  s.record_env_check(bug, "build-pip", "torch 2.15.0 (pip)", false);  // rechecked: fixed there
  auto checks = s.env_checks(bug);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(affects_line(checks), "affects: build (torch 1.13.0 (debian)) / not in: build-pip (torch 2.15.0 (pip))");
}

}  // namespace dlfuzz
