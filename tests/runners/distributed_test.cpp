// Programs over several ranks: collectives compute what torch.distributed
// defines, every planted fault in gradient synchronisation is caught by the
// oracle meant for it, and correct runs raise none (eager ranks equal the
// one-process run: micro-batches for data parallel, whole params for tensor
// parallel; replicas stay bitwise equal).
#include <gtest/gtest.h>

#include <cstdlib>

#include "generator/dlf.h"
#include "generator/generator.h"
#include "oracles/numeric_oracle.h"
#include "oracles/rank_oracle.h"
#include "oracles/status_oracle.h"
#include "runners/distributed/dist_runner.h"
#include "runners/executor.h"
#include "runners/input_builder.h"
#include "runners/run_result.h"
#include "tests/parse_program.h"

namespace dlfuzz {

namespace {
using test::parse;

at::Tensor host_to_tensor(const HostTensor& h) {
  std::vector<double> v;
  for (int64_t i = 0; i < h.numel(); ++i) v.push_back(h.at(i));
  return at::tensor(v, at::kDouble).reshape(h.shape);
}

const char* kCollectives =
    "dlfuzz 1 seed=7 policy=0 mode=infer device=cpu world=3 plan=none\n"
    "input %x0 : f32[3,3] shard(0) range(-2.0,2.0)\n"
    "%1 : f32[3,3] = all_reduce %x0, op=\"sum\"\n"
    "%2 : f32[9,3] = all_gather %x0, dim=0\n"
    "%3 : f32[3,1] = reduce_scatter %x0, dim=1, op=\"max\"\n"
    "%4 : f32[3,3] = broadcast %x0, src=2\n"
    "%5 : f32[3,3] = all_to_all %x0, dim=0\n"
    "%6 : f32[3,3] = all_reduce %x0, op=\"avg\"\n"
    "return %1, %2, %3, %4, %5, %6\n";

// A data-parallel training step: linear, tanh, MSE, SGD with momentum.
std::string dp_program(const char* plan) {
  return std::string("dlfuzz 1 seed=3 policy=0 mode=train device=cpu world=2 plan=") + plan +
         "\n"
         "input %x0 : f32[4,8] shard(0) range(-2.0,2.0)\n"
         "param %w0 : f32[5,8] range(-0.5,0.5)\n"
         "target %y0 : f32[4,5] shard(0) range(-1.0,1.0)\n"
         "%1 : f32[4,5] = linear %x0, %w0\n"
         "%2 : f32[4,5] = tanh %1\n"
         "%3 : f32[] = mse_loss %2, %y0\n"
         "return %2\n"
         "loss %3\n"
         "step sgd lr=0.1 momentum=0.9 weight_decay=0.0 steps=3\n";
}

ExecutorOptions options() {
  ExecutorOptions o;
  o.dlfuzz_binary = DLFUZZ_BINARY;
  o.timeout_ms = 60000;
  o.warmup = 1;
  return o;
}
}  // namespace

TEST(Distributed, CollectivesMatchTheirDefinitions) {
  Program p = parse(kCollectives);
  const int world = 3;
  std::vector<at::Tensor> x;
  for (int r = 0; r < world; ++r) x.push_back(build_input(p, 0, false, r, world).to(at::kDouble));
  for (const char* runner : {"eager", "ts"}) {
    RunResult res = run_distributed(runner, p, RunConfig{});
    ASSERT_TRUE(res.ok()) << runner << ": " << res.error;
    ASSERT_EQ(res.outputs.size(), 6u * world) << "every rank's outputs, in rank order";
    for (int r = 0; r < world; ++r) {
      auto out = [&](int i) { return host_to_tensor(res.outputs[r * 6 + i]); };
      at::Tensor sum = x[0] + x[1] + x[2], max = at::maximum(at::maximum(x[0], x[1]), x[2]);
      std::vector<at::Tensor> to_me;
      for (int j = 0; j < world; ++j) to_me.push_back(x[j].chunk(world, 0)[r]);
      EXPECT_TRUE(at::allclose(out(0), sum, 1e-6, 1e-6)) << runner << " all_reduce sum, rank " << r;
      EXPECT_TRUE(at::allclose(out(1), at::cat(x, 0))) << runner << " all_gather, rank " << r;
      EXPECT_TRUE(at::allclose(out(2), max.chunk(world, 1)[r])) << runner << " reduce_scatter max, rank " << r;
      EXPECT_TRUE(at::allclose(out(3), x[2])) << runner << " broadcast from rank 2, rank " << r;
      EXPECT_TRUE(at::allclose(out(4), at::cat(to_me, 0))) << runner << " all_to_all, rank " << r;
      EXPECT_TRUE(at::allclose(out(5), sum / world, 1e-6, 1e-6)) << runner << " all_reduce avg, rank " << r;
    }
  }
}

// Timed steps over ranks split into collectives and compute: the collectives
// of kCollectives take part of every rank's step, never more than all of it.
TEST(Distributed, TimedStepsSayHowMuchIsCollectives) {
  Program p = parse(kCollectives);
  RunConfig cfg;
  cfg.timed_calls = 5;
  RunResult res = run_distributed("eager", p, cfg);
  ASSERT_TRUE(res.ok()) << res.error;
  ASSERT_EQ(res.call_ms.size(), 5u);
  EXPECT_GT(res.counters["collective_ms"], 0);
  EXPECT_GT(res.counters["collective_share"], 0);
  EXPECT_LE(res.counters["collective_share"], 1);
  EXPECT_GE(res.counters["rank_skew"], 1);
}

TEST(Distributed, PlantedFaultsAreCaughtByTheRightOracle) {
  for (const char* plan : {"dp", "zero"}) {
    Program p = parse(dp_program(plan));
    Executor ex(options());
    auto rs = ex.run(p, {"eager@1", "eager64@1", "eager", "fault-dist-corrupt", "fault-dist-wrong-op",
                         "fault-dist-no-average", "fault-dist-deadlock"});
    const RunResult &ref = rs[0], &fp64 = rs[1], &eager = rs[2];
    ASSERT_TRUE(ref.ok()) << ref.error;
    ASSERT_TRUE(eager.ok()) << eager.error;
    ASSERT_EQ(eager.rank_digests.size(), 2u);
    EXPECT_FALSE(check_rank_consistency(eager)) << plan;
    EXPECT_FALSE(check_numeric(ref, eager, &fp64)) << plan << ": 2 ranks equal the one-process run";

    // A corrupted gradient shard on rank 1: under DDP its replica drifts
    // (rank oracle); under ZeRO the corrupted slice is gathered by every rank,
    // so the replicas agree and the values differ from the reference.
    const RunResult& corrupt = rs[3];
    ASSERT_TRUE(corrupt.ok()) << corrupt.error;
    if (std::string(plan) == "dp") {
      auto f = check_rank_consistency(corrupt);
      ASSERT_TRUE(f) << plan;
      EXPECT_EQ(f->oracle, "rank");
    } else {
      EXPECT_FALSE(check_rank_consistency(corrupt));
      EXPECT_TRUE(check_numeric(ref, corrupt, &fp64)) << plan;
    }
    for (int i : {4, 5}) {  // wrong reduce op, no averaging: consistent, but not the full-batch step
      ASSERT_TRUE(rs[i].ok()) << rs[i].error;
      EXPECT_FALSE(check_rank_consistency(rs[i])) << rs[i].runner;
      auto f = check_numeric(ref, rs[i], &fp64);
      ASSERT_TRUE(f) << plan << " " << rs[i].runner;
      EXPECT_EQ(f->oracle, "numeric");
    }
    const RunResult& hang = rs[6];  // rank 0 skips a collective: the others time out
    EXPECT_EQ(hang.status, RunStatus::exception) << hang.error;
    EXPECT_EQ(hang.stage, Stage::collective);
    EXPECT_NE(hang.error.find("Timed out"), std::string::npos) << hang.error;
    auto f = check_status(ref, hang);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->oracle, "status");
  }
}

