// Replays every fuzz target's seeds (libfuzzer/corpus/TARGET) and every input
// that once broke it (libfuzzer/regressions/TARGET) through the same checks
// the libFuzzer executables run (libfuzzer/targets/fuzz_checks.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "libfuzzer/targets/fuzz_checks.h"
#include "libfuzzer/targets/store_files.h"
#include "triage/merge.h"
#include "triage/store.h"

namespace fs = std::filesystem;

namespace dlfuzz {
namespace {

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int replay(const FuzzTarget& t, const fs::path& dir) {
  int n = 0;
  if (!fs::is_directory(dir)) return n;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename().string().front() == '.') continue;
    std::string bytes = read_bytes(e.path());
    FuzzVerdict v = t.check(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    EXPECT_FALSE(v.has_value()) << e.path() << ": " << v.value_or("");
    ++n;
  }
  return n;
}

TEST(FuzzReplay, SeedsAndRegressionsOfEveryTarget) {
  fs::path root = fs::path(DLFUZZ_SOURCE_DIR) / "libfuzzer";
  for (const auto& t : kFuzzTargets) {
    SCOPED_TRACE(t.name);
    EXPECT_GT(replay(t, root / "corpus" / t.name), 0) << "every target has seeds in the repository";
    replay(t, root / "regressions" / t.name);
  }
}

// The checks must be able to fail: each sees the input it exists to reject.
TEST(FuzzReplay, ChecksAcceptGarbageAndTheSeedStoreOpens) {
  const std::string garbage = "\x01\x00\x00\x00{not json at all";
  for (const auto& t : kFuzzTargets) {
    EXPECT_FALSE(t.check(reinterpret_cast<const uint8_t*>(garbage.data()), garbage.size())) << t.name;
    EXPECT_FALSE(t.check(nullptr, 0)) << t.name;
  }
  std::string path = fuzz_scratch_dir() + "/sample.db";
  write_sample_store(path);
  Store s(path);
  EXPECT_EQ(s.count("bugs"), 4);
  EXPECT_EQ(s.count("findings"), 4);
  EXPECT_EQ(s.count("bug_envs"), 1);
  // The merge target's seed merges (so fuzzing starts from the merging path, not a refusal).
  std::string into_path = fuzz_scratch_dir() + "/into.db";
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(into_path + suffix);
  Store into(into_path);
  MergeStats m = merge_store(into, path);
  EXPECT_EQ(m.findings, 4);
  EXPECT_EQ(m.new_bugs, 4);
}

}  // namespace
}  // namespace dlfuzz
