// Children run from an argument vector: a path with spaces, quotes, `;` or
// `$(...)` reaches them as one argument and is never run as shell text.
#include "reducers/subprocess.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;

namespace dlfuzz {
namespace {

// A directory whose name, spliced into a shell command, would create `pwned`
// files beside it (or fail to parse). One per process: ctest -j2 runs these
// tests side by side, and one's remove_all took the other's file away.
struct HostileDir {
  fs::path root = fs::temp_directory_path() / ("dlfuzz_subprocess_test_" + std::to_string(getpid()));
  fs::path dir = root / "a b 'c' \"d\" ;touch pwned; $(touch pwned) `touch pwned`";
  HostileDir() {
    fs::remove_all(root);
    fs::create_directories(dir);
  }
  ~HostileDir() { fs::remove_all(root); }
  bool pwned() const { return fs::exists(root / "pwned") || fs::exists(dir / "pwned") || fs::exists("pwned"); }
};

TEST(Subprocess, ArgvReachesTheChildAsIs) {
  HostileDir h;
  fs::path file = h.dir / "x $(id).dlf";
  std::ofstream(file) << "hello\n";
  EXPECT_EQ(run_argv({"test", "-f", file.string()}, ChildOutput::none), 0);
  EXPECT_EQ(run_argv({"test", "-f", (h.dir / "missing").string()}, ChildOutput::none), 1);
  EXPECT_EQ(run_argv({"grep", "-q", "hello", file.string()}, ChildOutput::none), 0);
  EXPECT_FALSE(h.pwned());
}

TEST(Subprocess, ExitStatusSignalAndMissingProgram) {
  EXPECT_EQ(run_argv({"sh", "-c", "exit 3"}, ChildOutput::none), 3);
  EXPECT_EQ(run_argv({"sh", "-c", "kill -9 $$"}, ChildOutput::none), 128 + 9);
  EXPECT_EQ(run_argv({"/nonexistent/dlfuzz-no-such-program"}, ChildOutput::none), -1);
  EXPECT_EQ(run_argv({}, ChildOutput::none), -1);
}

TEST(Subprocess, UserTestRunsTheCommandAsWrittenWithThePathAsOneArgument) {
  HostileDir h;
  fs::path file = h.dir / "cand 'q' $(touch pwned).dlf";
  std::ofstream(file) << "%1 = frac %x\n";
  EXPECT_TRUE(run_user_test("grep -q 'frac'", file.string()));
  EXPECT_FALSE(run_user_test("grep -q 'exp'", file.string()));
  // Shell syntax in the user's own command is the user's: variables, `;`, pipes.
  EXPECT_TRUE(run_user_test("WANT=frac; grep -q \"$WANT\"", file.string()));
  EXPECT_TRUE(run_user_test("test -f \"$1\" && grep -c frac \"$1\" | grep -q 1; test -f", file.string()));
  EXPECT_FALSE(run_user_test("test -f", (h.dir / "missing.dlf").string()));
  EXPECT_FALSE(h.pwned());
}

}  // namespace
}  // namespace dlfuzz