TEST(Distributed, EagerRanksEqualTheOneProcessRunOverManyPrograms) {
  Executor ex(options());
  int checked = 0, tensor_parallel = 0, uneven = 0;
  for (int world : {2, 4}) {
    GenPolicy policy = policy_for_world(world);
    // At world 4, on until three programs had uneven shards too (how many of
    // the first 40 do depends on what else the generator draws).
    auto enough = [&] { return checked >= (world == 2 ? 20 : 40) && (world == 2 || uneven >= 3); };
    for (uint64_t seed = 0; !enough() && seed < 400; ++seed) {
      Program p = generate_program(policy, seed);
      if (!p.is_training()) continue;
      auto rs = ex.run(p, {"eager@1", "eager64@1", "eager"});
      if (!rs[0].ok()) continue;  // a program eager rejects is skipped by campaigns too
      ++checked;
      tensor_parallel += p.plan.kind == PlanKind::tp;
      uneven +=
          std::any_of(p.inputs.begin(), p.inputs.end(), [](const InputDecl& in) { return in.placement.whole > 0; });
      ASSERT_TRUE(rs[2].ok()) << "world " << world << " seed " << seed << ": " << rs[2].error;
      EXPECT_FALSE(check_rank_consistency(rs[2])) << "world " << world << " seed " << seed;
      auto f = check_numeric(rs[0], rs[2], &rs[1]);
      EXPECT_FALSE(f) << "world " << world << " seed " << seed << ": " << (f ? f->detail : "");
    }
  }
  EXPECT_GE(checked, 30);
  EXPECT_GE(tensor_parallel, 8);
  EXPECT_GE(uneven, 3);
}

