// The Python runners over several ranks (runners/python/worker.py): each rank
// a process, Gloo over a TCPStore on 127.0.0.1. py-eager's folded results
// equal the C++ eager ranks' (same inputs formula, same collective and plan
// semantics), replicas agree step by step, torch.compile runs over the ranks,
// and no rank process outlives the worker.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "generator/dlf.h"
#include "generator/generator.h"
#include "oracles/numeric_oracle.h"
#include "oracles/rank_oracle.h"
#include "runners/executor.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

namespace {
bool have_python_torch() {
  static const bool ok = test::venv_imports("torch.distributed");
  return ok;
}

ExecutorOptions options() { return test::python_options(); }

using test::parse;

// Every collective and reduce op, on a sharded input and a replicated one.
const char* kCollectives =
    "dlfuzz 1 seed=7 policy=0 mode=infer device=cpu world=2 plan=none\n"
    "input %x0 : f32[2,4] shard(0) range(-2.0,2.0)\n"
    "input %x1 : i64[4] range(-5.0,5.0)\n"
    "%1 : f32[2,4] = all_reduce %x0, op=\"sum\"\n"
    "%2 : f32[4,4] = all_gather %x0, dim=0\n"
    "%3 : f32[2,2] = reduce_scatter %x0, dim=1, op=\"max\"\n"
    "%4 : f32[2,4] = broadcast %x0, src=1\n"
    "%5 : f32[2,4] = all_to_all %x0, dim=1\n"
    "%6 : f32[2,4] = all_reduce %x0, op=\"avg\"\n"
    "%7 : i64[4] = all_reduce %x1, op=\"min\"\n"
    "%8 : f32[2,4] = all_reduce %x0, op=\"product\"\n"
    "return %1, %2, %3, %4, %5, %6, %7, %8\n";

// A linear layer and its bias: the bias's 5 elements give ZeRO uneven slices
// over 2 ranks.
std::string train_program(const char* plan, const char* step) {
  return std::string("dlfuzz 1 seed=3 policy=0 mode=train device=cpu world=2 plan=") + plan +
         "\n"
         "input %x0 : f32[4,8] shard(0) range(-2.0,2.0)\n"
         "param %w0 : f32[5,8] range(-0.5,0.5)\n"
         "param %b0 : f32[5] range(-0.5,0.5)\n"
         "target %y0 : f32[4,5] shard(0) range(-1.0,1.0)\n"
         "%1 : f32[4,5] = linear %x0, %w0, bias=%b0\n"
         "%2 : f32[4,5] = tanh %1\n"
         "%3 : f32[] = mse_loss %2, %y0\n"
         "return %2\n"
         "loss %3\n" +
         step + "\n";
}

// py-eager over the ranks against the C++ eager ranks (and eager64 as the
// float64 arbiter), then the replicas' digests.
void expect_python_equals_cpp(Executor& ex, const Program& p, const std::string& what) {
  auto rs = ex.run(p, {"eager", "eager64", "py-eager"});
  const RunResult &cpp = rs[0], &fp64 = rs[1], &py = rs[2];
  if (!cpp.ok()) {
    // Debian's 1.13 Gloo dies with SIGFPE on an all_gather of an empty tensor
    // (pytorch#85234, fixed in the gloo of 2.x): a bug of the system under
    // test, not a difference between the runners.
    if (cpp.error.find("signal 8") != std::string::npos && py.ok()) return;
    EXPECT_FALSE(py.ok()) << what << ": C++ eager failed (" << cpp.error << "), py-eager did not";
    return;
  }
  ASSERT_TRUE(py.ok()) << what << ": " << py.error;
  EXPECT_EQ(py.outputs.size(), cpp.outputs.size()) << what << ": every rank's outputs";
  EXPECT_EQ(py.losses.size(), cpp.losses.size()) << what << ": every rank's losses";
  auto f = check_numeric(cpp, py, &fp64);
  EXPECT_FALSE(f) << what << ": " << (f ? f->detail : "");
  ASSERT_EQ(py.rank_digests.size(), 2u) << what;
  if (p.is_training()) {
    EXPECT_EQ(py.rank_digests[0].size(), static_cast<size_t>(p.train->steps)) << what;
    EXPECT_FALSE(check_rank_consistency(py)) << what << ": replicas drifted";
  }
}

int count_lines(const std::string& cmd) {
  FILE* f = popen((cmd + " | wc -l").c_str(), "r");
  int n = -1;
  if (f) {
    if (fscanf(f, "%d", &n) != 1) n = -1;
    pclose(f);
  }
  return n;
}

// The Python worker this test process started (its child), or -1. Other
// tests, run side by side by ctest -j, have workers and ranks of their own.
int python_worker_pid() {
  std::string cmd = "pgrep -P " + std::to_string(getpid()) + " -f '/runners/python/worker[.]py$'";
  FILE* f = popen(cmd.c_str(), "r");
  int pid = -1;
  if (f) {
    if (fscanf(f, "%d", &pid) != 1) pid = -1;
    pclose(f);
  }
  return pid;
}

// Rank processes of that worker: their command line names it as --parent.
// "worker[.]py": the pattern must not match the shell that runs pgrep.
int rank_processes(int worker) {
  return count_lines("pgrep -f 'worker[.]py --rank .* --parent " + std::to_string(worker) + " '");
}
}  // namespace

