// One program through the reference runners and the runners under test, judged
// by the oracles. Shared by `dlfuzz run` (replay) and `dlfuzz fuzz`.
#pragma once
#include <string>
#include <vector>

#include "oracles/finding.h"
#include "runners/executor.h"

namespace dlfuzz {

struct Evaluation {
  std::vector<RunResult> results;  // references first, then the runners under test
  std::vector<Finding> findings;
  std::vector<std::string> skipped;            // runners that do not apply
  std::vector<std::string> reference_failures;  // "eager: ..." when a reference itself failed
  std::string versions;                        // of every result, deduplicated
};

// With recheck, a finding is rerun once; one that does not reproduce is kept
// and marked flaky.
Evaluation evaluate(Executor& ex, const Program& p, const std::vector<std::string>& test_runners, bool recheck);

// The executor options for this installation: /proc/self/exe as the worker,
// .venv's Python (or $DLFUZZ_PYTHON) when it has torch.
ExecutorOptions default_executor_options();

}  // namespace dlfuzz
