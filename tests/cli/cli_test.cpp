// The dlfuzz binary end to end: exit codes and messages for bad input, and a
// campaign killed with SIGKILL that loses nothing it committed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "runners/runner.h"
#include "tests/cli/shell_outcome.h"
#include "triage/store.h"

namespace dlfuzz {

namespace {
namespace fs = std::filesystem;

using test::Outcome;
using test::shell;

// Runs `dlfuzz ARGS`.
Outcome dlfuzz(const std::string& args) { return shell(std::string(DLFUZZ_BINARY) + " " + args); }

std::string temp_path(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_cli_test";
  fs::create_directories(dir);
  std::string p = (dir / name).string();
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p + suffix);
  return p;
}

std::string write(const std::string& name, const std::string& text) {
  std::string p = temp_path(name);
  std::ofstream(p) << text;
  return p;
}

const std::string kHead = "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n";
}  // namespace

TEST(Cli, MalformedProgramsExitTwoWithLineAndColumn) {
  struct Case {
    const char* name;
    std::string text;
    const char* expect;
  } cases[] = {
      {"truncated.dlf", kHead + "input %x : f32[2,3] range(-1.0,1.0)\n%1 : f32[2,3] = relu %x\n",
       "truncated.dlf:4:1: missing 'return'"},
      {"unknown_op.dlf", kHead + "input %x : f32[2] range(-1.0,1.0)\n%1 : f32[2] = frob %x\nreturn %1\n",
       "unknown_op.dlf:3:15: unknown op 'frob'"},
      {"type_error.dlf", kHead + "input %x : f32[2] range(-1.0,1.0)\n%1 : i64[2] = relu %x\nreturn %1\n",
       "type_error.dlf:3:1:"},
      {"bad_shape.dlf",
       kHead +
           "input %x : f32[2] range(-1.0,1.0)\ninput %y : f32[3] range(-1.0,1.0)\n%1 : f32[2] = add %x, %y\nreturn %1\n",
       "do not broadcast"},
  };
  for (const auto& c : cases) {
    std::string path = write(c.name, c.text);
    for (const char* cmd : {"run", "emit", "inspect"}) {
      Outcome o = dlfuzz(std::string(cmd) + " " + path);
      EXPECT_EQ(o.code, 2) << cmd << " " << c.name << ": " << o.out;
      EXPECT_NE(o.out.find(c.expect), std::string::npos) << cmd << " " << c.name << ": " << o.out;
    }
  }
  Outcome missing = dlfuzz("run /nonexistent/x.dlf");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.out.find("cannot open file"), std::string::npos) << missing.out;
}

TEST(Cli, UnknownRunnerExitsTwo) {
  std::string path = temp_path("ok.dlf");
  ASSERT_EQ(dlfuzz("gen --seed 5 -o " + path).code, 0);
  Outcome o = dlfuzz("run " + path + " --runners no-such-runner");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find("unknown runner 'no-such-runner'"), std::string::npos) << o.out;
  EXPECT_EQ(dlfuzz("fuzz --programs 1 --runners nope --db " + temp_path("x.db")).code, 2);
  EXPECT_EQ(dlfuzz("fuzz --time 10parsecs --db " + temp_path("x.db")).code, 2);
}

