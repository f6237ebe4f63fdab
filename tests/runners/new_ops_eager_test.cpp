// The ops issue 19 added, over many generated programs that favour them: the
// native eager runner (LibTorch 1.13) runs them with the IR's output types, and
// the Python worker's eager (PyTorch 2.x) runs them too. The same for the ops
// that widen what programs express (transposed convs, instance_norm, einsum,
// upsampling), and TorchScript for their TorchScript spelling.
#include <gtest/gtest.h>

#include <map>

#include "tests/generator/new_ops.h"
#include "tests/runners/python_test_options.h"

#include "generator/dlf.h"
#include "generator/generator.h"
#include "generator/summary.h"
#include "oracles/evaluate.h"
#include "runners/runner.h"
#include "runners/worker_client.h"

namespace dlfuzz {
namespace {

// Runs kSeeds programs of `policy` through the in-process runner `name`: most
// succeed with the IR's output types, and every op of `ops` runs (with
// `trained`, also in a training program: backward goes through it).
// With `isolated`, each program runs in a worker process, so that a runner's
// crash (a real bug of the system under test) is one failure, not the suite's.
void runs_them_with_the_irs_types(const std::string& name, const GenPolicy& policy, const std::vector<std::string>& ops,
                                  int kSeeds, bool trained = false, bool isolated = false) {
  auto runner = make_runner(name);
  ASSERT_NE(runner, nullptr) << name;
  WorkerProcess worker({DLFUZZ_BINARY, "worker"}, 3072);
  std::map<std::string, int> failures, ran, ran_training;
  int ok = 0;
  for (uint64_t seed = 0; seed < static_cast<uint64_t>(kSeeds); ++seed) {
    Program p = generate_program(policy, seed);
    WorkerRequest req;
    req.program = print_program(p);
    req.runners = {name};
    RunResult r = isolated ? worker.run(req, 60000).at(0) : runner->run(p, RunConfig{});
    if (!r.ok()) {
      failures[r.error.substr(0, 200)]++;
      if (std::getenv("DLFUZZ_DEBUG")) std::cerr << "seed " << seed << ": " << r.error << "\n" << print_program(p);
      continue;
    }
    ++ok;
    for (const auto& [op, n] : summarize(p).ops) (p.is_training() ? ran_training : ran)[op] += n;
    ASSERT_EQ(r.outputs.size(), p.body.yields.size());
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      const TensorType& t = p.type(p.body.yields[i]);
      EXPECT_EQ(r.outputs[i].dtype, t.dtype) << "seed " << seed << " output " << i << "\n" << print_program(p);
      EXPECT_EQ(r.outputs[i].shape, t.shape) << "seed " << seed << " output " << i << "\n" << print_program(p);
    }
  }
  for (const auto& [msg, n] : failures) std::cerr << n << "x " << msg << "\n";
  EXPECT_GE(ok, kSeeds * 98 / 100) << name << " runs that succeed";
  for (const auto& op : ops) {
    EXPECT_GE(ran[op] + ran_training[op], 1) << op << " never ran";
    if (trained) {
      EXPECT_GE(ran_training[op], 1) << op << " never ran in a training program";
    }
  }
}

// The same through the Python worker's py-eager (PyTorch 2.x); with `dtypes`,
// the outputs have the IR's dtypes too.
void python_eager_runs_them(const GenPolicy& policy, int kSeeds, bool dtypes = false) {
  Executor ex(test::python_options());
  std::map<std::string, int> failures;
  int ok = 0;
  for (uint64_t seed = 0; seed < static_cast<uint64_t>(kSeeds); ++seed) {
    Program p = generate_program(policy, seed);
    std::vector<RunResult> rs = ex.run(p, {"py-eager"});
    ASSERT_EQ(rs.size(), 1u);
    if (rs[0].ok()) {
      ++ok;
      EXPECT_EQ(rs[0].outputs.size(), p.body.yields.size());
      for (size_t i = 0; i < rs[0].outputs.size() && i < p.body.yields.size(); ++i) {
        EXPECT_EQ(rs[0].outputs[i].shape, p.type(p.body.yields[i]).shape) << "seed " << seed;
        if (dtypes) {
          EXPECT_EQ(dtype_name(rs[0].outputs[i].dtype), std::string(dtype_name(p.type(p.body.yields[i]).dtype)))
              << "seed " << seed << " output " << i << "\n"
              << print_program(p);
        }
      }
    } else {
      failures[rs[0].error.substr(0, 200)]++;
      if (std::getenv("DLFUZZ_DEBUG")) std::cerr << "seed " << seed << ": " << rs[0].error << "\n" << print_program(p);
    }
  }
  for (const auto& [msg, n] : failures) std::cerr << n << "x " << msg << "\n";
  EXPECT_GE(ok, kSeeds * 97 / 100) << "py-eager runs that succeed";
}
}  // namespace

