#include "oracles/version_oracle.h"

#include <fmt/format.h>

namespace dlfuzz {

std::optional<Finding> check_version(const VersionSide& older, const VersionSide& newer) {
  if (!older.reference_ok || !newer.reference_ok) return std::nullopt;
  // A flaky side (a finding that did not reproduce on its rerun) neither agrees
  // nor disagrees with its eager: no verdict.
  if ((older.finding && older.finding->flaky) || (newer.finding && newer.finding->flaky)) return std::nullopt;
  bool old_bad = older.finding != nullptr, new_bad = newer.finding != nullptr;
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
