// The oracles as a table (oracles/Oracles.def): name, what each compares,
// when it applies, and its check. The evaluation runs them in table order.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "generator/program.h"
#include "oracles/finding.h"
#include "runners/run_result.h"

namespace dlfuzz {

// What an oracle may look at for one test result.
struct OracleInputs {
  const RunResult& ref;
  const RunResult* fp64;  // the float64 reference, or nullptr where it failed
  const RunResult& test;
  const Program* program = nullptr;  // what ran (its optimizer: oracles/numeric_oracle.h), where known
};

struct OracleRow {
  const char* name;
  std::optional<Finding> (*check)(const OracleInputs&);
  const char* compares;
  const char* applies;
};

const std::vector<OracleRow>& oracle_table();

// Switches for the oracles that are off by default, set once by the command
// line before anything is judged (one per process, like libFuzzer's flags).
struct OracleSettings {
  bool strict_zeros = false;  // the signed-zero oracle (--strict-zeros)
};
OracleSettings& oracle_settings();

// The first finding of the oracles, in table order; nullopt when all agree.
// `ref` may have failed: only the accepts-invalid oracle judges that case.
std::optional<Finding> judge(const RunResult& ref, const RunResult* fp64, const RunResult& test,
                             const Program* program = nullptr);

}  // namespace dlfuzz
