// Program-level mutation of a seed program (a corpus file): one to three
// mutators from generator/mutators/, chosen from a seed number, so the same
// (program, policy, seed) gives the same mutant. Every mutant verifies and
// round-trips through .dlf text; when no mutator succeeds the seed comes back
// unchanged.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "generator/gen_policy.h"
#include "generator/program.h"

namespace dlfuzz {

struct Mutant {
  Program program;
  std::vector<std::string> mutators;  // those applied, in order; empty: the seed unchanged
};

Mutant mutate_program(const Program& seed, const GenPolicy& policy, uint64_t seed_number);

}  // namespace dlfuzz