// The runner table end to end: `dlfuzz runners --json` lists every row, and
// one `dlfuzz run` runs the same program under two Python interpreters (the
// project's .venv and Debian's python3 with torch 1.13), each compared with the
// eager of its own install: one worker per environment.
TEST(Cli, RunnersTableAndTwoPythonInterpretersInOneRun) {
  Outcome list = dlfuzz("runners --json");
  ASSERT_EQ(list.code, 0) << list.out;
  auto table = nlohmann::json::parse(list.out);
  std::set<std::string> names;
  for (const auto& r : table["runners"]) names.insert(r["name"].get<std::string>());
  for (const char* n : {"eager", "ts-nnc", "frozen", "inductor", "aoti", "fault-dist-deadlock"})
    EXPECT_TRUE(names.count(n)) << n;
  if (!fs::exists("/usr/bin/python3") || !fs::exists(std::string(DLFUZZ_SOURCE_DIR) + "/.venv/bin/python"))
    GTEST_SKIP() << "needs .venv and Debian's python3-torch (scripts/setup.sh installs both)";
  std::string path = temp_path("two_pythons.dlf");
  ASSERT_EQ(dlfuzz("gen --seed 5 -o " + path).code, 0);
  Outcome o = dlfuzz("run " + path + " --runners py-eager,py-eager@system --json");
  ASSERT_EQ(o.code, 0) << o.out;
  auto j = nlohmann::json::parse(o.out);
  std::map<std::string, std::string> versions;
  for (const auto& r : j["results"]) {
    EXPECT_EQ(r["status"], "ok") << r.dump();
    versions[r["runner"].get<std::string>()] = r["versions"].get<std::string>();
  }
  for (const char* n : {"py-eager", "py-eager64", "py-eager@system", "py-eager64@system"})
    ASSERT_TRUE(versions.count(n)) << n << " (its reference is from its own install): " << o.out;
  EXPECT_NE(versions["py-eager"], versions["py-eager@system"]);
  EXPECT_NE(versions["py-eager@system"].find("torch 1.13"), std::string::npos) << versions["py-eager@system"];
}

// The version oracle end to end: a planted regression (a Python fault runner
// right on torch 1.13, wrong on PyTorch 2.x) is caught between Debian's python3
// and .venv; the same install named twice gives nothing; `triage retest --env`
// records which versions a stored bug affects, and show/report print it.
TEST(Cli, VersionOracleCatchesAPlantedRegressionAndRetestRecordsVersions) {
  if (!fs::exists("/usr/bin/python3") || !fs::exists(std::string(DLFUZZ_SOURCE_DIR) + "/.venv/bin/python"))
    GTEST_SKIP() << "needs .venv and Debian's python3-torch (scripts/setup.sh installs both)";
  std::string path = temp_path("regression.dlf");
  ASSERT_EQ(dlfuzz("gen --seed 5 -o " + path).code, 0);
  Outcome o = dlfuzz("run " + path + " --runners fault-py-regression --envs system,venv");
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find("FINDING [version] fault-py-regression@venv vs fault-py-regression@system: regression"),
            std::string::npos)
      << o.out;
  Outcome same = dlfuzz("run " + path + " --runners py-eager,fault-py-regression --envs system,/usr/bin/python3");
  EXPECT_EQ(same.code, 0) << "an identical pair gives nothing: " << same.out;
  Outcome bad = dlfuzz("run " + path + " --runners ts --envs nowhere");
  EXPECT_EQ(bad.code, 2) << bad.out;
  Outcome bad_fuzz = dlfuzz("fuzz --programs 1 --runners ts --envs nowhere --db " + temp_path("x.db"));
  EXPECT_EQ(bad_fuzz.code, 2) << bad_fuzz.out;
  EXPECT_NE(bad_fuzz.out.find("'nowhere' is not an environment"), std::string::npos) << bad_fuzz.out;

  std::string db = temp_path("versions.db");
  Outcome fuzz = dlfuzz("fuzz --programs 2 --runners fault-py-regression --no-progress --no-recheck --db " + db);
  ASSERT_EQ(fuzz.code, 1) << fuzz.out;
  Outcome retest = dlfuzz("triage retest --env system,venv --db " + db);
  ASSERT_EQ(retest.code, 0) << retest.out;
  EXPECT_NE(retest.out.find("affects: venv (torch 2."), std::string::npos) << retest.out;
  EXPECT_NE(retest.out.find("not in: system (torch 1.13"), std::string::npos) << retest.out;
  Outcome show = dlfuzz("triage show 1 --db " + db);
  EXPECT_NE(show.out.find("affects: venv"), std::string::npos) << show.out;
  Outcome report = dlfuzz("triage report 1 --db " + db);
  EXPECT_NE(report.out.find("- affects: venv"), std::string::npos) << report.out;
}

