// Seed programs for a campaign (`dlfuzz fuzz --corpus DIR`): every .dlf under
// a directory, and the choice of each campaign program between a generated
// one and a mutant of a corpus program.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "generator/dlf.h"
#include "generator/gen_policy.h"
#include "generator/program.h"

namespace dlfuzz {

struct CorpusEntry {
  std::string path;
  Program program;
};

struct CorpusLoad {
  std::vector<CorpusEntry> entries;  // sorted by path, so indices are the same on every machine
  // "" or what is wrong: "file:line:col: message" for the first malformed
  // file, "DIR: message" for the directory itself.
  std::string error;
  bool ok() const { return error.empty(); }
};

// Every *.dlf under dir, recursively, parsed strictly. An error when dir is
// not a directory, holds no .dlf, or any file does not parse and verify.
CorpusLoad load_corpus(const std::string& dir);

// The share of a campaign's programs that are mutants of corpus programs.
// Half: the corpus is small (reduced bugs, a few nodes each), so its mutants
// stay near known bugs (variants, regressions), while the generated half keeps
// the generator's breadth.
constexpr double kCorpusShare = 0.5;

struct CampaignProgram {
  Program program;
  std::string origin;  // "" when generated; else "PATH (mutators)"
};

// The campaign program of `seed` (campaign seed + index), over `world` ranks:
// a pure function of its arguments. Generated programs are the ones a
// campaign without a corpus makes (policy_for_world(world, base)); a mutant
// keeps its corpus program's world size.
CampaignProgram campaign_program(const GenPolicy& base, int world, const std::vector<CorpusEntry>& corpus,
                                 uint64_t seed);

}  // namespace dlfuzz
