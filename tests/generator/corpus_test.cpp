// corpus/: every seed program loads strictly, verifies and round-trips; its
// mutants (generator/mutate_program.h) are valid, mostly new, and a function
// of the seed number; a campaign's program choice (generator/corpus.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "generator/corpus.h"
#include "generator/dlf.h"
#include "generator/generator.h"
#include "generator/mutate_program.h"
#include "generator/mutators/mutators.h"
#include "generator/verify.h"

namespace dlfuzz {
namespace {

namespace fs = std::filesystem;

const std::string kCorpus = std::string(DLFUZZ_SOURCE_DIR) + "/corpus";

std::vector<CorpusEntry> corpus() {
  CorpusLoad load = load_corpus(kCorpus);
  EXPECT_TRUE(load.ok()) << load.error;
  return load.entries;
}

// parse(print(p)) == p, strictly.
void expect_round_trip(const Program& p, const std::string& what) {
  ParseResult back = parse_program(print_program(p), what);
  ASSERT_TRUE(back.ok()) << what << ": " << back.error->str() << "\n" << print_program(p);
  EXPECT_EQ(back.program, p) << what << "\n" << print_program(p);
}

TEST(Corpus, EveryFileParsesVerifiesAndRoundTrips) {
  auto entries = corpus();
  EXPECT_GE(entries.size(), 10u);
  for (const auto& e : entries) {
    EXPECT_EQ(verify(e.program), "") << e.path;
    expect_round_trip(e.program, e.path);
    // Reduced bugs: a handful of nodes each.
    if (e.path.find("/bugs/") != std::string::npos) {
      EXPECT_LE(e.program.count_nodes(), 8) << e.path;
    }
  }
}

TEST(Corpus, EveryBugFileSaysWhatItShows) {
  for (const auto& e : corpus()) {
    if (e.path.find("/bugs/") == std::string::npos) continue;
    std::ifstream in(e.path);
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first.rfind("# ", 0), 0u) << e.path << ": starts without its comment header";
  }
}

TEST(Corpus, MalformedFileIsNamedWithItsLine) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_corpus_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "a.dlf") << "dlfuzz 1 seed=1 policy=0 mode=infer device=cpu world=1 plan=none\n"
                                  "input %x0 : f32[2] range(-1.0,1.0)\n%1 : f32[2] = relu %x0\nreturn %1\n";
  std::ofstream(dir / "sub" / "b.dlf") << "# a seed\ndlfuzz 1 seed=1 policy=0 mode=infer device=cpu world=1 plan=none\n"
                                          "input %x0 : f32[2] range(-1.0,1.0)\n%1 : f32[2] = nosuchop %x0\nreturn %1\n";
  CorpusLoad load = load_corpus(dir.string());
  EXPECT_FALSE(load.ok());
  EXPECT_TRUE(load.entries.empty());
  EXPECT_NE(load.error.find("b.dlf:4:"), std::string::npos) << load.error;
  fs::remove(dir / "sub" / "b.dlf");
  load = load_corpus(dir.string());
  ASSERT_TRUE(load.ok()) << load.error;
  EXPECT_EQ(load.entries.size(), 1u);
  EXPECT_FALSE(load_corpus((dir / "sub").string()).ok());   // no .dlf
  EXPECT_FALSE(load_corpus((dir / "none").string()).ok());  // no directory
  fs::remove_all(dir);
}

// 300 mutation seeds of every corpus file: every mutant verifies and
// round-trips; most differ from their seed program.
TEST(Mutation, MutantsOfEveryCorpusFileAreValidAndMostlyNew) {
  GenPolicy policy;
  std::map<std::string, int> by_mutator;
  int total = 0, changed = 0;
  for (const auto& e : corpus()) {
    int differ = 0;
    for (uint64_t s = 1; s <= 300; ++s) {
      Mutant m = mutate_program(e.program, policy, s);
      ASSERT_EQ(verify(m.program), "") << e.path << " seed " << s << "\n" << print_program(m.program);
      expect_round_trip(m.program, e.path + " mutant " + std::to_string(s));
      bool differs = !(m.program == e.program);
      EXPECT_EQ(differs, !m.mutators.empty()) << e.path << " seed " << s;
      differ += differs;
      for (const auto& name : m.mutators) by_mutator[name]++;
    }
    EXPECT_GE(differ, 240) << e.path << ": only " << differ << " of 300 mutants differ from the seed";
    total += 300, changed += differ;
  }
  std::cout << changed << " of " << total << " mutants differ from their seed; mutators applied:";
  for (const auto& [name, n] : by_mutator) std::cout << " " << name << "=" << n;
  std::cout << "\n";
  for (const auto& m : program_mutator_names()) EXPECT_GT(by_mutator[m], 0) << m << " never succeeded";
}

TEST(Mutation, SameSeedSameMutant) {
  GenPolicy policy;
  for (const auto& e : corpus())
    for (uint64_t s : {1u, 7u, 1234u}) {
      Mutant a = mutate_program(e.program, policy, s), b = mutate_program(e.program, policy, s);
      EXPECT_EQ(print_program(a.program), print_program(b.program)) << e.path << " seed " << s;
      EXPECT_EQ(a.mutators, b.mutators);
    }
}

TEST(Mutation, GrowsAGeneratedProgramToo) {
  // Not only the corpus's tiny programs: a generated one with control flow,
  // views and training takes mutations as well.
  GenPolicy policy;
  int differ = 0;
  for (uint64_t s = 1; s <= 100; ++s) {
    Program seed = generate_program(policy, s);
    Mutant m = mutate_program(seed, policy, s);
    ASSERT_EQ(verify(m.program), "") << print_program(m.program);
    expect_round_trip(m.program, "mutant of generated " + std::to_string(s));
    differ += !(m.program == seed);
  }
  EXPECT_GE(differ, 80);
}

TEST(Corpus, CampaignProgramsAreHalfMutantsAndDeterministic) {
  auto entries = corpus();
  GenPolicy base;
  int mutants = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    CampaignProgram a = campaign_program(base, 1, entries, seed);
    CampaignProgram b = campaign_program(base, 1, entries, seed);
    EXPECT_EQ(a.program, b.program);
    EXPECT_EQ(a.origin, b.origin);
    EXPECT_EQ(verify(a.program), "");
    if (a.origin.empty()) {
      EXPECT_EQ(a.program, generate_program(policy_for_world(1, base), seed));
    } else {
      EXPECT_EQ(a.origin.rfind(kCorpus, 0), 0u) << a.origin;
    }
    mutants += !a.origin.empty();
  }
  EXPECT_GT(mutants, 70);
  EXPECT_LT(mutants, 130);
  // Without a corpus: exactly the generated programs of today.
  EXPECT_EQ(campaign_program(base, 1, {}, 5).program, generate_program(policy_for_world(1, base), 5));
}

}  // namespace
}  // namespace dlfuzz
