// Several processes on one store at once (two campaigns and a retest): no
// "database is locked", no lost finding, and a new store created by whichever
// comes first.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <iostream>
#include <vector>

#include "triage/store.h"

namespace fs = std::filesystem;

namespace dlfuzz {
namespace {

// Runs each function in its own process, all started before any is waited
// for; returns how many exited 0 (a StoreError exits 1 with its message).
int run_processes(const std::vector<std::function<void()>>& jobs) {
  std::vector<pid_t> pids;
  for (const auto& job : jobs) {
    pid_t pid = fork();
    if (pid == 0) {
      try {
        job();
      } catch (const std::exception& e) {
        std::cerr << "child: " << e.what() << "\n";
        _exit(1);
      }
      _exit(0);
    }
    pids.push_back(pid);
  }
  int ok = 0;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok;
}

std::string fresh_db(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_concurrent_store_test";
  fs::create_directories(dir);
  std::string p = (dir / name).string();
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p + suffix);
  return p;
}

constexpr int kFindings = 150;

// A campaign: its own bugs and one shared with the other campaign.
void campaign(const std::string& db, const std::string& runner) {
  Store s(db);
  int64_t c = s.begin_campaign("{}", "");
  for (int i = 0; i < kFindings; ++i) {
    std::string p = s.add_program(runner + std::to_string(i), i, 1);
    Finding own{"status", "eager", runner, "run", "own " + std::to_string(i % 10), "own " + std::to_string(i % 10)};
    Finding shared{"numeric", "eager", "ts", "run", "shared", ""};
    s.add_finding(c, p, i % 2 ? own : shared, "");
    if (i % 25 == 0) s.sample_throughput(c, i, i, i);
  }
  s.end_campaign(c, kFindings, kFindings);
}

// `triage retest`: reads the bugs and records a verdict per bug, repeatedly.
void retest(const std::string& db) {
  Store s(db);
  for (int round = 0; round < 20; ++round)
    for (const auto& b : s.bugs()) s.record_env_check(b.id, "venv", "torch 2.15.0", round % 2);
}

TEST(ConcurrentStore, TwoCampaignsAndARetestLoseNothing) {
  std::string db = fresh_db("two_writers.db");
  // All three open the store while it does not exist yet.
  int ok = run_processes({[&] { campaign(db, "ts-nnc"); }, [&] { campaign(db, "frozen"); }, [&] { retest(db); }});
  EXPECT_EQ(ok, 3);
  Store s(db);
  EXPECT_EQ(s.count("campaigns"), 2);
  EXPECT_EQ(s.count("findings"), 2 * kFindings) << "no finding lost";
  EXPECT_EQ(s.count("programs"), 2 * kFindings);
  int64_t hits = 0;
  for (const auto& b : s.bugs()) hits += b.hits;
  EXPECT_EQ(hits, 2 * kFindings);
  EXPECT_EQ(s.count("bugs"), 1 + 2 * 5) << "odd i: 5 own bugs per campaign; the shared bug is one bug";
  auto check = s.db().prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
}

TEST(ConcurrentStore, ManyOpenAFreshStoreAtOnce) {
  std::string db = fresh_db("fresh.db");
  std::vector<std::function<void()>> jobs(6, [&] { Store s(db); });
  EXPECT_EQ(run_processes(jobs), 6);
  Store s(db);
  EXPECT_EQ(s.count("meta"), 1);
}

}  // namespace
}  // namespace dlfuzz
