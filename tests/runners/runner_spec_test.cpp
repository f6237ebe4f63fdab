// The runner table (runners/Runners.def) and its one parse (RunnerSpec): the
// executor, the store's runner family and the report's repro backend all
// answer from it. No LibTorch.
#include <gtest/gtest.h>

#include <filesystem>

#include "generator/dlf.h"
#include "runners/executor.h"
#include "runners/runner_spec.h"
#include "triage/report.h"
#include "triage/store.h"

namespace dlfuzz {
namespace {

Program program(const std::string& header_tail, bool train) {
  std::string text = "dlfuzz 1 seed=1 policy=0 mode=" + std::string(train ? "train" : "infer") + " " + header_tail +
                     "\ninput %x0 : f32[4] range(-1.0,1.0)\nparam %w0 : f32[4] range(-1.0,1.0)\n"
                     "%1 : f32[4] = mul %x0, %w0\n";
  if (train) text += "%2 : f32[] = sum %1\nreturn %1\nloss %2\nstep sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=1\n";
  else text += "return %1\n";
  ParseResult r = parse_program(text, "test");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error->str());
  return r.program;
}

TEST(RunnerSpec, EveryRowParsesBackToItself) {
  for (const auto& row : runner_table()) {
    auto s = parse_runner(row.name);
    ASSERT_TRUE(s) << row.name;
    EXPECT_EQ(s->row, &row);
    EXPECT_EQ(s->name(), row.name);
  }
}

TEST(RunnerSpec, Suffixes) {
  auto s = runner_spec("ts-nnc+plugin:/p/x.so@1@cpu");
  EXPECT_EQ(std::string(s.row->name), "ts-nnc");
  EXPECT_EQ(s.plugin, "/p/x.so");
  EXPECT_TRUE(s.one_process && s.on_cpu);
  EXPECT_EQ(s.name(), "ts-nnc+plugin:/p/x.so@1@cpu");
  EXPECT_EQ(runner_spec("eager@cpu@1").name(), "eager@1@cpu") << "canonical order";
  auto e = runner_spec("py-eager@system");
  EXPECT_EQ(e.env, "system");
  EXPECT_EQ(e.name_in_env(), "py-eager");
  EXPECT_EQ(runner_spec("inductor@/opt/py/bin/python3").env, "/opt/py/bin/python3");
  std::string error;
  EXPECT_FALSE(parse_runner("no-such-runner", &error));
  EXPECT_EQ(error, "unknown runner 'no-such-runner'");
  EXPECT_FALSE(parse_runner("ts@bogus", &error));
  EXPECT_NE(error.find("not a suffix"), std::string::npos) << error;
  EXPECT_FALSE(parse_runner("inductor+plugin:/x.so", &error)) << "plugins run under TorchScript runners";
  EXPECT_FALSE(parse_runner("ts@system", &error)) << "system is a Python environment";
  EXPECT_FALSE(parse_runner("ts@1@1", &error));
}

TEST(RunnerSpec, ReferencesFollowTheTable) {
  Program p = program("device=cpu world=1 plan=none", false);
  EXPECT_EQ(runner_spec("ts").reference(p), "eager");
  EXPECT_EQ(runner_spec("ts").fp64_reference(p), "eager64");
  EXPECT_EQ(runner_spec("inductor").reference(p), "py-eager");
  EXPECT_EQ(runner_spec("aot-eager").fp64_reference(p), "py-eager64");
  EXPECT_EQ(runner_spec("ts+plugin:/x.so").reference(p), "eager");
  EXPECT_EQ(runner_spec("inductor@system").reference(p), "py-eager@system") << "references from the same install";
  EXPECT_EQ(runner_spec("ts@build-pip").fp64_reference(p), "eager64@build-pip");
}

TEST(RunnerSpec, ApplicabilityFollowsTheTable) {
  Program infer = program("device=cpu world=1 plan=none", false);
  Program train = program("device=cpu world=1 plan=none", true);
  Program cuda = program("device=cuda world=1 plan=none", false);
  for (const char* r : {"frozen", "static", "aoti"}) {
    EXPECT_TRUE(runner_spec(r).supports(infer)) << r;
    EXPECT_FALSE(runner_spec(r).supports(train)) << r << " takes inference programs only";
  }
  EXPECT_FALSE(runner_spec("static").supports(cuda));
  EXPECT_TRUE(runner_spec("frozen").supports(cuda));
  EXPECT_FALSE(runner_spec("fault-dist-corrupt").supports(train)) << "needs a data-parallel plan";
  EXPECT_TRUE(runner_spec("ts+plugin:/x.so").supports(train));
  EXPECT_TRUE(runner_spec("inductor-step").supports(train));
  EXPECT_FALSE(runner_spec("inductor-step").supports(infer)) << "an inference program has no optimizer step";
}

// torch.export refuses an `if` on a tensor's value by design (c84's bug 1, 29
// findings in 20 minutes: "Could not guard on data-dependent expression"), so
// aoti does not take such a program; inductor does. Spelled as torch.cond,
// export's own branch on data, aoti takes it.
TEST(RunnerSpec, ExportRunnersTakeNoProgramThatBranchesOnDataButByTorchCond) {
  ParseResult r = parse_program(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : f32[] zeros\n"
      "%1 : bool[] = gt %x0, %x0\n"
      "%2 : f32[] = if cond=%1 {\n  yield %x0\n} else {\n  yield %x0\n}\n"
      "return %2\n",
      "branch.dlf");
  ASSERT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
  EXPECT_FALSE(runner_spec("aoti").supports(r.program));
  EXPECT_FALSE(runner_spec("aoti-emulate").supports(r.program));
  EXPECT_TRUE(runner_spec("inductor").supports(r.program));
  EXPECT_TRUE(runner_spec("aoti").supports(program("device=cpu world=1 plan=none", false)));
  ParseResult c = parse_program(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : f32[] zeros\n"
      "%1 : bool[] = gt %x0, %x0\n"
      "%2 : f32[] = if cond=%1, hop=true {\n  %3 : f32[] = sin %x0\n  yield %3\n} else {\n  yield %x0\n}\n"
      "return %2\n",
      "cond.dlf");
  ASSERT_TRUE(c.ok()) << (c.error ? c.error->str() : "");
  EXPECT_TRUE(runner_spec("aoti").supports(c.program));
  EXPECT_TRUE(runner_spec("export").supports(c.program));
  // Nor a data-dependent size: export fails where a later op guards on it
  // ("GuardOnDataDependentSymNode", 12 of 19 bugs of a campaign).
  ParseResult d = parse_program(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x : f32[5] range(-1.0,1.0)\n"
      "%1 : bool[5] = gt %x, 0.0\n"
      "%2 : i64[3,1] = nonzero %1, count=3\n"
      "return %2\n",
      "nonzero.dlf");
  ASSERT_TRUE(d.ok()) << (d.error ? d.error->str() : "");
  for (const char* r : {"export", "export-decomp", "export-serde", "aoti", "export-dynamic", "aoti-dynamic"})
    EXPECT_FALSE(runner_spec(r).supports(d.program)) << r;
  EXPECT_TRUE(runner_spec("inductor").supports(d.program));
}

// CrossRefFakeMode has no rule for higher-order ops (flex_attention) by
// design: fake-crossref takes no program with one.
TEST(RunnerSpec, FakeCrossrefTakesNoProgramWithAHigherOrderOp) {
  ParseResult r = parse_program(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %q : f32[1,1,4,2] range(-1.0,1.0)\n"
      "%1 : f32[1,1,4,2] = flex_attention %q, %q, %q\n"
      "return %1\n",
      "flex.dlf");
  ASSERT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
  EXPECT_FALSE(runner_spec("fake-crossref").supports(r.program));
  EXPECT_TRUE(runner_spec("inductor").supports(r.program));
  EXPECT_TRUE(runner_spec("fake-crossref").supports(program("device=cpu world=1 plan=none", false)));
  // Nor one with control flow spelled as torch.cond or scan.
  ParseResult c = parse_program(
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x : f32[2] range(-1.0,1.0)\n"
      "%1 : f32[] = sum %x\n"
      "%2 : bool[] = gt %1, 0.0\n"
      "%3 : f32[2] = if cond=%2, hop=true {\n  %4 : f32[2] = sin %x\n  yield %4\n} else {\n  yield %x\n}\n"
      "return %3\n",
      "cond.dlf");
  ASSERT_TRUE(c.ok()) << (c.error ? c.error->str() : "");
  EXPECT_FALSE(runner_spec("fake-crossref").supports(c.program));
  EXPECT_TRUE(runner_spec("inductor").supports(c.program));
}

// The executor keeps one worker per environment: two native environments
// (two binary paths) give two workers, each asked only for its runners; the
// result names keep the @ENV the caller gave.
TEST(RunnerSpec, ExecutorKeepsOneWorkerPerEnvironment) {
  ExecutorOptions o;
  o.dlfuzz_binary = "/nonexistent/dlfuzz-a";
  o.timeout_ms = 2000;
  Executor ex(o);
  Program p = program("device=cpu world=1 plan=none", false);
  auto results = ex.run(p, {"eager", "ts@/nonexistent/dlfuzz-b", "ts", "no-such-runner"});
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].runner, "eager");
  EXPECT_EQ(results[1].runner, "ts@/nonexistent/dlfuzz-b");
  EXPECT_EQ(results[2].runner, "ts");
  EXPECT_EQ(results[3].runner, "no-such-runner");
  EXPECT_EQ(results[3].error, "unknown runner 'no-such-runner'");
  for (const auto& r : results) EXPECT_FALSE(r.ok()) << r.runner << ": no such binary";
  EXPECT_EQ(ex.workers(), 2u);
  // A Python runner with no interpreter configured fails at setup, saying so.
  auto py = ex.run(p, {"inductor"});
  EXPECT_EQ(py.at(0).stage, Stage::setup);
  EXPECT_NE(py.at(0).error.find("no Python"), std::string::npos) << py.at(0).error;
}

