#include "oracles/oracle_table.h"

#include "oracles/accepts_oracle.h"
#include "oracles/fake_prop_oracle.h"
#include "oracles/numeric_oracle.h"
#include "oracles/rank_oracle.h"
#include "oracles/signed_zero_oracle.h"
#include "oracles/status_oracle.h"

namespace dlfuzz {

namespace {
std::optional<Finding> accepts(const OracleInputs& in) { return check_accepts_invalid(in.ref, in.test); }
// The oracles below judge a valid program: one its reference ran.
std::optional<Finding> status(const OracleInputs& in) {
  return in.ref.ok() ? check_status(in.ref, in.test) : std::nullopt;
}
std::optional<Finding> rank(const OracleInputs& in) {
  return in.ref.ok() ? check_rank_consistency(in.test) : std::nullopt;
}
std::optional<Finding> numeric(const OracleInputs& in) {
  return check_numeric(in.ref, in.test, in.fp64 && in.fp64->ok() ? in.fp64 : nullptr,
                       numeric_options_for(in.program));
}
std::optional<Finding> fake_prop(const OracleInputs& in) { return check_fake_prop(in.ref, in.test); }
std::optional<Finding> signed_zero(const OracleInputs& in) {
  if (!oracle_settings().strict_zeros) return std::nullopt;
  return check_signed_zeros(in.ref, in.test, in.fp64 && in.fp64->ok() ? in.fp64 : nullptr);
}
}  // namespace

OracleSettings& oracle_settings() {
  static OracleSettings settings;
  return settings;
}

const std::vector<OracleRow>& oracle_table() {
  static const std::vector<OracleRow> rows = {
#define ORACLE(name, check, compares, applies) {name, check, compares, applies},
#include "oracles/Oracles.def"
#undef ORACLE
  };
  return rows;
}

std::optional<Finding> judge(const RunResult& ref, const RunResult* fp64, const RunResult& test,
                             const Program* program) {
  OracleInputs in{ref, fp64, test, program};
  for (const auto& o : oracle_table())
    if (o.check)
      if (auto f = o.check(in)) return f;
  return std::nullopt;
}

}  // namespace dlfuzz
