// Generator properties over many seeds: every program verifies, output is a
// pure function of (policy, seed).
#include <gtest/gtest.h>

#include "generator/generator.h"
#include "generator/verify.h"

namespace dlfuzz {

TEST(Generator, EveryProgramVerifies) {
  GenPolicy policy;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    Program p = generate_program(policy, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
  }
}

}  // namespace dlfuzz
