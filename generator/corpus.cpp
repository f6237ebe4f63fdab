#include "generator/corpus.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <system_error>

#include "generator/checkpoint.h"
#include "generator/choices.h"
#include "generator/generator.h"
#include "generator/mutate_program.h"

namespace dlfuzz {

namespace fs = std::filesystem;

CorpusLoad load_corpus(const std::string& dir) {
  CorpusLoad out;
  auto fail = [&](const std::string& message) {
    out.error = dir + ": " + message;
    return out;
  };
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fail("not a directory");
  std::vector<std::string> paths;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec) && it->path().extension() == ".dlf") paths.push_back(it->path().string());
  if (ec) return fail(ec.message());
  if (paths.empty()) return fail("no .dlf files under this directory");
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    ParseResult r = load_program(path);
    if (!r.ok()) {
      out.entries.clear();
      out.error = r.error->str();
      return out;
    }
    out.entries.push_back({path, std::move(r.program)});
  }
  return out;
}

CampaignProgram campaign_program(const GenPolicy& base, int world, const std::vector<CorpusEntry>& corpus,
                                 uint64_t seed) {
  if (!corpus.empty()) {
    // Its own stream, so the generated programs are today's for the same seed.
    SeededChoices c(seed ^ 0x636f72707573ull);  // "corpus"
    if (c.coin(kCorpusShare)) {
      const CorpusEntry& e = corpus[c.below(corpus.size())];
      // An autocast or checkpoint seed is PyTorch 2.x's lane's only (LibTorch's
      // runners refuse autocast; checkpointing is torch.utils.checkpoint of 2.x).
      if ((e.program.autocast || has_checkpoint(e.program)) && base.target != Target::torch2)
        return {generate_program(policy_for_world(world, base), seed), ""};
      // A torch1.13 seed is also a torch2 program: for PyTorch 2.x's lane, its mutants may use 2.x's ops.
      Program seed_program = e.program;
      if (base.target == Target::torch2) seed_program.target = Target::torch2;
      Mutant m = mutate_program(seed_program, policy_for_world(e.program.plan.world, base), c.below(UINT64_MAX));
      std::string how;
      for (const auto& name : m.mutators) how += (how.empty() ? "" : ",") + name;
      return {std::move(m.program), e.path + " (" + (how.empty() ? "unchanged" : how) + ")"};
    }
  }
  return {generate_program(policy_for_world(world, base), seed), ""};
}

}  // namespace dlfuzz
