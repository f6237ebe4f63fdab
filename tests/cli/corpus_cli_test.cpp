// `dlfuzz fuzz --corpus DIR`: a malformed seed stops the campaign before its
// store exists; a campaign over corpus/ runs, stores its findings, and a
// stored mutant names the corpus file it came from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/cli/shell_outcome.h"
#include "triage/sqlite.h"

namespace dlfuzz {
namespace {

namespace fs = std::filesystem;

test::Outcome dlfuzz(const std::string& args) { return test::shell(std::string(DLFUZZ_BINARY) + " " + args); }

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_corpus_cli_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(CorpusCli, MalformedSeedExitsTwoWithItsLineAndWritesNothing) {
  fs::path dir = fresh_dir("bad");
  fs::create_directories(dir / "seeds" / "sub");
  std::ofstream(dir / "seeds" / "sub" / "bad.dlf")
      << "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
         "input %x : f32[2] range(-1.0,1.0)\n%1 : f32[3] = relu %x\nreturn %1\n";
  fs::path db = dir / "c.db";
  test::Outcome o =
      dlfuzz("fuzz --corpus " + (dir / "seeds").string() + " --programs 2 --runners eager --db " + db.string());
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("bad.dlf:3:1:"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(db));
}

TEST(CorpusCli, CampaignOverTheCorpusStoresMutantsWithTheirOrigin) {
  fs::path dir = fresh_dir("run");
  fs::path db = dir / "c.db";
  std::string corpus = std::string(DLFUZZ_SOURCE_DIR) + "/corpus";
  // eager alone: the campaign runs; a planted fault: every program is stored.
  test::Outcome clean = dlfuzz("fuzz --corpus " + corpus + " --programs 6 --runners eager --no-progress --db " +
                               (dir / "clean.db").string());
  EXPECT_EQ(clean.code, 0) << clean.out;
  EXPECT_NE(clean.out.find("mutants of the"), std::string::npos) << clean.out;
  test::Outcome o = dlfuzz("fuzz --corpus " + corpus +
                           " --programs 16 --runners fault-wrong-value --no-progress --no-recheck --db " + db.string());
  EXPECT_EQ(o.code, 1) << o.out;
  Database store(db.string(), false);
  auto st = store.prepare("SELECT count(*) FROM programs WHERE text LIKE '# mutant of %/corpus/%.dlf (%'");
  ASSERT_TRUE(st.step());
  EXPECT_GT(st.column_int(0), 0) << o.out;
}

}  // namespace
}  // namespace dlfuzz
