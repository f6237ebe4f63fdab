#include "generator/mutate_program.h"

#include <stdexcept>

#include "generator/canonicalize.h"
#include "generator/choices.h"
#include "generator/dlf.h"
#include "generator/mutators/mutators.h"
#include "generator/verify.h"

namespace dlfuzz {

namespace {

// A mutant is kept only when it is a program the rest of dlfuzz accepts:
// verify() passes and its text parses back (strictly) to the same program.
bool acceptable(const Program& p) {
  if (!verify(p).empty()) return false;
  ParseResult back = parse_program(print_program(p), "<mutant>");
  return back.ok() && back.program == p;
}

// Tries mutators until one gives an acceptable program different from `p`.
bool mutate_once(Program& p, Choices& c, const GenPolicy& policy, std::vector<std::string>& applied) {
  const auto& table = program_mutators();
  std::vector<double> weights;
  for (const auto& m : table) weights.push_back(m.weight);
  for (int attempt = 0; attempt < 8; ++attempt) {
    const NamedMutator& m = table[c.weighted(weights)];
    Program candidate = p;
    try {
      if (!m.mutate(candidate, c, policy)) continue;
    } catch (const std::logic_error&) {
      // The generator's helpers assume what generation guarantees (e.g. no
      // half precision in training); a seed written by hand may break it.
      continue;
    }
    canonicalize(candidate);
    if (candidate == p || !acceptable(candidate)) continue;
    p = std::move(candidate);
    applied.push_back(m.name);
    return true;
  }
  return false;
}

}  // namespace

Mutant mutate_program(const Program& seed, const GenPolicy& policy, uint64_t seed_number) {
  SeededChoices c(seed_number);
  Mutant m{seed, {}};
  int rounds = static_cast<int>(c.range(1, 3));
  for (int i = 0; i < rounds; ++i) mutate_once(m.program, c, policy, m.mutators);
  // Two rounds can undo each other (an int +1 then -1): then one more from the seed.
  if (m.program == seed) {
    m.mutators.clear();
    mutate_once(m.program, c, policy, m.mutators);
  }
  return m;
}

}  // namespace dlfuzz
