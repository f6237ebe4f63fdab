// Program-level mutators of a seed program (a corpus file), one per file, in
// the style of llvm-reduce's one pass per file. Each changes `p` in place and
// returns false when it found nothing to change or the change does not type;
// mutate_program (generator/mutate_program.h) verifies what they return and
// tries another on failure.
#pragma once
#include <string>
#include <vector>

#include "generator/choices.h"
#include "generator/gen_policy.h"
#include "generator/program.h"

namespace dlfuzz {

using ProgramMutator = bool (*)(Program& p, Choices& c, const GenPolicy& policy);

struct NamedMutator {
  const char* name;
  ProgramMutator mutate;
  int weight;  // how often it is chosen, relative to the others
};

// Appends random ops from the op table that read the seed's values, then
// chooses the outputs again.
bool grow_mutator(Program& p, Choices& c, const GenPolicy& policy);
// Changes one input's shape (a dim, or the rank) or dtype and recomputes the
// types; false when the program no longer types.
bool retype_input_mutator(Program& p, Choices& c, const GenPolicy& policy);
// Changes one op's number or flag argument (a scalar, a dim, a size).
bool change_attribute_mutator(Program& p, Choices& c, const GenPolicy& policy);
// Training on or off, another optimizer, learning rate or step count.
bool training_mutator(Program& p, Choices& c, const GenPolicy& policy);

const std::vector<NamedMutator>& program_mutators();
std::vector<std::string> program_mutator_names();

}  // namespace dlfuzz
