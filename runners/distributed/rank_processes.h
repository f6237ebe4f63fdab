// Ranks as processes (`--ranks processes`): the worker that got a distributed
// run serves a TCPStore on 127.0.0.1 and hands each rank to a `dlfuzz worker`
// child of its own, which joins a Gloo group through that store and runs its
// rank as a rank thread would. A rank that crashes takes only its process;
// the others fail in their next collective. The children are kept for the
// next run of the same world unless a rank failed, and die with the worker
// (PR_SET_PDEATHSIG), so no run leaves a process behind.
#pragma once
#include <string>
#include <vector>

#include "runners/runner.h"

namespace dlfuzz {

// In the parent: every rank's result, in rank order. The children are this
// executable (/proc/self/exe worker): call it from the dlfuzz binary.
std::vector<RunResult> run_ranks_as_processes(const std::string& runner, const Program& p, const RunConfig& cfg);

// In a child: this process is `rank` of `world`, meeting the others through
// the TCPStore at 127.0.0.1:store_port.
RunResult run_rank_in_this_process(const std::string& runner, const Program& p, const RunConfig& cfg, int rank,
                                   int world, int store_port);

}  // namespace dlfuzz
