// Coarse interval propagation: which values an op's output can hold, given its
// inputs' intervals. Only used to decide where domain guards are needed, so
// "unknown" (the default) is always safe.
#pragma once
#include <vector>

#include "generator/gen_context.h"

namespace dlfuzz {

Interval estimate_range(const Program& p, const Node& n, const std::vector<Interval>& ranges, int output_index);

}  // namespace dlfuzz