// --sampled RUNNER:N[,RUNNER:N]: each runner also runs, alone, on one
// PyTorch 2.x program in its N, and its findings are stored with the lane's.
// (The default campaign samples fake-crossref and inductor-freezing; the
// planted Python fault makes a finding of every program it runs on.)
TEST(Cli, ASampledRunnerRunsOnOneProgramInN) {
  if (!fs::exists(std::string(DLFUZZ_SOURCE_DIR) + "/.venv/bin/python")) GTEST_SKIP() << "needs .venv";
  std::string db = temp_path("sampled.db");
  Outcome o = dlfuzz(
      "fuzz --programs 4 --batch 1 --runners aot-eager --sampled fault-py-regression:2,py-eager:4 --no-progress "
      "--no-recheck --db " +
      db);
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find("fault-py-regression on 2 of them (one in 2, the ones it takes)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("py-eager on 1 of them (one in 4, the ones it takes)"), std::string::npos) << o.out;
  EXPECT_NE(dlfuzz("triage list --db " + db).out.find("fault-py-regression vs py-eager"), std::string::npos);
  for (const char* bad : {"bogus:2", "fault-py-regression:0", "fault-py-regression", "py-eager:4,bogus:2"}) {
    Outcome b = dlfuzz(std::string("fuzz --programs 1 --runners aot-eager --sampled ") + bad + " --db " + db);
    EXPECT_EQ(b.code, 2) << bad << ": " << b.out;
  }
}

// --target torch2 with the C++ runners of Debian's LibTorch 1.13: their lane
// keeps torch1.13 programs, so view(dtype) (torch2 only) never reaches
// TorchScript 1.13, whose compile of it fails with an empty first line.
TEST(Cli, Torch2TargetLeavesLibTorch113RunnersTheirPrograms) {
  if (torch_version_string().rfind("torch 1.", 0) != 0) GTEST_SKIP() << "a LibTorch 2.x build runs torch2 programs";
  std::string db = temp_path("target.db");
  Outcome o = dlfuzz("fuzz --programs 20 --runners ts --target torch2 --ops view_dtype --no-progress --db " + db);
  EXPECT_EQ(o.out.find("ts vs eager at compile"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("20 programs"), std::string::npos) << o.out;
}

TEST(Cli, CorruptDatabaseIsRefusedAndUntouched) {
  std::string db = write("corrupt.db", std::string(4096, 'z'));
  Outcome o = dlfuzz("fuzz --programs 1 --runners ts --no-progress --db " + db);
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find(db), std::string::npos) << o.out;
  std::ifstream in(db);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), std::string(4096, 'z'));
}

TEST(Cli, RunReplaysAFindingWithExitOne) {
  std::string path = temp_path("replay.dlf");
  ASSERT_EQ(dlfuzz("gen --seed 5 -o " + path).code, 0);
  Outcome ok = dlfuzz("run " + path + " --runners ts");
  EXPECT_EQ(ok.code, 0) << ok.out;
  Outcome bad = dlfuzz("run " + path + " --runners fault-wrong-value");
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_NE(bad.out.find("FINDING [numeric] fault-wrong-value vs eager"), std::string::npos) << bad.out;
}

