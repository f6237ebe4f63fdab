// Executor::prefetch: several programs in one request to the Python worker,
// compiled as one function; run() then takes each result once, and the
// results are the ones each program gives alone. And inductor-dynamic's
// second call at another batch size, judged against its resized reference.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

namespace {
bool have_python_torch() {
  static const bool ok = test::venv_imports("torch._dynamo");
  return ok;
}

using test::parse;

const char* kInfer =
    "dlfuzz 1 seed=3 policy=0 mode=infer device=cpu world=1 plan=none\n"
    "input %x0 : f32[4,3] range(-2.0,2.0)\n"
    "%1 : f32[4,3] = sin %x0\n"
    "%2 : f32[4,3] = mul %1, 2.0\n"
    "return %2\n";
const char* kInfer2 =
    "dlfuzz 1 seed=4 policy=0 mode=infer device=cpu world=1 plan=none\n"
    "input %x0 : f32[4,3] range(-2.0,2.0)\n"
    "%1 : f32[4,3] = tanh %x0\n"
    "return %1\n";
const char* kTrain =
    "dlfuzz 1 seed=5 policy=0 mode=train device=cpu world=1 plan=none\n"
    "input %x0 : f32[4,3] range(-2.0,2.0)\n"
    "param %w0 : f32[3,2] range(-0.5,0.5)\n"
    "target %y0 : f32[4,2] range(-1.0,1.0)\n"
    "%1 : f32[4,2] = matmul %x0, %w0\n"
    "%2 : f32[] = mse_loss %1, %y0\n"
    "return %1\n"
    "loss %2\n"
    "step sgd lr=0.1 momentum=0.9 weight_decay=0.01 steps=2\n";

bool same_tensors(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].shape != b[i].shape || a[i].bytes != b[i].bytes) return false;
  return true;
}
}  // namespace

TEST(PythonBatch, PrefetchedResultsAreEachProgramsOwnAndTakenOnce) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  std::vector<Program> programs = {parse(kInfer), parse(kInfer2), parse(kTrain)};
  Executor batched(test::python_options()), single(test::python_options());
  batched.prefetch(programs, {"aot-eager"});
  for (const auto& p : programs) {
    ASSERT_TRUE(batched.prefetched(p)) << print_program(p);
    auto got = batched.run(p, {"py-eager", "py-eager64", "aot-eager"});
    EXPECT_FALSE(batched.prefetched(p));  // each result is taken once: a rerun runs again
    auto want = single.run(p, {"py-eager", "py-eager64", "aot-eager"});
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(got[i].ok()) << got[i].error;
      EXPECT_EQ(got[i].runner, want[i].runner);
      EXPECT_TRUE(same_tensors(got[i].outputs, want[i].outputs)) << got[i].runner;
      EXPECT_TRUE(same_tensors(got[i].params, want[i].params)) << got[i].runner;
    }
  }
}

// inductor and aot-eager share one Dynamo trace of the batch (shared_trace.py):
// aot-eager's results are still the ones it gives alone, Inductor's agree with
// eager, and neither makes a finding.
TEST(PythonBatch, InductorAndAotEagerShareATraceAndKeepTheirResults) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  std::vector<Program> programs = {parse(kInfer), parse(kInfer2), parse(kTrain)};
  Executor batched(test::python_options()), single(test::python_options());
  batched.prefetch(programs, {"inductor", "aot-eager"});
  for (const auto& p : programs) {
    ASSERT_TRUE(batched.prefetched(p)) << print_program(p);
    Evaluation ev = evaluate(batched, p, {"inductor", "aot-eager"}, false);
    EXPECT_TRUE(ev.findings.empty()) << ev.findings.front().detail;
    auto want = single.run(p, {"aot-eager"});
    const RunResult* aot = nullptr;
    for (const auto& r : ev.results) {
      EXPECT_TRUE(r.ok()) << r.runner << ": " << r.error;
      if (r.runner == "aot-eager") aot = &r;
    }
    ASSERT_NE(aot, nullptr);
    EXPECT_TRUE(same_tensors(aot->outputs, want[0].outputs));
    EXPECT_TRUE(same_tensors(aot->params, want[0].params));
  }
}

TEST(PythonBatch, AProgramEvaluatedFromABatchHasNoFindingWhenAloneHasNone) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  std::vector<Program> programs = {parse(kInfer), parse(kTrain)};
  Executor ex(test::python_options());
  ex.prefetch(programs, {"aot-eager"});
  for (const auto& p : programs) {
    Evaluation ev = evaluate(ex, p, {"aot-eager"}, false);
    EXPECT_TRUE(ev.findings.empty()) << ev.findings.front().detail;
    EXPECT_TRUE(ev.reference_failures.empty());
    ex.forget(p);
    EXPECT_FALSE(ex.prefetched(p));
  }
}

