// One program through the reference runners and the runners under test, judged
// by the oracles (oracles/Oracles.def). Which references a runner has comes from
// the runner table (runners/runner_spec.h). Shared by `dlfuzz run`, `fuzz`,
// `gate`, the libFuzzer target and the benches.
#pragma once
#include <string>
#include <vector>

#include "oracles/finding.h"
#include "oracles/oracle_table.h"
#include "oracles/version_oracle.h"
#include "runners/executor.h"

namespace dlfuzz {

// A reference runner that failed on the program: the program is invalid for
// this PyTorch (or eager itself has a bug), and no test runner is judged on it.
struct ReferenceFailure {
  std::string runner, error;
  std::string str() const { return runner + ": " + error; }
};

struct Evaluation {
  std::vector<RunResult> results;  // references first, then the runners under test
  std::vector<Finding> findings;
  std::vector<std::string> skipped;             // runners that do not apply
  std::vector<ReferenceFailure> reference_failures;
  std::string versions;                         // of every result, deduplicated
};

// With recheck, a finding is rerun once; one that does not reproduce is kept
// and marked flaky; and every finding is attributed to a compiler layer
// (oracles/layer_ladder.h: PyTorch 2.x findings rerun up the backend ladder). Runner names must parse (parse_runner); one that does not
// is skipped.
Evaluation evaluate(Executor& ex, const Program& p, const std::vector<std::string>& test_runners, bool recheck);

// The same test runners on several environments, oldest first (`envs`: names
// or paths as in RUNNER@ENV): each runner@env judged against the eager of its
// own environment, then the version oracle (oracles/version_oracle.h) compares
// each pair of neighbouring environments. A runner is skipped on an
// environment of the other worker kind (ts on a Python install).
Evaluation evaluate_versions(Executor& ex, const Program& p, const std::vector<std::string>& test_runners,
                             const std::vector<std::string>& envs, bool recheck);

}  // namespace dlfuzz
