// Strict mode (--strict-zeros): a zero of the other sign where both sides
// give zero. The numeric oracle treats -0.0 and +0.0 as equal, as
// torch.testing does; but the sign of zero decides 1/x, atan2, copysign and
// log, and compilers drop it (x + 0.0 folded to x, x * 0 to 0). Its own
// low-severity class (oracle "signed-zero"), judged only where the numeric
// oracle found nothing, and arbitrated by the float64 reference: a position
// counts only where float64 has a zero of the reference's sign. The same strict
// mode compares the bits of NaNs both sides give (sign and payload: a NaN's
// sign shows through copysign and signbit, its payload through view(dtype)),
// after the zeros; float64 cannot arbitrate those (its NaNs are other bits).
#pragma once
#include <optional>

#include "oracles/finding.h"
#include "runners/run_result.h"

namespace dlfuzz {

std::optional<Finding> check_signed_zeros(const RunResult& ref, const RunResult& test, const RunResult* fp64);

}  // namespace dlfuzz
