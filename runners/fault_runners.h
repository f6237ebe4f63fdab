// Runners with planted faults, for testing the harness itself (oracles,
// isolation, the store): never part of a default campaign.
//   fault-wrong-value     eager, with one output element changed
//   fault-compile-error   raises at its compile stage
//   fault-segv            dereferences null (SIGSEGV)
//   fault-hang            never returns
//   fault-oom             allocates without bound
//   fault-reorder         eager, with each float output recomputed as in another
//                         summation order (legitimate noise: must not be flagged)
//   fault-slow-20/-50     eager, each timed call (forward, and backward for
//                         training) spinning 20% / 50% of its own time more: a
//                         planted performance regression for the timing oracle
#pragma once
#include <memory>
#include <string>

#include "runners/runner.h"

namespace dlfuzz {

std::unique_ptr<Runner> make_fault_runner(const std::string& name);

}  // namespace dlfuzz
