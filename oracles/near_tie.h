// A comparison that flips because its operands were rounded differently.
// `lt(a, b)` of two float values that eager and a compiler compute to within
// rounding (a matmul summed in another order) differs wherever a and b are
// that close: each run compares right, on operands that differ in the last
// bits (c82's bugs 10/11, c84's bug 9). When the first diverging op is such
// a comparison and, in both runs, every element of its result follows from
// that run's own operand values, the finding is this, not the comparison's
// bug: a real miscompiled comparison gives a result its operands do not.
#pragma once
#include <functional>

#include "generator/program.h"
#include "runners/run_result.h"

namespace dlfuzz {

inline constexpr const char* kNearTie = "(a comparison of values within rounding)";

// A value of the comparison's run: the tensor of an operand (nullptr if the
// run did not return it).
using OperandLookup = std::function<const HostTensor*(int value_id)>;

// Does every element of `result` (node n's output in one run) equal the
// comparison of that run's operands (tensors broadcast, or a number)? False
// when an operand is not known.
bool follows_from_operands(const Node& n, const HostTensor& result, const OperandLookup& operand);

}  // namespace dlfuzz