TEST(Cli, SigkilledCampaignLosesNothingCommittedAndLeavesNoWorker) {
  std::string db = temp_path("killed.db");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setpgid(0, 0);
    execl(DLFUZZ_BINARY, DLFUZZ_BINARY, "fuzz", "--programs", "1000000", "--runners", "fault-wrong-value,fault-segv",
          "--no-progress", "--no-recheck", "--db", db.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the campaign has committed some findings, reading as another process would.
  int64_t seen = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (seen < 10 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!fs::exists(db)) continue;
    try {
      Database reader(db, false);
      auto st = reader.prepare("SELECT count(*) FROM findings");
      if (st.step()) seen = st.column_int(0);
    } catch (const std::exception&) {
    }
  }
  // Its worker processes, to check they die with it. fault-segv kills a worker on every program, so at one instant
  // there may be none while the next is forked: ask again until one is there.
  std::vector<pid_t> workers;
  auto worker_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (workers.empty() && std::chrono::steady_clock::now() < worker_deadline) {
    FILE* f = popen(("pgrep -P " + std::to_string(pid)).c_str(), "r");
    int w;
    while (fscanf(f, "%d", &w) == 1) workers.push_back(w);
    pclose(f);
    if (workers.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_GE(seen, 10) << "the campaign committed no findings in time";
  Store reopened(db);
  EXPECT_GE(reopened.count("findings"), seen);
  auto check = reopened.db().prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
  EXPECT_FALSE(workers.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (pid_t wp : workers) {
    std::ifstream stat("/proc/" + std::to_string(wp) + "/stat");
    std::string line;
    std::getline(stat, line);
    bool alive = !line.empty() && line.find(") Z") == std::string::npos;
    EXPECT_FALSE(alive) << "worker " << wp << " outlived the campaign: " << line;
  }
}

}  // namespace dlfuzz

namespace dlfuzz {

TEST(CliReduce, ShrinksToTheSameSignatureAndReplays) {
  std::string prog = temp_path("big.dlf");
  // A 20+ node program with a float output.
  for (int seed = 1; seed < 200; ++seed) {
    ASSERT_EQ(dlfuzz("gen --seed " + std::to_string(seed) + " -o " + prog).code, 0);
    Outcome ins = dlfuzz("inspect " + prog + " --json");
    int n = std::atoi(ins.out.substr(ins.out.find("\"nodes\":") + 8).c_str());
    if (ins.out.find("\"training\":false") != std::string::npos && n >= 20) break;
  }
  std::string out = temp_path("big.reduced.dlf");
  Outcome r = dlfuzz("reduce " + prog + " --runners fault-wrong-value -o " + out + " --max-time 60");
  ASSERT_EQ(r.code, 0) << r.out;
  Outcome ins = dlfuzz("inspect " + out + " --json");
  EXPECT_NE(ins.out.find("\"nodes\":"), std::string::npos);
  int nodes = std::atoi(ins.out.substr(ins.out.find("\"nodes\":") + 8).c_str());
  EXPECT_LE(nodes, 3) << ins.out;
  // Replay: the reduced program still shows the finding.
  Outcome replay = dlfuzz("run " + out + " --runners fault-wrong-value");
  EXPECT_EQ(replay.code, 1) << replay.out;
  EXPECT_TRUE(fs::exists(out.substr(0, out.size() - 4) + ".py")) << "the Python repro beside the .dlf";
  EXPECT_TRUE(fs::exists(out.substr(0, out.size() - 4) + ".md")) << "the Markdown summary";
}

// A finding over ranks names the one-process reference (eager@1) and, for an
// error, the rank ("rank 0: ..."); at world 1 the same bug names neither. The
// reducer counts both as the same bug, so the world pass takes the ranks away.
TEST(CliReduce, FindingOverRanksReducesToOneRank) {
  std::string prog = temp_path("dp.dlf");
  for (int seed = 0; seed < 200; ++seed) {
    ASSERT_EQ(dlfuzz("gen --world 2 --seed " + std::to_string(seed) + " -o " + prog).code, 0);
    if (shell("head -1 " + prog).out.find("plan=dp") != std::string::npos) break;
  }
  ASSERT_NE(shell("head -1 " + prog).out.find("world=2 plan=dp"), std::string::npos);
  EXPECT_NE(dlfuzz("run " + prog + " --runners fault-wrong-value").out.find("vs eager@1"), std::string::npos);
  std::string out = temp_path("dp.reduced.dlf");
  Outcome r = dlfuzz("reduce " + prog + " --runners fault-wrong-value -o " + out + " --max-time 60");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(shell("head -1 " + out).out.find("world=1 plan=none"), std::string::npos) << shell("cat " + out).out;
}

// A stored bug that no longer shows: the reducer says what it looked for and
// what the original program showed instead (another finding, a timeout).
TEST(CliReduce, AFindingThatDoesNotReproduceSaysWhatTheOriginalShowed) {
  std::string db = temp_path("gone.db");
  fs::remove(db);
  ASSERT_EQ(dlfuzz("fuzz --programs 1 --runners fault-wrong-value --no-progress --db " + db).code, 1);
  {
    Store store(db);
    store.db().exec("UPDATE bugs SET signature = 'numeric|eager|fault-wrong-value|grad|NaN position'");
  }
  Outcome r = dlfuzz("reduce bug:1 --db " + db + " --max-time 20 -o " + temp_path("gone.reduced.dlf"));
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("did not reproduce"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("looking for: numeric|eager|fault-wrong-value|grad|NaN position"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the original showed:\n  finding: numeric|eager|fault-wrong-value|output"), std::string::npos)
      << r.out;
}

TEST(CliReduce, UserTestCommandAndBadPass) {
  std::string prog = write("frac.dlf", kHead +
                                           "input %x : f32[4] range(-2.0,2.0)\n"
                                           "%1 : f32[4] = sin %x\n%2 : f32[4] = frac %1\n%3 : f32[4] = exp %2\n"
                                           "%4 : f32[4] = add %3, %1\nreturn %4\n");
  std::string out = temp_path("frac.reduced.dlf");
  Outcome r = dlfuzz("reduce " + prog + " --test 'grep -q \"= frac\"' -o " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("= frac"), std::string::npos) << ss.str();
  EXPECT_EQ(ss.str().find("= exp"), std::string::npos) << ss.str();
  EXPECT_EQ(dlfuzz("reduce " + prog + " --passes nosuchpass").code, 2);
}

}  // namespace dlfuzz

namespace dlfuzz {

TEST(CliTriage, ListShowReportExportMergeRetest) {
  std::string db = temp_path("triage.db"), merged = temp_path("triage_merged.db");
  Outcome f = dlfuzz("fuzz --programs 3 --runners fault-wrong-value --no-progress --reduce 30 --db " + db);
  ASSERT_EQ(f.code, 1) << f.out;
  EXPECT_NE(f.out.find("reduce bug 1: " + db + ".reduced/bug1.dlf"), std::string::npos) << f.out;
  EXPECT_NE(dlfuzz("triage list --status reduced --db " + db).out.find("fault-wrong-value"), std::string::npos);
  Outcome l = dlfuzz("triage list --db " + db);
  EXPECT_EQ(l.code, 0);
  EXPECT_NE(l.out.find("numeric: fault-wrong-value vs eager"), std::string::npos) << l.out;
  Outcome r = dlfuzz("triage report 1 --db " + db);
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* part : {"## Environment", "torch 1.13", "## Expected vs actual", "## Minimal repro", "def program(",
                           "dlfuzz run bug.dlf --runners fault-wrong-value"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  Outcome e = dlfuzz("triage export --json --db " + db);
  EXPECT_EQ(e.code, 0);
  auto j = nlohmann::json::parse(e.out);
  EXPECT_EQ(j["bugs"].size(), 1u);
  int findings = j["findings"].get<int>();
  EXPECT_GE(findings, 1);
  Outcome m = dlfuzz("triage merge --db " + merged + " " + db + " " + db);
  EXPECT_EQ(m.code, 0) << m.out;
  Outcome e2 = dlfuzz("triage export --json --db " + merged);
  auto j2 = nlohmann::json::parse(e2.out);
  EXPECT_EQ(j2["bugs"].size(), 1u) << "the same bug twice is one bug";
  EXPECT_EQ(j2["bugs"][0]["hits"].get<int>(), 2 * findings);
  Outcome rt = dlfuzz("triage retest --db " + db);
  EXPECT_EQ(rt.code, 1) << rt.out;
  EXPECT_NE(rt.out.find("1 still failing, 0 fixed"), std::string::npos) << rt.out;
  std::string page = temp_path("triage.html");
  EXPECT_EQ(dlfuzz("triage html --db " + db + " -o " + page).code, 0);
  std::ifstream in(page);
  std::stringstream html;
  html << in.rdbuf();
  for (const char* part : {"<table>", "<svg", "Findings over time", "Unique bugs over time", "Throughput over time",
                           "numeric: fault-wrong-value vs eager"})
    EXPECT_NE(html.str().find(part), std::string::npos) << part;
  EXPECT_EQ(html.str().find("http"), std::string::npos) << "self-contained: no network references";
  EXPECT_EQ(dlfuzz("triage show 99 --db " + db).code, 2);
  EXPECT_EQ(dlfuzz("triage merge --db " + merged + " /nonexistent.db").code, 2);
}

TEST(Nightly, ShardsThenMergeReduceAndReport) {
  std::string out = (fs::temp_directory_path() / "dlfuzz_cli_test" / "nightly").string();
  fs::remove_all(out);
  std::string script = "bash " + std::string(DLFUZZ_SOURCE_DIR) + "/scripts/nightly.sh";
  Outcome run = shell("DLFUZZ=" + std::string(DLFUZZ_BINARY) + " " + script + " --out " + out +
                      " --shards 2 --programs 3 --runners fault-wrong-value --reduce-max 30");
  const std::string& log = run.out;
  ASSERT_EQ(run.code, 0) << log;
  Store merged(out + "/nightly.db");
  EXPECT_EQ(merged.count("campaigns"), 2) << log;
  auto bugs = merged.bugs();
  ASSERT_EQ(bugs.size(), 1u) << "both shards find the same planted bug: one bug after the merge\n" << log;
  EXPECT_EQ(bugs[0].hits, merged.count("findings"));
  EXPECT_EQ(bugs[0].status, "reduced") << log;
  EXPECT_FALSE(bugs[0].reduced_ops.empty());
  for (const char* file : {"/reports/bug-1.md", "/report.html", "/reduced/bug-1.dlf", "/shard-0.db", "/shard-1.db"})
    EXPECT_TRUE(fs::exists(out + file)) << file << "\n" << log;
  Outcome bad = shell(script + " --bogus");
  EXPECT_EQ(bad.code, 2);
  const std::string& msg = bad.out;
  EXPECT_NE(msg.find("unknown option '--bogus'"), std::string::npos) << msg;
}

// `dlfuzz gate` with the example plugins: the correct pass lands, the subtly
// wrong one is blocked within the default budget, broken plugins are usage
// errors, and the JUnit file is JUnit XML.
TEST(Gate, PassesTheCorrectPluginAndBlocksTheWrongOne) {
  std::string dir = (fs::temp_directory_path() / "dlfuzz_cli_test" / "gate").string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string plugins = DLFUZZ_PLUGIN_DIR;
  std::string ok_junit = dir + "/ok.xml", bad_junit = dir + "/bad.xml";
  Outcome ok = dlfuzz("gate --baseline ts --candidate plugin:" + plugins + "/sub_to_add.so --programs 60 --db " + dir +
                      "/ok.db -o " + dir + "/ok --junit " + ok_junit);
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_NE(ok.out.find("gate: PASSED"), std::string::npos) << ok.out;
  // Default budget (5 minutes); the gate stops at its first new finding.
  Outcome bad = dlfuzz("gate --baseline ts-nnc --candidate plugin:" + plugins + "/div_to_mul.so --db " + dir +
                       "/bad.db -o " + dir + "/bad --junit " + bad_junit);
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_NE(bad.out.find("gate: BLOCKED"), std::string::npos) << bad.out;
  EXPECT_TRUE(fs::exists(dir + "/bad/bug-1.md")) << "each new finding is reported";
  EXPECT_TRUE(fs::exists(dir + "/bad/bug-1.dlf")) << "and reduced";
  // Valid JUnit XML: parsed by Python's XML parser, the counts add up, and
  // the failing case names the oracle.
  const char* check =
      "import sys, xml.etree.ElementTree as E\n"
      "for path, failures in ((sys.argv[1], 0), (sys.argv[2], 1)):\n"
      "    root = E.parse(path).getroot()\n"
      "    assert root.tag == 'testsuites', root.tag\n"
      "    suite = root.find('testsuite')\n"
      "    cases = suite.findall('testcase')\n"
      "    assert int(suite.get('tests')) == len(cases) > 1, path\n"
      "    failed = [c for c in cases if c.find('failure') is not None]\n"
      "    assert int(suite.get('failures')) == len(failed) == failures, (path, len(failed))\n"
      "    for c in cases: assert c.get('classname') and c.get('name') and float(c.get('time')) >= 0\n"
      "    for c in failed: assert c.find('failure').get('type') == 'numeric'\n"
      "print('junit ok')\n";
  std::ofstream(dir + "/check.py") << check;
  Outcome junit = shell("python3 " + dir + "/check.py " + ok_junit + " " + bad_junit);
  EXPECT_EQ(junit.code, 0) << junit.out;
}

TEST(Gate, BrokenPluginsAreUsageErrors) {
  std::string plugins = DLFUZZ_PLUGIN_DIR;
  struct Case {
    std::string plugin, message;
  } cases[] = {{"/nonexistent/plugin.so", "no such file"},
               {plugins + "/no_entry_point.so", "no dlfuzz_plugin_register symbol"},
               {plugins + "/registers_nothing.so", "registers nothing"},
               {std::string(DLFUZZ_SOURCE_DIR) + "/README.md", "cannot load"}};
  for (const auto& c : cases) {
    Outcome o = dlfuzz("gate --baseline ts-nnc --candidate plugin:" + c.plugin + " --programs 3 --db " +
                       temp_path("gate_broken.db"));
    EXPECT_EQ(o.code, 2) << c.plugin << "\n" << o.out;
    EXPECT_NE(o.out.find(c.message), std::string::npos) << c.plugin << "\n" << o.out;
  }
  EXPECT_EQ(dlfuzz("gate --baseline no-such-runner --candidate plugin:x.so").code, 2);
  EXPECT_EQ(dlfuzz("gate --baseline frozen --candidate plugin:" + plugins + "/sub_to_add.so --programs 1").code, 2)
      << "plugin passes need a TorchScript baseline";
}

// The libFuzzer target runs a few inputs through the real runners, records
// compiler-behavior features, and `dlfuzz libfuzzer` passes libFuzzer's flags.
TEST(LibFuzzer, TargetRunsInputsAndCountsFeatures) {
  std::string target = (fs::path(DLFUZZ_BINARY).parent_path() / "dlfuzz-libfuzzer").string();
  if (!fs::exists(target)) GTEST_SKIP() << "dlfuzz-libfuzzer not built (needs clang with libFuzzer)";
  std::string dir = (fs::temp_directory_path() / "dlfuzz_cli_test" / "libfuzzer").string();
  fs::remove_all(dir);
  fs::create_directories(dir + "/corpus");
  Outcome o = dlfuzz("libfuzzer --db " + dir + "/lf.db --runners ts,ts-nnc -- " + dir +
                     "/corpus -runs=25 -seed=1 -artifact_prefix=" + dir + "/");
  ASSERT_EQ(o.code, 0) << o.out;
  size_t at = o.out.rfind("{\"programs\":");
  ASSERT_NE(at, std::string::npos) << o.out;
  auto j = nlohmann::json::parse(o.out.substr(at, o.out.find('\n', at) - at));
  EXPECT_GE(j["programs"].get<int>(), 25);
  EXPECT_GT(j["features"].get<int>(), 100) << "fusion groups, node kinds, op pairs";
  Store s(dir + "/lf.db");
  EXPECT_EQ(s.count("campaigns"), 1);
  EXPECT_GE(std::distance(fs::directory_iterator(dir + "/corpus"), fs::directory_iterator{}), 1)
      << "inputs with new features are kept";
}

// A program on cuda is also compared with CPU eager (eager@cpu, arbitrated by
// eager64@cpu). Without a GPU the CPU references still run and the CUDA ones
// fail at setup, so nothing is reported; with one, a correct path agrees
// with both.
TEST(Cli, CudaProgramsAreComparedWithCpuEagerToo) {
  std::string prog = write("cuda.dlf",
                           "dlfuzz 1 seed=0 policy=0 mode=infer device=cuda world=1 plan=none\n"
                           "input %x : f32[4,8] range(-2.0,2.0)\n"
                           "input %w : f32[3,8] range(-1.0,1.0)\n"
                           "%1 : f32[4,3] = linear %x, %w\n"
                           "%2 : f32[4,3] = tanh %1\n"
                           "return %2\n");
  Outcome o = dlfuzz("run " + prog + " --runners ts --json");
  auto j = nlohmann::json::parse(o.out.substr(o.out.find('{')));
  std::map<std::string, nlohmann::json> by_runner;
  for (const auto& r : j["results"]) by_runner[r["runner"]] = r;
  ASSERT_TRUE(by_runner.count("eager@cpu")) << o.out;
  ASSERT_TRUE(by_runner.count("eager64@cpu")) << o.out;
  EXPECT_EQ(by_runner["eager@cpu"]["status"], "ok") << "the CPU reference runs anywhere";
  EXPECT_TRUE(by_runner.count("eager")) << "CUDA eager is under test too";
  EXPECT_TRUE(j["findings"].empty()) << o.out;
  if (by_runner["eager"]["status"] != "ok") {
    std::string error = by_runner["eager"]["error"];
    EXPECT_NE(error.find("sees no CUDA device"), std::string::npos) << o.out;
    // The wheel's LibTorch is a CUDA build: on a machine with an NVIDIA GPU
    // its worker must see it (an address-space limit once hid it).
    EXPECT_FALSE(error.find("(pip)") != std::string::npos && std::filesystem::exists("/dev/nvidiactl")) << o.out;
  }
}

}  // namespace dlfuzz

namespace dlfuzz {

// The summary says why the reference rejected programs, the commonest reasons
// first: on a machine where cuda programs cannot run, every one of them is
// rejected for that one reason, named.
TEST(Cli, FuzzSummaryNamesWhyTheReferenceRejectedPrograms) {
  if (std::filesystem::exists("/dev/nvidiactl")) GTEST_SKIP() << "a GPU is here: cuda programs run";
  Outcome o = dlfuzz("fuzz --programs 4 --device cuda --runners ts --no-progress --no-recheck --db " +
                     temp_path("rejected.db"));
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("4 programs the eager reference itself rejected"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("    x4     eager: the program runs on cuda"), std::string::npos) << o.out;
}

}  // namespace dlfuzz

namespace dlfuzz {

// `triage rejected` lists why eager rejected programs, most hits first, and
// prints a reason's first program; an id that is not there is an error
// naming the store.
TEST(CliTriage, RejectedListsReasonsAndPrintsAProgram) {
  std::string db = temp_path("rejected.db");
  {
    Store s(db);
    s.add_rejection("py-eager", "RuntimeError: shapes cannot be multiplied", "dlfuzz 1 seed=7\n", 7, 1);
    s.add_rejection("py-eager", "RuntimeError: shapes cannot be multiplied", "dlfuzz 1 seed=8\n", 8, 1);
    s.add_rejection("eager", "element N of tensors does not require grad", "dlfuzz 1 seed=9\n", 9, 1);
  }
  Outcome l = dlfuzz("triage rejected --db " + db);
  EXPECT_EQ(l.code, 0) << l.out;
  size_t first = l.out.find("shapes cannot be multiplied"), second = l.out.find("does not require grad");
  ASSERT_NE(first, std::string::npos) << l.out;
  ASSERT_NE(second, std::string::npos) << l.out;
  EXPECT_LT(first, second) << "most hits first";
  Outcome p = dlfuzz("triage rejected 1 --db " + db);
  EXPECT_EQ(p.code, 0);
  EXPECT_EQ(p.out, "dlfuzz 1 seed=7\n");
  Outcome none = dlfuzz("triage rejected 9 --db " + db);
  EXPECT_NE(none.code, 0);
  EXPECT_NE(none.out.find("no rejection 9 in " + db), std::string::npos) << none.out;
}

}  // namespace dlfuzz
