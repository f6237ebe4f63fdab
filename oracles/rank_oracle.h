// Rank consistency: under a data-parallel plan every rank holds a replica of
// the parameters, and after every step the replicas must be bitwise equal.
// A rank that drifts (a gradient shard reduced twice, a corrupted shard, a
// compiled path that is not deterministic across ranks) is a finding.
#pragma once
#include <optional>

#include "oracles/finding.h"
#include "runners/run_result.h"

namespace dlfuzz {

std::optional<Finding> check_rank_consistency(const RunResult& r);

}  // namespace dlfuzz
