// dlfuzz where the machine works against it: a store that fills up or cannot
// be written, and paths with spaces, quotes and `$(...)` passed to the
// children it starts (the post-campaign reduction, the reducer's --test).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/cli/shell_outcome.h"
#include "triage/store.h"

namespace fs = std::filesystem;

namespace dlfuzz {
namespace {

using test::Outcome;
using test::shell;

// Single-quoted for sh.
std::string sh_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

const std::string kDlfuzz = sh_quote(DLFUZZ_BINARY);

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_hostile_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void expect_intact(const std::string& db, int64_t at_least_findings) {
  Store s(db);
  EXPECT_GE(s.count("findings"), at_least_findings);
  auto check = s.db().prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
  for (const auto& b : s.bugs()) EXPECT_FALSE(b.signature.empty());
}

TEST(HostileEnvironment, FullDiskStopsTheCampaignAndKeepsWhatItCommitted) {
  std::string db = (fresh_dir("full") / "full.db").string();
  ASSERT_EQ(shell(kDlfuzz + " fuzz --programs 3 --runners fault-wrong-value --no-progress --db " + db).code, 1);
  int64_t before = Store(db).count("findings");
  ASSERT_GT(before, 0);
  // Files of at most 150 kB: the write-ahead log fills up within a few dozen
  // findings (SIGXFSZ ignored, so the write fails with EFBIG as on a full disk).
  Outcome r = shell("trap '' XFSZ; prlimit --fsize=150000 " + kDlfuzz +
                    " fuzz --programs 2000 --seed 100 --runners fault-wrong-value --no-progress --db " + db);
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("cannot write the store"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("findings committed before are kept in " + db), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("terminate called"), std::string::npos) << r.out;
  expect_intact(db, before + 1);
}

TEST(HostileEnvironment, ReadOnlyStoreStopsTheCampaignWithAMessage) {
  fs::path dir = fresh_dir("readonly");
  std::string db = (dir / "ro.db").string();
  ASSERT_EQ(shell(kDlfuzz + " fuzz --programs 2 --runners fault-wrong-value --no-progress --db " + db).code, 1);
  int64_t before = Store(db).count("findings");
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  // root writes whatever the permissions say: run as nobody then.
  std::string as = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  Outcome r = shell(as + kDlfuzz + " fuzz --programs 5 --runners fault-wrong-value --no-progress --db " + db);
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("cannot write the store: " + db + ": the store is read-only"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("terminate called"), std::string::npos) << r.out;
  fs::permissions(dir, fs::perms::owner_all);
  fs::permissions(db, fs::perms::owner_read | fs::perms::owner_write);
  expect_intact(db, before);
  EXPECT_EQ(Store(db).count("findings"), before);
}

// Reports, dashboards and reduced programs on a full disk: exit 3 and a
// message naming the file; the store and an earlier file are left whole, and
// no half-written file stays behind.
TEST(HostileEnvironment, FullDiskForOutputsNamesTheFileAndKeepsTheStore) {
  fs::path dir = fresh_dir("full outputs");
  std::string db = (dir / "s.db").string();
  ASSERT_EQ(shell(kDlfuzz + " fuzz --programs 2 --runners fault-wrong-value --no-progress --db " + sh_quote(db)).code,
            1);
  int64_t before = Store(db).count("findings");
  for (std::string cmd : {" triage html", " triage report 1"}) {
    Outcome r = shell(kDlfuzz + cmd + " --db " + sh_quote(db) + " -o /dev/full");
    EXPECT_EQ(r.code, 3) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find("cannot write /dev/full: No space left on device"), std::string::npos) << r.out;
  }
  expect_intact(db, before);

