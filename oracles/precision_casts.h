// Findings that are Inductor's float32 intermediates. Inductor computes a
// fused chain of float16/bfloat16 ops in float32 and rounds once, where eager
// rounds after every op (by design; torch._inductor.config.
// emulate_precision_casts rounds as eager does). The numeric oracle already
// judges such values with the tolerance of their lowest precision
// (precision_flow.h), but an exact comparison of them (`le`, `eq`, an index)
// or a rounding boundary crossed in a chain still differs: campaigns stored
// these as bugs of whichever op came last (c79's bugs 21 and 32). An
// inductor, inductor-dynamic, inductor-knobs, aoti or aoti-dynamic finding in a
// program that computes float16/bfloat16 values which goes away with
// emulate_precision_casts (their twins inductor-emulate, inductor-dynamic-emulate,
// inductor-knobs-emulate, aoti-emulate, aoti-dynamic-emulate) is
// this, and its first op becomes kInductorFloat32Intermediates: one bug,
// apart from real ones, and labelled.
#pragma once
#include <vector>

#include "generator/program.h"
#include "oracles/finding.h"
#include "runners/executor.h"

namespace dlfuzz {

inline constexpr const char* kInductorFloat32Intermediates = "(Inductor's float32 intermediates)";

// One extra run of the reference, its float64 twin and the emulating twin per
// runner with such a finding.
void explain_precision_casts(Executor& ex, const Program& p, std::vector<Finding>& findings);

}  // namespace dlfuzz
