#include "oracles/fake_prop_oracle.h"

#include <fmt/format.h>

namespace dlfuzz {

std::optional<Finding> check_fake_prop(const RunResult& ref, const RunResult& test) {
  if (!ref.ok() || test.fake_errors.empty()) return std::nullopt;
  const std::string& first = test.fake_errors.front();
  Finding f;
  f.oracle = "fake-prop";
  f.ref_runner = ref.runner;
  f.test_runner = test.runner;
  f.stage = "compile";
  f.error_text = "fell back to eager: " + normalize_error(first);
  f.detail = fmt::format("{} ran a frame uncompiled: Dynamo's FakeTensor propagation of {}{}", test.runner,
                         first.substr(0, 2000),
                         test.fake_errors.size() > 1 ? fmt::format(" (and {} more)", test.fake_errors.size() - 1) : "");
  if (!test.ok())
    f.detail += fmt::format("; then the run {} at {}: {}", status_name(test.status), stage_name(test.stage),
                            test.error.substr(0, test.error.find('\n')));
  return f;
}

}  // namespace dlfuzz