  // Files of at most 300 bytes: the reducer's candidates and the reduced
  // .dlf fit, its Python repro does not (EFBIG, as on a full disk).
  std::string prog = (dir / "prog.dlf").string(), out = (dir / "out.dlf").string();
  std::ofstream(prog) << "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
                         "input %x : f32[4] range(-2.0,2.0)\n%1 : f32[4] = sin %x\n%2 : f32[4] = frac %1\n"
                         "%3 : f32[4] = exp %2\nreturn %3\n";
  std::ofstream(dir / "out.py") << "# an earlier repro\n";
  Outcome r = shell("cd " + sh_quote(dir.string()) + " && trap '' XFSZ; TMPDIR=" + sh_quote(dir.string()) +
                    " prlimit --fsize=300 " + kDlfuzz + " reduce prog.dlf --test 'grep -q = frac' -o out.dlf");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("dlfuzz reduce: cannot write out.py: File too large"), std::string::npos) << r.out;
  std::ifstream in(dir / "out.py");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "# an earlier repro\n") << "a failed write leaves the earlier file as it was";
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << "left behind: " << e.path();
}

// The campaign's reduction runs `dlfuzz reduce` with an argument vector: a
// store whose path would run `touch` in a shell stays a path.
TEST(HostileEnvironment, ShellCharactersInPathsStayPaths) {
  fs::path dir = fresh_dir("a b 'c' \"d\" $(touch pwned) `touch pwned`;touch pwned");
  std::string db = (dir / "my store $(touch pwned).db").string();
  Outcome f = shell("cd " + sh_quote(dir.string()) + " && " + kDlfuzz +
                    " fuzz --programs 2 --runners fault-wrong-value --no-progress --reduce 20 --db " + sh_quote(db));
  EXPECT_EQ(f.code, 1) << f.out;
  EXPECT_TRUE(fs::exists(db + ".reduced/bug1.dlf")) << f.out;
  // The reducer's --test: the candidate's path (under TMPDIR) reaches the user's command as one argument.
  std::string prog = (dir / "prog 'x'.dlf").string();
  std::ofstream(prog) << "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
                         "input %x : f32[4] range(-2.0,2.0)\n%1 : f32[4] = sin %x\n%2 : f32[4] = frac %1\n"
                         "%3 : f32[4] = exp %2\nreturn %3\n";
  std::string out = (dir / "out $(touch pwned).dlf").string();
  Outcome r = shell("cd " + sh_quote(dir.string()) + " && TMPDIR=" + sh_quote(dir.string()) + " " + kDlfuzz +
                    " reduce " + sh_quote(prog) + " --test " + sh_quote("grep -q '= frac'") + " -o " + sh_quote(out));
  EXPECT_EQ(r.code, 0) << r.out;
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("= frac"), std::string::npos) << text;
  EXPECT_EQ(text.find("= exp"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(dir / "pwned"));
  EXPECT_FALSE(fs::exists(dir.parent_path() / "pwned"));
}

// `triage retest` over a store an older dlfuzz wrote: a program whose type
// annotations today's rules disagree with is repaired, one with an op that is
// gone is reported, each on its own line; neither stops the run.
TEST(HostileEnvironment, RetestLoadsOldProgramsLeniently) {
  std::string db = (fresh_dir("retest") / "old.db").string();
  const std::string head =
      "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\ninput %x : f32[4] range(-2.0,2.0)\n";
  {
    Store s(db);
    int64_t c = s.begin_campaign("{}", "");
    Finding f{"numeric", "eager", "fault-wrong-value", "run", "max abs diff 1", ""};
    // Annotated f64 where the rule says f32 (a type rule that changed).
    s.add_finding(c, s.add_program(head + "%1 : f64[4] = sin %x\nreturn %1\n", 1, 1), f, "");
    f.detail = "other";
    f.stage = "compile";  // another signature: another bug
    s.add_finding(c, s.add_program(head + "%1 : f32[4] = op_that_was_removed %x\nreturn %1\n", 2, 1), f, "");
    f.stage = "backward";
    s.add_finding(c, s.add_program(head + "%1 : f32[4] = sin %x\nreturn %1\n", 3, 1), f, "");
  }
  Outcome r = shell(kDlfuzz + " triage retest --db " + db);
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.out;
  EXPECT_NE(r.out.find("bug    1: program repaired"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bug    2: skipped (its program no longer loads: bug:2:3:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown op 'op_that_was_removed'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bug    3: "), std::string::npos) << "the bug after it is retested: " << r.out;
  EXPECT_NE(r.out.find("1 could not be retested"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace dlfuzz
