#include "runners/distributed/dist_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "oracles/perf_stats.h"
#include "runners/aten_types.h"
#include "runners/distributed/rank_context.h"
#include "runners/distributed/rank_processes.h"
#include "runners/distributed/rendezvous.h"
#include "runners/runner_spec.h"

namespace dlfuzz {

namespace {
const std::map<std::string, DistFault>& faults() {
  static const std::map<std::string, DistFault> f = {{"fault-dist-corrupt", DistFault::corrupt_shard},
                                                     {"fault-dist-wrong-op", DistFault::wrong_op},
                                                     {"fault-dist-no-average", DistFault::no_average},
                                                     {"fault-dist-deadlock", DistFault::deadlock}};
  return f;
}

// A tensor-parallel param's shards put back together along its shard dim,
// so it compares with the one-process reference's whole param.
HostTensor whole(const std::vector<RunResult>& ranks, std::vector<HostTensor> RunResult::*field, size_t k, int dim) {
  std::vector<at::Tensor> shards;
  for (const auto& r : ranks) shards.push_back(from_host((r.*field).at(k)));
  if (!shards[0].defined()) return {};
  return to_host(at::cat(shards, dim));
}

// Every rank's result folded into one: the first failing rank decides the
// status. Data parallel and explicit collectives: outputs and losses of all
// ranks, step-major like the reference. Tensor parallel: rank 0's outputs and
// losses (every rank computes the same), each sharded param and its gradient
// put back together.
RunResult fold(const std::string& name, const Program& p, const std::vector<RunResult>& ranks) {
  bool tp = p.plan.kind == PlanKind::tp;
  RunResult out = ranks.at(0);  // grads, params, versions, features: rank 0's
  out.runner = name;
  out.status = RunStatus::ok;
  out.stage = Stage::none;
  out.outputs.clear();
  out.losses.clear();
  out.rank_digests.clear();
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!ranks[r].ok() && out.ok()) {
      out.status = ranks[r].status;
      out.stage = ranks[r].stage;
      out.error = fmt::format("rank {}: {}", r, ranks[r].error);
    }
    out.run_ms = std::max(out.run_ms, ranks[r].run_ms);
    if (!tp || r == 0) out.outputs.insert(out.outputs.end(), ranks[r].outputs.begin(), ranks[r].outputs.end());
    out.rank_digests.push_back(ranks[r].rank_digests.empty() ? std::vector<std::string>{} : ranks[r].rank_digests[0]);
  }
  // A timed call lasts as long as its slowest rank; rank_skew is the slowest
  // rank's median over the fastest's (a rank that waits).
  bool timed = true;
  for (const auto& rr : ranks) timed = timed && !rr.call_ms.empty() && rr.call_ms.size() == ranks[0].call_ms.size();
  if (timed) {
    std::vector<double> medians;
    for (size_t i = 0; i < ranks[0].call_ms.size(); ++i)
      for (const auto& rr : ranks) out.call_ms[i] = std::max(out.call_ms[i], rr.call_ms[i]);
    // Time in collectives (a rank that waits for another waits there): the
    // largest share of a rank's step, and that rank's milliseconds per call.
    double share = 0, collective = 0;
    for (const auto& rr : ranks) {
      medians.push_back(median(rr.call_ms));
      auto it = rr.counters.find("collective_ms");
      if (it == rr.counters.end()) continue;
      double s = it->second / std::max(medians.back(), 1e-9);
      if (s >= share) share = s, collective = it->second;
    }
    std::sort(medians.begin(), medians.end());
    out.counters["rank_skew"] = medians.back() / std::max(medians.front(), 1e-9);
    out.counters["collective_ms"] = collective;
    out.counters["collective_share"] = std::min(share, 1.0);
  }
  size_t steps = ranks[0].losses.size();
  for (size_t s = 0; s < steps; ++s)
    for (const auto& rr : ranks)
      if (s < rr.losses.size() && (!tp || &rr == &ranks[0])) out.losses.push_back(rr.losses[s]);
  if (tp && out.ok()) {
    size_t k = 0;
    for (const auto& in : p.inputs) {
      if (in.kind != InputKind::param) continue;
      if (in.placement.shard_dim >= 0) {
        if (k < out.grads.size()) out.grads[k] = whole(ranks, &RunResult::grads, k, in.placement.shard_dim);
        out.params[k] = whole(ranks, &RunResult::params, k, in.placement.shard_dim);
      }
      ++k;
    }
  }
  if (!out.ok()) {
    out.outputs.clear(), out.losses.clear(), out.grads.clear(), out.params.clear();
  }
  return out;
}
}  // namespace