TEST(NewOps, EagerRunsThemWithTheIRsTypes) {
  runs_them_with_the_irs_types("eager", test::new_ops_policy(), test::kNewOps, 400);
}

TEST(NewOps, PythonEagerRunsThemOnThProjectsPyTorch) {
  if (!test::venv_imports("torch")) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  python_eager_runs_them(test::new_ops_policy(), 120);
}

// Transposed convs, instance_norm, einsum and the upsample ops, in inference
// and training programs (gradients flow through them): eager, and TorchScript
// for their TorchScript spelling.
TEST(ExpressiveOps, EagerRunsThemWithTheIRsTypes) {
  runs_them_with_the_irs_types("eager", test::expressive_ops_policy(), test::kExpressiveOps, 400, true);
}

TEST(ExpressiveOps, TorchScriptRunsThemWithTheIRsTypes) {
  runs_them_with_the_irs_types("ts", test::expressive_ops_policy(), test::kExpressiveOps, 150, true);
}

TEST(ExpressiveOps, PythonEagerRunsThemOnThProjectsPyTorch) {
  if (!test::venv_imports("torch")) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  python_eager_runs_them(test::expressive_ops_policy(), 120);
}

// Data-dependent sizes (their count annotations hold: outputs have the IR's
// shapes), subscripts, _foreach_*, dropout and .item(): eager and TorchScript
// (LibTorch 1.13) and the Python worker's eager on torch2 programs (with
// view(dtype) and _foreach_lerp).
TEST(DataOps, EagerRunsThemWithTheIRsTypes) {
  runs_them_with_the_irs_types("eager", test::data_ops_policy(), test::kDataOps, 400);
}

TEST(DataOps, TorchScriptRunsThemWithTheIRsTypes) {
  runs_them_with_the_irs_types("ts", test::data_ops_policy(), test::kDataOps, 150);
}

TEST(DataOps, PythonEagerRunsThemOnThProjectsPyTorch) {
  if (!test::venv_imports("torch")) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  python_eager_runs_them(test::data_ops_policy(Target::torch2), 120);
}

// Autocast programs (the forward under torch.autocast on the CPU): the Python
// worker's eager gives every output the dtype CPU autocast's type rules say
// (generator/autocast.cpp), templates and training programs included.
TEST(Autocast, PythonEagerRunsThemWithTheIRsTypes) {
  if (!test::venv_imports("torch")) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  GenPolicy policy;
  policy.target = Target::torch2;
  policy.p_autocast = 1;
  policy.p_template = 0.5;
  python_eager_runs_them(policy, 120, true);
}

// Dropout draws one mask in every runner: each call is seeded, and Inductor
// runs with fallback_random. A program of two dropouts (one of them in the
// loss's path) agrees between eager, TorchScript, NNC, Inductor and
// AOTAutograd, gradients and updated params included.
TEST(DataOps, DropoutDrawsTheSameMaskEverywhere) {
  const std::string text =
      "dlfuzz 1 seed=1 policy=0 mode=train device=cpu world=1 plan=none\n"
      "input %x0 : f32[8,16] range(-2.0,2.0)\n"
      "param %w0 : f32[8,16] range(-0.5,0.5)\n"
      "target %y0 : f32[8,8] range(-1.0,1.0)\n"
      "%1 : f32[8,8] = linear %x0, %w0\n"
      "%2 : f32[8,8] = dropout %1, 0.3, true\n"
      "%3 : f32[8,8] = sin %2\n"
      "%4 : f32[8,8] = dropout %3, 0.5, true\n"
      "%5 : f32[] = mse_loss %4, %y0\n"
      "return %4\n"
      "loss %5\n"
      "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=2\n";
  ParseResult parsed = parse_program(text, "dropout.dlf");
  ASSERT_TRUE(parsed.ok()) << parsed.error->str();
  std::vector<std::string> runners = {"ts", "ts-nnc"};
  bool python = test::venv_imports("torch");
  if (python) runners.insert(runners.end(), {"inductor", "aot-eager"});
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, parsed.program, runners, false);
  EXPECT_TRUE(ev.reference_failures.empty()) << ev.reference_failures.at(0).str();
  for (const auto& f : ev.findings) ADD_FAILURE() << f.test_runner << ": " << f.detail;
  for (const auto& r : ev.results) {
    ASSERT_TRUE(r.ok()) << r.runner << ": " << r.error;
    ASSERT_EQ(r.outputs.size(), 1u);
    int64_t zeros = 0;  // the mask dropped some of the values: the test tests something
    for (int64_t i = 0; i < r.outputs[0].numel(); ++i) zeros += r.outputs[0].at(i) == 0;
    EXPECT_GT(zeros, 8) << r.runner;
  }
  EXPECT_EQ(ev.results.size(), runners.size() + (python ? 4u : 2u));
}

