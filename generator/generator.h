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

// For program mutation (generator/mutators/): the same op choice applied to a
// finished program. grow_program appends `ops` random ops and chooses the
// outputs again; add_training_step gives an inference program a loss and an
// optimizer step (false, p unchanged, where an op reads the bits of a value a
// param's steps would change). Both canonicalize; the caller verifies.
void grow_program(Program& p, Choices& choices, const GenPolicy& policy, int ops);
bool add_training_step(Program& p, Choices& choices, const GenPolicy& policy);

}  // namespace dlfuzz