TEST(PythonDistributed, PythonRunnersAreSupportedOverRanks) {
  Program p = parse(kCollectives);
  EXPECT_TRUE(runner_spec("py-eager").supports(p));
  EXPECT_TRUE(runner_spec("inductor").supports(p));
  EXPECT_FALSE(runner_spec("aoti").supports(p)) << "an exported program calls no collectives";
  EXPECT_EQ(runner_spec("inductor").reference(p), "py-eager") << "eager vs compiled, per rank";
}

// JSON has no NaN: a NaN loss once made the worker's reply unreadable (and the
// executor wait for ever). It travels as null and comes back as NaN.
TEST(PythonDistributed, NanLossesComeBackAsNan) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  Executor ex(options());
  for (int world : {1, 2}) {
    Program p = parse("dlfuzz 1 seed=1 policy=0 mode=train device=cpu world=" + std::to_string(world) +
                      " plan=" + (world == 1 ? "none" : "dp") +
                      "\n"
                      "input %x0 : f32[2,3] shard(0) range(-2.0,2.0)\n"
                      "param %w0 : f32[3] range(-0.5,0.5)\n"
                      "%1 : f32[2,3] = mul %x0, %w0\n"
                      "%2 : f32[2,3] = log %1\n"
                      "%3 : f32[] = sum %2\n"
                      "return %2\n"
                      "loss %3\n"
                      "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=2\n");
    for (const RunResult& r : ex.run(p, {"eager", "py-eager"})) {
      ASSERT_TRUE(r.ok()) << r.runner << " at world " << world << ": " << r.error;
      ASSERT_FALSE(r.losses.empty()) << r.runner;
      EXPECT_TRUE(std::isnan(r.losses[0])) << r.runner << " at world " << world << ": " << r.losses[0];
    }
  }
}

TEST(PythonDistributed, EagerRanksEqualTheCppRanks) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  Executor ex(options());
  expect_python_equals_cpp(ex, parse(kCollectives), "collectives");
  expect_python_equals_cpp(ex, parse(train_program("dp", "step sgd lr=0.1 momentum=0.9 weight_decay=0.0 steps=3")),
                           "dp sgd");
  expect_python_equals_cpp(ex, parse(train_program("zero", "step adam lr=0.01 momentum=0.0 weight_decay=0.1 steps=2")),
                           "zero adam");
  // RMSprop and Adagrad: LibTorch's C++ optimizers and torch.optim step alike,
  // over whole params (dp) and over ZeRO's uneven slices.
  expect_python_equals_cpp(ex, parse(train_program("dp", "step rmsprop lr=0.01 momentum=0.9 weight_decay=0.1 steps=2")),
                           "dp rmsprop");
  expect_python_equals_cpp(ex, parse(train_program("zero", "step adagrad lr=0.1 momentum=0.0 weight_decay=0.1 steps=2")),
                           "zero adagrad");
  // The step's flags: AMSGrad and Nesterov in both; foreach is torch.optim's alone.
  expect_python_equals_cpp(
      ex, parse(train_program("dp", "step adam lr=0.01 momentum=0.0 weight_decay=0.1 steps=3 amsgrad=true foreach=true")),
      "dp adam amsgrad");
  expect_python_equals_cpp(
      ex, parse(train_program("zero", "step sgd lr=0.1 momentum=0.9 weight_decay=0.0 steps=2 nesterov=true")),
      "zero sgd nesterov");
  // Rank 1's shard of w0 gets an all-zero gradient (the loss reads rank 0's
  // columns only): like every gradient it is kept (none is dropped by value),
  // so weight decay shrinks that shard on both sides.
  expect_python_equals_cpp(ex,
                           parse("dlfuzz 1 seed=5 policy=0 mode=train device=cpu world=2 plan=tp\n"
                                 "input %x0 : f32[4,6] range(-2.0,2.0)\n"
                                 "param %w0 : f32[3,6] shard(0) range(-0.5,0.5)\n"
                                 "target %y0 : f32[4,3] range(-1.0,1.0)\n"
                                 "%1 : f32[4,6] = tp_copy %x0\n"
                                 "%2 : f32[4,3] = linear %1, %w0\n"
                                 "%3 : f32[4,6] = tp_gather %2, dim=1\n"
                                 "%4 : f32[4,3] = narrow %3, dim=1, start=0, length=3\n"
                                 "%5 : f32[] = mse_loss %4, %y0\n"
                                 "return %4\n"
                                 "loss %5\n"
                                 "step sgd lr=0.1 momentum=0.0 weight_decay=0.1 steps=2\n"),
                           "tp shard with an all-zero gradient");
  // Generated programs at world 2: the first training ones of each plan (dp,
  // zero, tp; some with uneven shards) and
  // inference ones with explicit collectives (seed 28: an output that is a
  // view of a param, which the step updates after the output is taken).
  // No NaN or Inf inputs: this compares the two runtimes' ranks, and 1.13 and
  // 2.x differ on NaN (1.13's softshrink makes a NaN 0: pytorch#138385, fixed
  // in 2.6), which is the version oracle's business.
  GenPolicy policy = policy_for_world(2);
  policy.p_special_values = 0;
  const int kTrain = 6, kInfer = 12;
  int dp = 0, zero = 0, tp = 0, infer = 0, uneven = 0;
  for (uint64_t seed = 0; seed < 400 && (dp < kTrain || zero < kTrain || tp < kTrain || infer < kInfer); ++seed) {
    Program p = generate_program(policy, seed);
    int& n = !p.is_training() ? infer : p.plan.kind == PlanKind::zero ? zero : p.plan.kind == PlanKind::tp ? tp : dp;
    if (n >= (p.is_training() ? kTrain : kInfer)) continue;
    std::string text = print_program(p);
    bool collectives = text.find("= all_") != std::string::npos || text.find("= broadcast") != std::string::npos ||
                       text.find("= reduce_scatter") != std::string::npos;
    if (!p.is_training() && !collectives) continue;
    ++n;
    for (const auto& in : p.inputs) uneven += in.placement.whole > 0;
    expect_python_equals_cpp(ex, p, "seed " + std::to_string(seed) + " plan " + plan_name(p.plan.kind));
  }
  EXPECT_EQ(dp + zero + tp + infer, 3 * kTrain + kInfer);
  EXPECT_GE(uneven, 1) << "uneven shards among the data-parallel programs";
}