// The math and layout ops (special functions, integer ops, nansum, scans,
// unfold, pixel_shuffle, ...): LibTorch 1.13's eager and TorchScript run them
// with the IR's types, and PyTorch 2.x's eager runs them too.
TEST(MathOps, EagerRunsThemWithTheIRsTypes) {
  runs_them_with_the_irs_types("eager", test::math_ops_policy(), test::kMathOps, 400);
}

TEST(MathOps, TorchScriptRunsThemWithTheIRsTypes) {
  runs_them_with_the_irs_types("ts", test::math_ops_policy(), test::kMathOps, 150);
}

TEST(MathOps, PythonEagerRunsThemOnThProjectsPyTorch) {
  if (!test::venv_imports("torch")) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  python_eager_runs_them(test::math_ops_policy(), 120, true);
}

// Losses, norms, distances, glu/prelu/threshold, float_power, nextafter,
// heaviside and the bicubic and nearest-exact resizing: LibTorch 1.13's eager
// (trained through where differentiable) and TorchScript, and PyTorch 2.x's
// eager, with the IR's types.
TEST(LossNormOps, EagerRunsThemWithTheIRsTypes) {
  runs_them_with_the_irs_types("eager", test::loss_norm_ops_policy(), test::kLossNormOps, 400);
}

TEST(LossNormOps, TorchScriptRunsThemWithTheIRsTypes) {
  runs_them_with_the_irs_types("ts", test::loss_norm_ops_policy(), test::kLossNormOps, 150);
}

TEST(LossNormOps, PythonEagerRunsThemOnThProjectsPyTorch) {
  if (!test::venv_imports("torch")) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  python_eager_runs_them(test::loss_norm_ops_policy(), 120, true);
}

// torch.special's functions, selections, take_along_dim, the slice scatters,
// 3-d pools and grid sampling: LibTorch 1.13's eager and TorchScript, and
// PyTorch 2.x's eager, with the IR's types.
TEST(SelectSampleOps, EagerRunsThemWithTheIRsTypes) {
  runs_them_with_the_irs_types("eager", test::select_sample_ops_policy(), test::kSelectSampleOps, 400);
}

TEST(SelectSampleOps, TorchScriptRunsThemWithTheIRsTypes) {
  // Isolated: 1.13's profiling executor segfaulted on one of these programs as
  // they were first written (corpus/bugs/ts-sgn-pool3d-backward-segfault.dlf).
  runs_them_with_the_irs_types("ts", test::select_sample_ops_policy(), test::kSelectSampleOps, 150, false, true);
}

TEST(SelectSampleOps, PythonEagerRunsThemOnThProjectsPyTorch) {
  if (!test::venv_imports("torch")) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  python_eager_runs_them(test::select_sample_ops_policy(), 120, true);
}

// uint16/32/64 (torch2 programs): the type rules admit only what PyTorch 2.x's
// eager has kernels and promotions for, with the result dtypes it gives. A
// failure here after a PyTorch update: rerun scripts/probe_wide_unsigned.py.
TEST(WideUnsigned, PythonEagerRunsThemWithTheIRsTypes) {
  if (!test::venv_imports("torch")) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  python_eager_runs_them(test::wide_unsigned_policy(), 150, true);
}

}  // namespace dlfuzz