// The store's duplicate rule groups runners by the table's family.
TEST(RunnerSpec, StoreFamilyFromTheTable) {
  auto dir = std::filesystem::temp_directory_path() / ("dlfuzz_spec_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  Store store((dir / "s.db").string());
  int64_t c = store.begin_campaign("{}", "");
  std::string h = store.add_program("x", 1, 1);
  auto bug = [&](const std::string& test) {
    Finding f{"numeric", "eager", test, "output", "differs", ""};
    int64_t id = store.add_finding(c, h, f, "");
    return store.record_reduction(id, h, "mul");
  };
  EXPECT_EQ(bug("ts"), 0);
  EXPECT_NE(bug("ts-legacy"), 0) << "ts and ts-legacy are one family";
  EXPECT_EQ(bug("frozen"), 0) << "freezing is a family of its own";
  EXPECT_EQ(bug("inductor"), 0);
  EXPECT_NE(bug("inductor-dynamic"), 0);
  EXPECT_NE(bug("ts+plugin:/x-y.so"), 0) << "a plugin runner is its base's family";
  std::filesystem::remove_all(dir);
}

TEST(RunnerSpec, ReportBackendFromTheTable) {
  BugDetail d;
  d.bug.id = 1;
  d.bug.hits = 1;
  d.program = "not a program";
  for (const auto& [runner, backend] : std::vector<std::pair<std::string, std::string>>{
           {"inductor", "inductor"},
           {"inductor-dynamic", "inductor --dynamic"},
           {"inductor-knobs", "inductor --knobs"},
           {"inductor-knob-2", "inductor --knob 2"},
           {"aot-eager", "aot_eager"},
           {"ts-nnc", "script"},
           {"ts+plugin:/x.so", "script"},
           {"aoti", "eager --export aoti"},
           {"export-decomp", "eager --export decomp"},
           {"export-serde", "eager --export serde"},
           {"export-dynamic", "eager --export program --dynamic"},
           {"aoti-dynamic", "eager --export aoti --dynamic"},
           {"inductor-step", "inductor --compile-step"},
           {"inductor-train", "inductor --compile-step --compile-program"}}) {
    d.test_runner = runner;
    EXPECT_NE(markdown_report(d, "db").find("--backend " + backend + "`"), std::string::npos) << runner;
  }
}

}  // namespace
}  // namespace dlfuzz
