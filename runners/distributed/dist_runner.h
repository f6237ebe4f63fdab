// A runner over the ranks of a program with world > 1: W threads (or W
// processes, rank_processes.h), each with its own instance of the runner and
// a Gloo rank, each running the program on its shards; the results folded
// into one (outputs and losses of every rank, per-rank parameter digests for
// the rank-consistency oracle).
//
// Names it serves besides every runner's own:
//   RUNNER@1            the one-process reference of a training plan: a
//                       data-parallel plan's shards run in turn as
//                       micro-batches, gradients averaged; a tensor-parallel
//                       plan's params whole, its regions the identity
//   fault-dist-corrupt, fault-dist-wrong-op, fault-dist-no-average,
//   fault-dist-deadlock eager ranks with a fault planted in gradient sync
#pragma once
#include <string>
#include <vector>

#include "runners/distributed/rank_context.h"
#include "runners/runner.h"

namespace dlfuzz {

// Whether `runner` on p goes through run_distributed.
bool is_distributed_run(const std::string& runner, const Program& p);
RunResult run_distributed(const std::string& runner, const Program& p, const RunConfig& cfg);
// One rank of a distributed run over `group` (what each rank thread, or rank
// process, runs); its step digests in rank_digests[0].
RunResult run_rank(const std::string& runner, const Program& p, const RunConfig& cfg, RankGroup* group, int rank);
// "eager@1": a runner in one process: a data-parallel program's shards as
// micro-batches, or a tensor-parallel program with whole params.
bool is_one_process_runner(const std::string& runner);

}  // namespace dlfuzz
