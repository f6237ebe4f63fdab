#include "triage/resource_usage.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "triage/store.h"

namespace dlfuzz {
namespace fs = std::filesystem;

TEST(ResourceUsage, CountsChildrenFilesAndTheStore) {
  fs::path dir = fs::temp_directory_path() / ("dlfuzz-usage-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string db = (dir / "s.db").string();
  std::ofstream(db) << std::string(1000, 'x');
  std::ofstream(db + "-wal") << std::string(24, 'y');

  ResourceUsage before = sample_resources(db);
  EXPECT_GT(before.campaign_rss_kb, 0);
  EXPECT_GT(before.open_fds, 2) << "stdin, stdout, stderr at least";
  EXPECT_EQ(before.store_bytes, 1024) << "the database and its WAL";

  FILE* held = std::fopen(db.c_str(), "r");
  pid_t child = fork();
  if (child == 0) {
    pause();  // a worker that idles until killed
    _exit(0);
  }
  ASSERT_GT(child, 0);
  ResourceUsage during = sample_resources(db);
  EXPECT_EQ(during.workers, before.workers + 1);
  EXPECT_GT(during.workers_rss_kb, before.workers_rss_kb);
  EXPECT_EQ(during.open_fds, before.open_fds + 1);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  std::fclose(held);
  EXPECT_EQ(sample_resources(db).workers, before.workers) << "a reaped child is not counted";

  // A missing store measures 0, not an error.
  EXPECT_EQ(sample_resources((dir / "absent.db").string()).store_bytes, 0);
  fs::remove_all(dir);
}

TEST(ResourceUsage, StoredWithEachThroughputSample) {
  fs::path dir = fs::temp_directory_path() / ("dlfuzz-usage-store-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string db = (dir / "s.db").string();
  {
    Store s(db);
    int64_t c = s.begin_campaign("{}", "v");
    s.sample_throughput(c, 10, 1, 1, sample_resources(db));
    auto q = s.db().prepare("SELECT campaign_rss_kb, open_fds, store_bytes FROM throughput");
    ASSERT_TRUE(q.step());
    EXPECT_GT(q.column_int(0), 0);
    EXPECT_GT(q.column_int(1), 2);
    EXPECT_GT(q.column_int(2), 0) << "the store measured itself";
  }
  fs::remove_all(dir);
}

}  // namespace dlfuzz