// Megatron's MLP over 2 ranks: a replicated scale in front (its gradient needs
// tp_copy's all-reduce), a column-parallel linear, a row-parallel one, the
// reduction. Every TorchScript path's ranks equal the whole program in one
// process, and the replicated parameter stays bitwise equal across ranks.
// Without tp_copy's backward all-reduce w0's gradient would be one rank's part.
TEST(Distributed, TensorParallelRanksEqualTheWholeProgram) {
  Program p = parse(
      "dlfuzz 1 seed=3 policy=0 mode=train device=cpu world=2 plan=tp\n"
      "input %x0 : f32[4,6] range(-2.0,2.0)\n"
      "param %w0 : f32[6] range(0.5,1.5)\n"
      "param %w1 : f32[3,6] shard(0) range(-0.5,0.5)\n"
      "param %w2 : f32[3] shard(0) range(-0.5,0.5)\n"
      "param %w3 : f32[5,3] shard(1) range(-0.5,0.5)\n"
      "target %y0 : f32[4,5] range(-1.0,1.0)\n"
      "%1 : f32[4,6] = mul %x0, %w0\n"
      "%2 : f32[4,6] = tp_copy %1\n"
      "%3 : f32[4,3] = linear %2, %w1, bias=%w2\n"
      "%4 : f32[4,3] = tanh %3\n"
      "%5 : f32[4,5] = linear %4, %w3\n"
      "%6 : f32[4,5] = tp_reduce %5\n"
      "%7 : f32[] = mse_loss %6, %y0\n"
      "return %6\n"
      "loss %7\n"
      "step adam lr=0.01 momentum=0.0 weight_decay=0.01 steps=3\n");
  ASSERT_EQ(runner_spec("ts").reference(p), "eager@1");
  Executor ex(options());
  auto rs = ex.run(p, {"eager@1", "eager64@1", "eager", "ts", "ts-nnc", "ts-legacy"});
  ASSERT_TRUE(rs[0].ok()) << rs[0].error;
  ASSERT_EQ(rs[0].params.at(1).shape, (Shape{6, 6})) << "the reference holds the whole column-parallel weight";
  for (size_t i = 2; i < rs.size(); ++i) {
    ASSERT_TRUE(rs[i].ok()) << rs[i].runner << ": " << rs[i].error;
    EXPECT_EQ(rs[i].params.at(3).shape, (Shape{5, 6})) << rs[i].runner << ": shards put back together";
    EXPECT_EQ(rs[i].losses.size(), 3u) << rs[i].runner << ": one replicated loss per step";
    EXPECT_FALSE(check_rank_consistency(rs[i])) << rs[i].runner;
    auto f = check_numeric(rs[0], rs[i], &rs[1]);
    EXPECT_FALSE(f) << rs[i].runner << ": " << (f ? f->detail : "");
  }
  // tp_gather's backward: each rank keeps its chunk of the gathered gradient.
  Program gather = parse(
      "dlfuzz 1 seed=4 policy=0 mode=train device=cpu world=2 plan=tp\n"
      "input %x0 : f32[4,6] range(-2.0,2.0)\n"
      "param %w0 : f32[3,6] shard(0) range(-0.5,0.5)\n"
      "target %y0 : f32[4,6] range(-1.0,1.0)\n"
      "%1 : f32[4,6] = tp_copy %x0\n"
      "%2 : f32[4,3] = linear %1, %w0\n"
      "%3 : f32[4,6] = tp_gather %2, dim=1\n"
      "%4 : f32[] = l1_loss %3, %y0\n"
      "return %3\n"
      "loss %4\n"
      "step sgd lr=0.1 momentum=0.9 weight_decay=0.0 steps=2\n");
  auto gs = ex.run(gather, {"eager@1", "eager64@1", "eager", "ts"});
  for (size_t i = 2; i < gs.size(); ++i) {
    ASSERT_TRUE(gs[i].ok()) << gs[i].runner << ": " << gs[i].error;
    auto f = check_numeric(gs[0], gs[i], &gs[1]);
    EXPECT_FALSE(f) << gs[i].runner << ": " << (f ? f->detail : "");
  }
}

