// Accepts-invalid: the eager reference rejects the program with an error and
// the path under test runs it to the end. Users report these (a compiled model
// that silently takes a shape or dtype eager refuses); a class of its own,
// apart from status findings, because the program itself is invalid.
#pragma once
#include <optional>

#include "oracles/finding.h"
#include "runners/run_result.h"

namespace dlfuzz {

// nullopt unless ref raised (status exception) and test is ok.
std::optional<Finding> check_accepts_invalid(const RunResult& ref, const RunResult& test);

}  // namespace dlfuzz
