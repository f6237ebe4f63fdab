// The C++ runners' profile: self times from a Chrome trace, as the LibTorch
// profiler writes it, and from a real profiled run.
#include "runners/trace_summary.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "generator/dlf.h"
#include "runners/executor.h"

namespace dlfuzz {

TEST(TraceSummary, SelfTimeIsDurationLessEnclosedEventsPerCall) {
  // Two calls of `forward` (100 us each) enclosing aten::mm (60 us) which
  // encloses aten::empty (10 us); another thread's event stands alone.
  std::string trace = R"([
    {"name": "forward", "ph": "X", "ts": 0, "dur": 100, "tid": 1},
    {"name": "aten::mm", "ph": "X", "ts": 10, "dur": 60, "tid": 1},
    {"name": "aten::empty", "ph": "X", "ts": 10, "dur": 10, "tid": 1},
    {"name": "forward", "ph": "X", "ts": 200, "dur": 100, "tid": 1},
    {"name": "aten::mm", "ph": "X", "ts": 210, "dur": 60, "tid": 1},
    {"name": "aten::empty", "ph": "X", "ts": 210, "dur": 10, "tid": 1},
    {"name": "aten::add", "ph": "X", "ts": 5, "dur": 30, "tid": 2},
    {"name": "meta", "ph": "M"}
  ])";
  nlohmann::json p = summarize_chrome_trace(trace, 2);
  ASSERT_EQ(p["ops"].size(), 4u);
  EXPECT_EQ(p["ops"][0][0], "aten::mm");  // 50 us self per call
  EXPECT_NEAR(p["ops"][0][1].get<double>(), 0.050, 1e-9);
  EXPECT_EQ(p["ops"][0][2], 1);
  EXPECT_EQ(p["ops"][1][0], "forward");  // 40 us self per call
  EXPECT_NEAR(p["ops"][1][1].get<double>(), 0.040, 1e-9);
  EXPECT_EQ(p["ops"][2][0], "aten::add");  // 30 us over 2 calls
  EXPECT_NEAR(p["ops"][2][1].get<double>(), 0.015, 1e-9);
}

TEST(TraceSummary, NotATraceIsAnEmptyProfile) {
  EXPECT_TRUE(summarize_chrome_trace("not json", 5)["ops"].empty());
  EXPECT_TRUE(summarize_chrome_trace(R"({"a": 1})", 5)["ops"].empty());
  EXPECT_TRUE(summarize_chrome_trace(R"([{"name": 3, "ph": "X", "ts": 0, "dur": 1}])", 5)["ops"].empty());
}

TEST(TraceSummary, ACppRunnersProfileNamesItsOpsAndWritesItsTrace) {
  ParseResult r = parse_program(
      "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
      "input %x0 : f32[16,16] range(-1.0,1.0)\n"
      "%1 : f32[16,16] = matmul %x0, %x0\n"
      "return %1\n",
      "profile");
  ASSERT_TRUE(r.ok());
  ExecutorOptions eo = default_executor_options();
  eo.dlfuzz_binary = DLFUZZ_BINARY;
  Executor ex(eo);
  std::string dir = (std::filesystem::temp_directory_path() / "dlfuzz_trace_summary_test").string();
  std::filesystem::remove_all(dir);
  auto rs = ex.run_paired(r.program, {"eager", "ts"}, 3, dir);
  ASSERT_EQ(rs.size(), 2u);
  for (const auto& res : rs) {
    ASSERT_TRUE(res.ok()) << res.error;
    EXPECT_EQ(res.call_ms.size(), 3u);
    ASSERT_TRUE(res.profile.contains("ops")) << res.runner;
    bool mm = false;
    for (const auto& row : res.profile["ops"]) mm |= row[0].get<std::string>().find("mm") != std::string::npos;
    EXPECT_TRUE(mm) << res.runner << ": " << res.profile.dump();
    EXPECT_TRUE(std::filesystem::exists(res.profile["trace"].get<std::string>()));
  }
}

}  // namespace dlfuzz