// A batch of 7 rows over 2 ranks (4 + 3), under DDP and ZeRO: each rank runs
// its own size, the ranks equal the one-process run over the same two
// micro-batches, and the outputs are the ranks' in order (4 rows, then 3).
TEST(Distributed, UnevenShardsRunTheirOwnSizes) {
  for (const char* plan : {"dp", "zero"}) {
    std::string text = dp_program(plan);
    for (const char* from : {"f32[4,8] shard(0)", "f32[4,5] shard(0)"}) {
      std::string to = std::string(from).substr(0, std::string(from).size() - 1) + ",7)";
      text.replace(text.find(from), std::string(from).size(), to);
    }
    Program p = parse(text);
    ASSERT_EQ(p.inputs[0].placement.whole, 7);
    Executor ex(options());
    auto rs = ex.run(p, {"eager@1", "eager64@1", "eager", "ts"});
    ASSERT_TRUE(rs[0].ok()) << rs[0].error;
    ASSERT_EQ(rs[0].outputs.size(), 2u);
    EXPECT_EQ(rs[0].outputs[1].shape, (Shape{3, 5})) << "the second micro-batch has 3 rows";
    for (size_t i = 2; i < rs.size(); ++i) {
      ASSERT_TRUE(rs[i].ok()) << plan << " " << rs[i].runner << ": " << rs[i].error;
      EXPECT_EQ(rs[i].outputs.at(0).shape, (Shape{4, 5}));
      EXPECT_EQ(rs[i].outputs.at(1).shape, (Shape{3, 5}));
      EXPECT_FALSE(check_rank_consistency(rs[i])) << plan << " " << rs[i].runner;
      auto f = check_numeric(rs[0], rs[i], &rs[1]);
      EXPECT_FALSE(f) << plan << " " << rs[i].runner << ": " << (f ? f->detail : "");
    }
  }
}

