#include "oracles/status_oracle.h"

#include <fmt/format.h>

namespace dlfuzz {

std::optional<Finding> check_status(const RunResult& ref, const RunResult& test) {
  if (ref.ok() == test.ok()) return std::nullopt;
  const RunResult& failed = test.ok() ? ref : test;
  Finding f;
  f.oracle = "status";
  f.ref_runner = ref.runner;
  f.test_runner = test.runner;
  f.stage = stage_name(failed.stage);
  f.error_text = std::string(status_name(failed.status)) + ": " + normalize_error(failed.error);
  f.detail =
      fmt::format("{} {} at {} ({} was ok): {}", failed.runner, status_name(failed.status), stage_name(failed.stage),
                  test.ok() ? test.runner : ref.runner,
                  normalize_error(failed.error) == normalize_error(failed.error.substr(0, failed.error.find('\n')))
                      ? failed.error.substr(0, failed.error.find('\n'))
                      : failed.error.substr(0, 2000));
  return f;
}

}  // namespace dlfuzz
