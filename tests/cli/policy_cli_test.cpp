// `--policy FILE` and `--ops a,b` end to end: gen, fuzz and gate follow them, and a
// bad file or op name is a usage error naming it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/cli/shell_outcome.h"

namespace dlfuzz {
namespace {
namespace fs = std::filesystem;

using test::Outcome;

Outcome dlfuzz(const std::string& args) { return test::shell(std::string(DLFUZZ_BINARY) + " " + args); }

// One directory per test: ctest runs the tests side by side.
fs::path temp_dir() {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_policy_cli_test" /
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  return s.str();
}
}  // namespace

TEST(CliPolicy, GenFollowsPolicyAndOps) {
  fs::path dir = temp_dir();
  std::ofstream(dir / "policy.json") << R"({"p_training": 0, "max_nodes": 8, "family_weights": {"scan": 100}})";
  ASSERT_EQ(
      dlfuzz("gen --seed 1 --count 20 --policy " + (dir / "policy.json").string() + " -o " + (dir / "scan").string())
          .code,
      0);
  ASSERT_EQ(dlfuzz("gen --seed 1 --count 20 --ops gather,pad -o " + (dir / "ops").string()).code, 0);
  int scan = 0, ops = 0;
  for (int seed = 1; seed <= 20; ++seed) {
    std::string name = "seed_" + std::to_string(seed) + ".dlf";
    std::string a = read(dir / "scan" / name), b = read(dir / "ops" / name);
    EXPECT_NE(a.find("mode=infer"), std::string::npos) << a;
    scan += a.find("= sort ") != std::string::npos || a.find("= topk ") != std::string::npos ||
            a.find("= cummax ") != std::string::npos || a.find("= cummin ") != std::string::npos;
    ops += b.find("= gather ") != std::string::npos && b.find("= pad ") != std::string::npos;
  }
  EXPECT_GE(scan, 18);
  EXPECT_GE(ops, 15);
}

TEST(CliPolicy, BadPolicyOrOpIsAUsageError) {
  fs::path dir = temp_dir();
  std::ofstream(dir / "bad.json") << R"({"p_trainig": 0})";
  Outcome o = dlfuzz("gen --seed 1 --policy " + (dir / "bad.json").string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find("bad.json"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("p_trainig"), std::string::npos) << o.out;
  EXPECT_EQ(dlfuzz("gen --seed 1 --policy " + (dir / "missing.json").string()).code, 2);
  o = dlfuzz("fuzz --programs 1 --runners ts --ops frobnicate --db " + (dir / "x.db").string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find("frobnicate"), std::string::npos) << o.out;
}

TEST(CliPolicy, FuzzRunsFocusedPrograms) {
  fs::path dir = temp_dir();
  Outcome o = dlfuzz("fuzz --programs 3 --jobs 1 --runners ts --ops index_add,gather --no-progress --db " +
                     (dir / "f.db").string());
  EXPECT_TRUE(o.code == 0 || o.code == 1) << o.out;
  std::string programs = (dir / "f.db").string();
  EXPECT_TRUE(fs::exists(programs)) << o.out;
}

// A gate focused on what the change touches: the div_to_mul plugin's floor
// division fault, found in the first few programs with --ops div (the
// unfocused gate needs minutes: Gate.PassesTheCorrectPluginAndBlocksTheWrongOne).
TEST(CliPolicy, GateFocusedOnTheChangedOpFindsItsBug) {
  fs::path dir = temp_dir();
  std::string plugin = std::string(DLFUZZ_PLUGIN_DIR) + "/div_to_mul.so";
  Outcome o = dlfuzz("gate --baseline ts --candidate plugin:" + plugin + " --ops div --programs 30 --reduce 0 --db " +
                     (dir / "g.db").string() + " -o " + (dir / "out").string());
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find("gate: BLOCKED"), std::string::npos) << o.out;
  o = dlfuzz("gate --baseline ts --candidate ts-nnc --ops frobnicate --programs 1");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("dlfuzz gate: --ops: unknown op 'frobnicate'"), std::string::npos) << o.out;
}

}  // namespace dlfuzz
