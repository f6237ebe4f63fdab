// Grammar-based program generation: a program is a pure function of
// (GenPolicy, Choices). Every generated program passes verify().
#pragma once
#include "generator/choices.h"
#include "generator/gen_policy.h"
#include "generator/program.h"

namespace dlfuzz {

Program generate_program(const GenPolicy& policy, Choices& choices, uint64_t seed);
// Convenience: SeededChoices(seed).
Program generate_program(const GenPolicy& policy, uint64_t seed);

}  // namespace dlfuzz
