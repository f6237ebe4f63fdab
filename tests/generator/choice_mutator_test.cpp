// Programs from bytes (ByteChoices) and the structural mutations of those
// bytes that coverage-guided fuzzing uses: deterministic, always valid
// programs, and structural (whole ops appear and disappear).
#include <gtest/gtest.h>

#include "generator/choice_mutator.h"
#include "generator/choices.h"
#include "generator/dlf.h"
#include "generator/generator.h"
#include "generator/verify.h"

namespace dlfuzz {

namespace {
std::vector<uint8_t> bytes_of(uint64_t seed, size_t n) {
  SeededChoices c(seed);
  std::vector<uint8_t> v;
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<uint8_t>(c.below(256)));
  return v;
}

Program from_bytes(const std::vector<uint8_t>& v) {
  ByteChoices c(v.data(), v.size());
  return generate_program(GenPolicy{}, c, 7);
}
}  // namespace

TEST(ByteChoices, SameBytesSameProgramAndCutPointsInOrder) {
  for (uint64_t s = 0; s < 300; ++s) {
    auto v = bytes_of(s, 20 + s % 200);
    Program a = from_bytes(v), b = from_bytes(v);
    ASSERT_EQ(print_program(a), print_program(b));
    ASSERT_EQ(verify(a), "") << "seed " << s;
    auto cuts = op_cut_points(v, GenPolicy{});
    EXPECT_TRUE(std::is_sorted(cuts.begin(), cuts.end()));
    for (size_t c : cuts) EXPECT_LT(c, v.size());
  }
  // No bytes at all: the hash-seeded stream makes a whole program.
  std::vector<uint8_t> none;
  EXPECT_GT(from_bytes(none).count_nodes(), 3);
}

TEST(ChoiceMutator, SameSeedSameMutationAlwaysValidAndStructural) {
  int changed = 0, fewer = 0, more = 0;
  auto flip = [](uint8_t* d, size_t n, size_t) {  // a deterministic stand-in for LLVMFuzzerMutate
    if (n) d[n / 2] ^= 0x5a;
    return n;
  };
  for (unsigned seed = 0; seed < 500; ++seed) {
    auto v = bytes_of(seed, 64 + seed % 300);
    auto m1 = mutate_choices(v, 4096, seed, GenPolicy{}, flip), m2 = mutate_choices(v, 4096, seed, GenPolicy{}, flip);
    ASSERT_EQ(m1, m2) << "seed " << seed;
    EXPECT_LE(m1.size(), 4096u);
    Program before = from_bytes(v), after = from_bytes(m1);
    ASSERT_EQ(verify(after), "") << "seed " << seed;
    std::string a = print_program(before), b = print_program(after);
    changed += a != b;
    fewer += after.count_nodes() < before.count_nodes();
    more += after.count_nodes() > before.count_nodes();
  }
  EXPECT_GT(changed, 400) << "most mutations change the program";
  EXPECT_GT(fewer, 50) << "ops are removed";
  EXPECT_GT(more, 50) << "ops are added";
}

TEST(ChoiceMutator, SpliceKeepsTheFirstProgramsHeadAndIsDeterministic) {
  for (unsigned seed = 0; seed < 200; ++seed) {
    auto a = bytes_of(seed, 120), b = bytes_of(seed + 1000, 150);
    auto s1 = splice_choices(a, b, 4096, seed, GenPolicy{}), s2 = splice_choices(a, b, 4096, seed, GenPolicy{});
    ASSERT_EQ(s1, s2);
    auto cuts = op_cut_points(a, GenPolicy{});
    size_t head = 0;
    while (head < s1.size() && head < a.size() && s1[head] == a[head]) ++head;
    EXPECT_GE(head, cuts.empty() ? 0 : cuts.front()) << "the prologue of the first program survives";
    ASSERT_EQ(verify(from_bytes(s1)), "");
    EXPECT_LE(splice_choices(a, b, 10, seed, GenPolicy{}).size(), 10u);
  }
}

}  // namespace dlfuzz
