// Status oracle: one side raises, crashes, hangs or runs out of memory and the
// other does not.
#pragma once
#include <optional>

#include "oracles/finding.h"
#include "runners/run_result.h"

namespace dlfuzz {

std::optional<Finding> check_status(const RunResult& ref, const RunResult& test);

}  // namespace dlfuzz