// Ranks as processes (TCPStore): the same bits as ranks as threads, the
// planted faults caught the same way (a deadlocked rank process times out in
// its collective), and no rank process left once the executor is gone.
TEST(Distributed, RanksAsProcessesEqualRanksAsThreads) {
  Program p = parse(dp_program("dp"));
  std::vector<std::string> runners = {"eager@1", "eager64@1", "eager", "ts"};
  std::vector<RunResult> threads = Executor(options()).run(p, runners);
  std::vector<RunResult> procs, faults;
  {
    ExecutorOptions o = options();
    o.rank_processes = true;
    Executor ex(o);
    procs = ex.run(p, runners);
    EXPECT_EQ(std::system("pgrep -f '^/proc/self/exe worker' >/dev/null"), 0) << "rank processes are kept";
    faults = ex.run(p, {"fault-dist-corrupt", "fault-dist-deadlock"});
  }
  for (size_t i : {2, 3}) {
    ASSERT_TRUE(procs[i].ok()) << procs[i].runner << ": " << procs[i].error;
    EXPECT_EQ(procs[i].rank_digests, threads[i].rank_digests) << procs[i].runner;
    EXPECT_EQ(procs[i].losses, threads[i].losses) << procs[i].runner;
    EXPECT_FALSE(check_numeric(procs[0], procs[i], &procs[1])) << procs[i].runner;
  }
  auto f = check_rank_consistency(faults[0]);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->oracle, "rank");
  EXPECT_EQ(faults[1].stage, Stage::collective) << faults[1].error;
  EXPECT_NE(faults[1].error.find("Timed out"), std::string::npos) << faults[1].error;
  EXPECT_NE(std::system("pgrep -f '^/proc/self/exe worker' >/dev/null"), 0) << "no rank process left behind";
}

TEST(Distributed, WorldAboveOneWithoutADataParallelPlanHasNoOneProcessReference) {
  Program p = parse(kCollectives);
  EXPECT_EQ(runner_spec("ts").reference(p), "eager") << "explicit collectives: the eager ranks are the reference";
  EXPECT_FALSE(runner_spec("fault-dist-corrupt").supports(p));
  EXPECT_TRUE(runner_spec("inductor").supports(p)) << "Python runners run their ranks as processes";
  Program dp = parse(dp_program("dp"));
  EXPECT_EQ(runner_spec("ts-nnc").reference(dp), "eager@1");
  EXPECT_EQ(runner_spec("ts-nnc").fp64_reference(dp), "eager64@1");
}

// NCCL ranks: on a machine with GPUs the collectives compute what they should;
// without one (CI) the run fails at setup with a message saying so.
TEST(Distributed, NcclRanksRunOrFailClearlyWithoutEnoughGpus) {
  Program p = parse(
      "dlfuzz 1 seed=7 policy=0 mode=infer device=cpu world=2 plan=none\n"
      "input %x0 : f32[2,4] shard(0) range(-2.0,2.0)\n"
      "%1 : f32[2,4] = all_reduce %x0, op=\"sum\"\n"
      "%2 : f32[4,4] = all_gather %x0, dim=0\n"
      "%3 : f32[2,4] = broadcast %x0, src=1\n"
      "return %1, %2, %3\n");
  RunConfig cfg;
  cfg.backend = "nccl";
  RunResult nccl = run_distributed("eager", p, cfg);
  if (!nccl.ok()) {
    EXPECT_EQ(nccl.stage, Stage::setup) << nccl.error;
    bool clear = nccl.error.find("NCCL needs a CUDA device") != std::string::npos ||
                 nccl.error.find("needs 2 GPUs") != std::string::npos ||
                 nccl.error.find("has no NCCL") != std::string::npos;
    EXPECT_TRUE(clear) << nccl.error;
    GTEST_SKIP() << "no NCCL run here: " << nccl.error;
  }
  RunResult gloo = run_distributed("eager", p, RunConfig{});
  ASSERT_TRUE(gloo.ok()) << gloo.error;
  ASSERT_EQ(nccl.outputs.size(), gloo.outputs.size());
  for (size_t i = 0; i < gloo.outputs.size(); ++i)
    EXPECT_TRUE(at::allclose(host_to_tensor(nccl.outputs[i]), host_to_tensor(gloo.outputs[i]), 1e-6, 1e-6)) << i;
}

}  // namespace dlfuzz
