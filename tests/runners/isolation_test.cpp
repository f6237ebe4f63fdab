// Crash-isolated execution with planted faults: each failure becomes the right
// status, the worker is replaced, and the runners after it still run.
#include <gtest/gtest.h>

#include <chrono>

#include "generator/dlf.h"
#include "oracles/numeric_oracle.h"
#include "oracles/status_oracle.h"
#include "runners/worker_client.h"

namespace dlfuzz {

namespace {
const char* kProgram =
    "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
    "input %x0 : f32[4,8] range(-2.0,2.0)\n"
    "input %x1 : f32[8,3] range(-1.0,1.0)\n"
    "%1 : f32[4,3] = matmul %x0, %x1\n"
    "%2 : f32[4,3] = gelu %1, approximate=\"tanh\"\n"
    "%3 : f32[] = sum %2\n"
    "return %2, %3\n";

WorkerRequest request(std::vector<std::string> runners) {
  WorkerRequest req;
  req.program = kProgram;
  req.runners = std::move(runners);
  req.warmup = 1;
  return req;
}
}  // namespace

TEST(Isolation, PlantedFaultsBecomeStatuses) {
  WorkerProcess worker({DLFUZZ_BINARY, "worker"}, 3072);
  auto rs = worker.run(request({"eager", "fault-segv", "eager64", "fault-hang", "fault-oom", "fault-compile-error",
                                "fault-wrong-value", "fault-reorder"}),
                       3000);
  ASSERT_EQ(rs.size(), 8u);
  const RunResult &eager = rs[0], &eager64 = rs[2];
  ASSERT_TRUE(eager.ok()) << eager.error;
  ASSERT_TRUE(eager64.ok()) << eager64.error;

  EXPECT_EQ(rs[1].status, RunStatus::crash);
  EXPECT_NE(rs[1].error.find("signal 11"), std::string::npos) << rs[1].error;
  EXPECT_EQ(rs[3].status, RunStatus::timeout);
  EXPECT_EQ(rs[4].status, RunStatus::oom) << rs[4].error;
  EXPECT_EQ(rs[5].status, RunStatus::exception);
  EXPECT_EQ(rs[5].stage, Stage::compile);
  EXPECT_GE(worker.restarts(), 2);

  // Each is caught by the right oracle.
  for (int i : {1, 3, 4, 5}) {
    auto f = check_status(eager, rs[i]);
    ASSERT_TRUE(f) << rs[i].runner;
    EXPECT_EQ(f->oracle, "status");
  }
  auto wrong = check_numeric(eager, rs[6], &eager64);
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->oracle, "numeric");
  EXPECT_FALSE(check_numeric(eager, rs[7], &eager64)) << "legitimate float noise must not be flagged";
}

TEST(Isolation, WorkerRunsManyProgramsAfterRestarts) {
  WorkerProcess worker({DLFUZZ_BINARY, "worker"}, 3072);
  for (int i = 0; i < 3; ++i) {
    auto rs = worker.run(request({"fault-segv", "eager"}), 5000);
    ASSERT_EQ(rs.size(), 2u);
    EXPECT_EQ(rs[0].status, RunStatus::crash);
    EXPECT_TRUE(rs[1].ok()) << rs[1].error;
  }
  EXPECT_EQ(worker.restarts(), 3);
}

// A worker that answers with an unreadable frame, or closes its result pipe,
// and then lives on (the Python worker did so on a NaN loss, waiting for its
// next request): reported as a crash and killed, never waited for without end.
TEST(Isolation, WorkerThatMisbehavesAndLivesOnIsKilled) {
  const std::string garbage =
      "import os, struct, time\n"
      "os.read(3, 1 << 20)\n"
      "os.write(4, struct.pack('<I', 8) + struct.pack('<I', 4) + b'NaN!')\n"
      "time.sleep(600)\n";
  const std::string closes = "import os, time\nos.read(3, 1 << 20)\nos.close(4)\ntime.sleep(600)\n";
  for (const auto& [script, expected] : {std::pair{garbage, "could not be read"}, std::pair{closes, "did not exit"}}) {
    WorkerProcess worker({"/usr/bin/python3", "-c", script}, 0);
    auto t0 = std::chrono::steady_clock::now();
    auto rs = worker.run(request({"eager"}), 60000);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_EQ(rs[0].status, RunStatus::crash);
    EXPECT_NE(rs[0].error.find(expected), std::string::npos) << rs[0].error;
    EXPECT_LT(seconds, 30) << "not the 60 s timeout, and not forever";
  }
}

TEST(Isolation, MissingWorkerBinaryIsReported) {
  WorkerProcess worker({"/nonexistent/dlfuzz", "worker"}, 0);
  auto rs = worker.run(request({"eager"}), 2000);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_FALSE(rs[0].ok());
}

}  // namespace dlfuzz
