#include "generator/generator.h"
#include "generator/mutators/mutators.h"

namespace dlfuzz {

bool grow_mutator(Program& p, Choices& c, const GenPolicy& policy) {
  // A few ops: corpus seeds are reduced bugs, and a mutant that stays small
  // stays near the bug it came from.
  int before = p.count_nodes();
  grow_program(p, c, policy, static_cast<int>(c.range(1, 4)));
  return p.count_nodes() > before;
}

}  // namespace dlfuzz
