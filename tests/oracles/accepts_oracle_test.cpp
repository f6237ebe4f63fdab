// The accepts-invalid oracle on hand-made results, and its place in the
// oracle table: a program the reference rejects is judged by it alone.
#include <gtest/gtest.h>

#include "oracles/accepts_oracle.h"
#include "oracles/oracle_table.h"

namespace dlfuzz {
namespace {

RunResult result(const std::string& runner, RunStatus s, const std::string& error = "") {
  RunResult r;
  r.runner = runner;
  r.status = s;
  r.stage = s == RunStatus::ok ? Stage::none : Stage::run;
  r.error = error;
  return r;
}

TEST(AcceptsOracle, EagerRejectsCompiledAccepts) {
  RunResult ref = result("py-eager", RunStatus::exception, "RuntimeError: size mismatch, got 3 and 4\nmore");
  RunResult test = result("inductor", RunStatus::ok);
  auto f = check_accepts_invalid(ref, test);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->oracle, "accepts");
  EXPECT_EQ(f->stage, "run");
  EXPECT_EQ(f->error_text, "eager rejects: " + normalize_error(ref.error));
  EXPECT_NE(f->detail.find("inductor ran to the end"), std::string::npos) << f->detail;
  auto j = judge(ref, nullptr, test);
  ASSERT_TRUE(j) << "judge() gives the same finding";
  EXPECT_EQ(j->signature(), f->signature());
}

TEST(AcceptsOracle, NothingElseFires) {
  RunResult ok = result("eager", RunStatus::ok);
  RunResult raised = result("eager", RunStatus::exception, "boom");
  RunResult test_raised = result("ts", RunStatus::exception, "boom too");
  EXPECT_FALSE(check_accepts_invalid(ok, result("ts", RunStatus::ok)));
  EXPECT_FALSE(check_accepts_invalid(raised, test_raised)) << "both reject: consistent";
  EXPECT_FALSE(judge(raised, nullptr, test_raised)) << "no status finding on an invalid program";
  EXPECT_FALSE(check_accepts_invalid(result("eager", RunStatus::crash, "signal 11"), result("ts", RunStatus::ok)))
      << "a crashed reference says nothing about validity";
  EXPECT_FALSE(check_accepts_invalid(result("eager", RunStatus::timeout), result("ts", RunStatus::ok)));
}

}  // namespace
}  // namespace dlfuzz
