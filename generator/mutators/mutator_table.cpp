#include "generator/mutators/mutators.h"

namespace dlfuzz {

// Growing is the mutator that reaches new ops; the others vary what a seed
// already has.
const std::vector<NamedMutator>& program_mutators() {
  static const std::vector<NamedMutator> table = {
      {"grow", grow_mutator, 3},
      {"retype_input", retype_input_mutator, 2},
      {"change_attribute", change_attribute_mutator, 2},
      {"training", training_mutator, 1},
  };
  return table;
}

std::vector<std::string> program_mutator_names() {
  std::vector<std::string> names;
  for (const auto& m : program_mutators()) names.push_back(m.name);
  return names;
}

}  // namespace dlfuzz