bool is_one_process_runner(const std::string& runner) {
  auto spec = parse_runner(runner);
  return spec && spec->one_process;
}

bool is_distributed_run(const std::string& runner, const Program& p) {
  return p.plan.world > 1 || is_one_process_runner(runner) || faults().count(runner);
}

namespace {
// The runner a name runs and the fault it plants: "eager@1" is eager,
// "fault-dist-corrupt" is eager with a corrupted shard.
std::string base_runner(const std::string& name) {
  if (faults().count(name)) return "eager";
  auto spec = parse_runner(name);
  if (!spec) return name;
  spec->one_process = false;
  return spec->name();
}
DistFault fault_of(const std::string& name) {
  auto it = faults().find(name);
  return it == faults().end() ? DistFault::none : it->second;
}
}  // namespace

RunResult run_rank(const std::string& name, const Program& p, const RunConfig& cfg, RankGroup* group, int rank) {
  RankContext ctx;
  TimedGroup timed(group, &ctx.collective_ms);
  ctx.group = group ? &timed : nullptr;
  ctx.rank = rank;
  ctx.world = p.plan.world;
  ctx.plan = p.plan.kind;
  ctx.fault = fault_of(name);
  RankScope scope(&ctx);
  std::string error;
  auto runner = make_runner(base_runner(name), &error);
  RunResult r = runner ? runner->run(p, cfg) : failed_run(name, Stage::setup, error);
  r.rank_digests = {ctx.step_digests};
  return r;
}

RunResult run_distributed(const std::string& name, const Program& p, const RunConfig& cfg) {
  int world = p.plan.world;
  if (faults().count(name) && !p.plan.data_parallel())
    return failed_run(name, Stage::setup, name + " needs a data-parallel training program with world > 1");
  if (is_one_process_runner(name)) {
    RankContext ctx;
    ctx.world = world;
    ctx.plan = p.plan.kind;
    ctx.micro_batches = p.plan.data_parallel() ? world : 1;
    RankScope scope(&ctx);
    std::string error;
    auto runner = make_runner(base_runner(name), &error);
    if (!runner) return failed_run(name, Stage::setup, error);
    RunResult r = runner->run(p, cfg);
    r.runner = name;
    return r;
  }
  if (cfg.rank_processes) {
    if (cfg.backend != "gloo")
      return failed_run(name, Stage::setup, "ranks as processes are Gloo ranks (--backend gloo)");
    return fold(name, p, run_ranks_as_processes(name, p, cfg));
  }
  // Connecting ranks costs tens of milliseconds: the groups of a world are
  // kept for the next run, unless a rank failed (a collective may be left
  // half done).
  static struct {
    int world = 0, timeout_ms = 0;
    std::string backend;
    std::unique_ptr<Rendezvous> rendezvous;
    // Groups outlive every rank's thread: a rank that finished early must not
    // close its connections under ranks still waiting in a collective.
    std::vector<std::unique_ptr<RankGroup>> groups;
    void forget() {
      groups.clear();
      rendezvous.reset();
      world = 0;
    }
  } pool;
  if (pool.world != world || pool.timeout_ms != cfg.collective_timeout_ms || pool.backend != cfg.backend) {
    pool.forget();
    try {
      pool.rendezvous = make_rendezvous(cfg.backend, world, std::chrono::milliseconds(cfg.collective_timeout_ms));
    } catch (const std::exception& e) {
      return failed_run(name, Stage::setup, e.what());
    }
    pool.groups.resize(world);
    pool.world = world;
    pool.backend = cfg.backend;
    pool.timeout_ms = cfg.collective_timeout_ms;
  }
  auto& groups = pool.groups;
  std::vector<RunResult> results(world);
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      try {
        if (!groups[r]) groups[r] = pool.rendezvous->join(r);
      } catch (const std::exception& e) {
        results[r] = failed_run(name, Stage::collective, std::string("rendezvous: ") + e.what());
        return;
      }
      results[r] = run_rank(name, p, cfg, groups[r].get(), r);
    });
  for (auto& t : threads) t.join();
  if (!std::all_of(results.begin(), results.end(), [](const RunResult& r) { return r.ok(); })) pool.forget();
  return fold(name, p, results);
}

}  // namespace dlfuzz
