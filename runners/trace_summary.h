// A profile of timed calls from a Chrome trace (the LibTorch profiler's
// RecordProfile writes one): self time per op, the hottest first, in the shape
// the Python worker's torch.profiler summary has (RunResult::profile), so the
// timing oracle and the report read both alike. No LibTorch here.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace dlfuzz {

// {"ops": [[name, self_ms per call, count per call], ...] hottest first (at
// most `top`)}; self time is an event's duration less that of the events it
// encloses on its thread. {"ops": []} when the text is not a trace.
nlohmann::json summarize_chrome_trace(const std::string& trace_json, int calls, size_t top = 12);

}  // namespace dlfuzz
