#include "oracles/version_oracle.h"

#include <fmt/format.h>

namespace dlfuzz {

std::optional<Finding> check_version(const VersionSide& older, const VersionSide& newer) {
  if (!older.reference_ok || !newer.reference_ok) return std::nullopt;
  // A flaky finding proves nothing about either version.
  bool old_bad = older.finding && !older.finding->flaky, new_bad = newer.finding && !newer.finding->flaky;
  if (old_bad == new_bad) return std::nullopt;
  const Finding& f = new_bad ? *newer.finding : *older.finding;
  const char* what = new_bad ? "regression" : "fixed";
  Finding v;
  v.oracle = "version";
  v.ref_runner = older.runner;
  v.test_runner = newer.runner;
  v.stage = f.stage;
  // The signature keeps which way, and the oracle and error of the finding
  // that changed, so one regression over many programs is one bug.
  v.error_text = fmt::format("{}: {} {}", what, f.oracle, f.error_text);
  v.detail = new_bad ? fmt::format("regression: {} ({}) agrees with its eager, {} ({}) does not: {}", older.runner,
                                   older.version, newer.runner, newer.version, f.detail)
                     : fmt::format("fixed: {} ({}) differs from its eager: {}; {} ({}) agrees", older.runner,
                                   older.version, f.detail, newer.runner, newer.version);
  return v;
}

}  // namespace dlfuzz
