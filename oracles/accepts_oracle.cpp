#include "oracles/accepts_oracle.h"

#include <fmt/format.h>

namespace dlfuzz {

std::optional<Finding> check_accepts_invalid(const RunResult& ref, const RunResult& test) {
  // A reference that crashed, hung or ran out of memory says nothing about the
  // program's validity: only an error it raised does.
  if (ref.status != RunStatus::exception || !test.ok()) return std::nullopt;
  Finding f;
  f.oracle = "accepts";
  f.ref_runner = ref.runner;
  f.test_runner = test.runner;
  f.stage = stage_name(ref.stage);
  f.error_text = "eager rejects: " + normalize_error(ref.error);
  f.detail = fmt::format("{} ran to the end; {} raised at {}: {}", test.runner, ref.runner, stage_name(ref.stage),
                         ref.error.substr(0, ref.error.find('\n')));
  return f;
}

}  // namespace dlfuzz
