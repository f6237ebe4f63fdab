#include "runners/distributed/rank_processes.h"

#include <memory>
#include <thread>

#include "generator/dlf.h"
#include "runners/distributed/dist_runner.h"
#include "runners/distributed/gloo_group.h"
#include "runners/worker_client.h"

namespace dlfuzz {

namespace {
// A backstop only: a rank stuck in a collective fails after the collective
// timeout, and the caller's own timeout ends this whole worker.
constexpr int kRankProcessTimeoutMs = 10 * 60 * 1000;

struct ProcessPool {
  int world = 0, timeout_ms = 0;
  std::unique_ptr<StoreServer> store;
  std::vector<std::unique_ptr<WorkerProcess>> ranks;
  void forget() {
    ranks.clear();  // kills the children
    store.reset();
    world = 0;
  }
};
}  // namespace

std::vector<RunResult> run_ranks_as_processes(const std::string& runner, const Program& p, const RunConfig& cfg) {
  static ProcessPool pool;
  int world = p.plan.world;
  if (pool.world != world || pool.timeout_ms != cfg.collective_timeout_ms) {
    pool.forget();
    try {
      pool.store = std::make_unique<StoreServer>(std::chrono::milliseconds(cfg.collective_timeout_ms));
    } catch (const std::exception& e) {
      return std::vector<RunResult>(world, failed_run(runner, Stage::setup, std::string("TCPStore: ") + e.what()));
    }
    // Started here, on the worker's main thread: a child dies with the thread
    // that started it, and the rank threads below end after every run.
    for (int r = 0; r < world; ++r) {
      pool.ranks.push_back(std::make_unique<WorkerProcess>(std::vector<std::string>{"/proc/self/exe", "worker"}, 0));
      if (!pool.ranks.back()->start()) {
        std::string why = pool.ranks.back()->start_error();
        pool.forget();
        return std::vector<RunResult>(world, failed_run(runner, Stage::setup, "rank process: " + why));
      }
    }
    pool.world = world;
    pool.timeout_ms = cfg.collective_timeout_ms;
  }
  WorkerRequest req;
  req.program = print_program(p);
  req.runners = {runner};
  req.warmup = cfg.warmup;
  req.timed_calls = cfg.timed_calls;
  req.backend = cfg.backend;
  req.world = world;
  req.store_port = pool.store->port();
  std::vector<RunResult> results(world);
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      WorkerRequest mine = req;
      mine.rank = r;
      results[r] = pool.ranks[r]->run(mine, kRankProcessTimeoutMs).at(0);
    });
  for (auto& t : threads) t.join();
  for (const auto& r : results)
    if (!r.ok()) {
      pool.forget();  // a collective may be left half done
      break;
    }
  return results;
}

RunResult run_rank_in_this_process(const std::string& runner, const Program& p, const RunConfig& cfg, int rank,
                                   int world, int store_port) {
  static struct {
    int port = 0, rank = -1, world = 0;
    std::unique_ptr<RankGroup> group;
  } mine;
  if (world != p.plan.world) return failed_run(runner, Stage::setup, "the program's world size is not the run's");
  if (!mine.group || mine.port != store_port || mine.rank != rank || mine.world != world) {
    mine.group.reset();
    try {
      mine.group = join_gloo_over_tcp(store_port, rank, world, std::chrono::milliseconds(cfg.collective_timeout_ms));
    } catch (const std::exception& e) {
      return failed_run(runner, Stage::collective, std::string("rendezvous: ") + e.what());
    }
    mine.port = store_port, mine.rank = rank, mine.world = world;
  }
  RunResult r = run_rank(runner, p, cfg, mine.group.get(), rank);
  if (!r.ok()) mine.group.reset();
  return r;
}

}  // namespace dlfuzz