// Timed calls over ranks split into collectives and compute, as the C++
// ranks do (Distributed.TimedStepsSayHowMuchIsCollectives).
TEST(PythonDistributed, TimedStepsSayHowMuchIsCollectives) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  ExecutorOptions o = options();
  o.timed_calls = 5;
  Executor ex(o);
  auto rs = ex.run(parse(kCollectives), {"py-eager"});
  ASSERT_TRUE(rs[0].ok()) << rs[0].error;
  ASSERT_EQ(rs[0].call_ms.size(), 5u);
  EXPECT_GT(rs[0].counters["collective_ms"], 0);
  EXPECT_GT(rs[0].counters["collective_share"], 0);
  EXPECT_LE(rs[0].counters["collective_share"], 1);
  EXPECT_GE(rs[0].counters["rank_skew"], 1);
  // Compiled, the collectives are traced into the graph, out of the clock
  // around dlfuzz's collective calls: the profiler counts them.
  auto compiled = ex.run(parse(kCollectives), {"py-eager", "aot-eager"});
  ASSERT_TRUE(compiled[1].ok()) << compiled[1].error;
  EXPECT_GT(compiled[1].counters["collective_ms"], 0);
  EXPECT_GT(compiled[1].counters["collective_share"], 0);
  EXPECT_LE(compiled[1].counters["collective_share"], 1);
}

TEST(PythonDistributed, InductorRunsOverRanksAndLeavesNoProcessBehind) {
  if (!have_python_torch()) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  int worker = -1;
  {
    Executor ex(options());
    Program p = parse(train_program("dp", "step sgd lr=0.1 momentum=0.9 weight_decay=0.0 steps=2"));
    auto rs = ex.run(p, {"py-eager", "py-eager64", "inductor"});
    ASSERT_TRUE(rs[0].ok()) << rs[0].error;
    ASSERT_TRUE(rs[2].ok()) << rs[2].error;
    auto f = check_numeric(rs[0], rs[2], &rs[1]);
    EXPECT_FALSE(f) << (f ? f->detail : "");
    EXPECT_FALSE(check_rank_consistency(rs[2]));
    worker = python_worker_pid();
    ASSERT_GT(worker, 0);
    EXPECT_EQ(rank_processes(worker), 2) << "the ranks are kept for the next program";
  }
  // The executor killed its worker: the ranks die with it (PR_SET_PDEATHSIG).
  int left = -1;
  for (int i = 0; i < 50 && left != 0; ++i) {
    left = rank_processes(worker);
    if (left != 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(left, 0);
}

}  // namespace dlfuzz
