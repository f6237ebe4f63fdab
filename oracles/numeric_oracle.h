// Numeric oracle: compares a test run's outputs, losses, gradients and updated
// parameters with the reference run's, as PyTorch's own accuracy checker does:
// dtype-aware tolerances; integers and bools exact; shape and dtype must match;
// NaN/Inf positions must match; a float mismatch is arbitrated against the
// float64 reference — the test passes if its RMSE to float64 is at most
// `multiplier` x the reference's RMSE plus atol/10.
#pragma once
#include <optional>

#include "oracles/finding.h"
#include "runners/run_result.h"

namespace dlfuzz {

struct NumericOptions {
  double multiplier = 2.0;
};

// Compare one tensor; "" if they agree, else what differs.
std::string compare_tensor(const HostTensor& ref, const HostTensor& test, const HostTensor* fp64,
                           const NumericOptions& opt = {});

// Both runs must have succeeded; nullopt when they agree.
std::optional<Finding> check_numeric(const RunResult& ref, const RunResult& test, const RunResult* fp64,
                                     const NumericOptions& opt = {});

}  // namespace dlfuzz