TEST(PythonBatch, InductorDynamicIsJudgedAtASecondBatchSize) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = parse(kTrain);
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, p, {"inductor-dynamic"}, false);
  ASSERT_EQ(ev.results.size(), 3u);  // py-eager-resized, py-eager64-resized, inductor-dynamic
  EXPECT_EQ(ev.results[0].runner, "py-eager-resized");
  const RunResult& dyn = ev.results[2];
  ASSERT_TRUE(dyn.ok()) << dyn.error;
  // The run at batch 4, then the one at batch 5; params and grads twice.
  ASSERT_EQ(dyn.outputs.size(), 2u);
  EXPECT_EQ(dyn.outputs[0].shape, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(dyn.outputs[1].shape, (std::vector<int64_t>{5, 2}));
  EXPECT_EQ(dyn.params.size(), 2u);
  EXPECT_EQ(dyn.losses.size(), 4u);
  EXPECT_TRUE(ev.findings.empty()) << ev.findings.front().detail;
}

// inductor-step: the program eager, its optimizer step compiled by Inductor
// (SGD with momentum and weight decay, two steps): it runs and agrees with
// its reference, and an inference program is not its to run.
TEST(PythonBatch, InductorStepCompilesTheOptimizerStep) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = parse(kTrain);
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, p, {"inductor-step"}, false);
  ASSERT_EQ(ev.results.size(), 3u);  // py-eager-step, py-eager64-step, inductor-step
  EXPECT_EQ(ev.results[0].runner, "py-eager-step");
  const RunResult& step = ev.results[2];
  EXPECT_EQ(step.runner, "inductor-step");
  ASSERT_TRUE(step.ok()) << step.error;
  ASSERT_EQ(step.params.size(), 1u);
  EXPECT_TRUE(ev.findings.empty()) << ev.findings.front().detail;
  EXPECT_FALSE(runner_spec("inductor-step").supports(parse(kInfer)));
}

// Adam on a float64 param: Dynamo's trace of the step counts steps in a
// float32 tensor (eager: a Python float), so its bias corrections are float32
// and the param differs from eager's by ~1e-7 (PyTorch's choice,
// pytorch#173901). dynamo-step shows that against eager; inductor-step,
// judged against the same trace run eagerly, does not.
TEST(PythonBatch, TheCompiledStepsFloat32CountIsDynamosNotInductors) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = parse(
      "dlfuzz 1 seed=5 policy=0 mode=train device=cpu world=1 plan=none\n"
      "input %x0 : f64[4,3] range(-2.0,2.0)\n"
      "param %w0 : f64[3,2] range(-0.5,0.5)\n"
      "target %y0 : f64[4,2] range(-1.0,1.0)\n"
      "%1 : f64[4,2] = matmul %x0, %w0\n"
      "%2 : f64[] = mse_loss %1, %y0\n"
      "return %1\n"
      "loss %2\n"
      "step adam lr=0.01 momentum=0.0 weight_decay=0.0 steps=2\n");
  Executor ex(test::python_options());
  Evaluation dynamo = evaluate(ex, p, {"dynamo-step"}, false);
  ASSERT_EQ(dynamo.findings.size(), 1u);
  EXPECT_EQ(dynamo.findings[0].test_runner, "dynamo-step") << dynamo.findings[0].detail;
  Evaluation inductor = evaluate(ex, p, {"inductor-step"}, false);
  for (const auto& r : inductor.results) ASSERT_TRUE(r.ok()) << r.runner << ": " << r.error;
  EXPECT_TRUE(inductor.findings.empty()) << inductor.findings.front().detail;
}

// inductor-train: the program and its step both compiled (SGD with momentum
// and weight decay): it runs and agrees with its reference.
TEST(PythonBatch, InductorTrainCompilesTheProgramAndItsStep) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, parse(kTrain), {"inductor-train"}, false);
  ASSERT_EQ(ev.results.size(), 3u);  // py-eager-step, py-eager64-step, inductor-train
  for (const auto& r : ev.results) ASSERT_TRUE(r.ok()) << r.runner << ": " << r.error;
  EXPECT_EQ(ev.results[2].runner, "inductor-train");
  EXPECT_TRUE(ev.findings.empty()) << ev.findings.front().detail;
}

}  // namespace dlfuzz
