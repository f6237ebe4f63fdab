// The explanation of a performance bug (oracles/perf_oracle.h), from the
// evidence its finding stored: the two paired estimates, the compiler's
// counters, and the profile diff of reference and compiled path (hottest ops
// and kernels by self time per call, side by side), with the Chrome traces.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace dlfuzz {

// A Markdown section ("## Performance" ...); "" when `evidence` is not an object.
std::string performance_markdown(const nlohmann::json& evidence, const std::string& ref_runner,
                                 const std::string& test_runner);

// One line: "1.52x (95% CI 1.49-1.55, 30 pairs; 1.50x again)"; "" without evidence.
std::string performance_summary(const nlohmann::json& evidence);

}  // namespace dlfuzz
