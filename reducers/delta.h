// The generic delta driver (llvm-reduce's Delta.cpp): big cuts first (the
// fan-in of the chosen outputs), then each pass of reducers/passes/Passes.def
// as ddmin over the pass's targets, every round until the program stops
// changing. A candidate is tidied, verified (invalid ones are never tested),
// hashed and looked up in a verdict cache before the interestingness test runs.
//
// The test decides what "the same bug" means; `dlfuzz reduce` makes it "shows
// the ORIGINAL signature", so a candidate that turns into another bug is
// rejected (no drift).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "generator/program.h"

namespace dlfuzz {

// True when the candidate still shows the behaviour being reduced.
using Interesting = std::function<bool(const Program&)>;

struct ReduceOptions {
  std::vector<std::string> passes;  // empty: every pass in table order
  double max_time_seconds = 0;      // 0: no limit
  int max_queries = 0;              // 0: no limit
  // Outputs (indices into body.yields) the bug shows in; empty: try each alone.
  std::vector<int> keep_outputs;
  bool fan_in = true;   // start each round with the fan-in cut
  int max_rounds = 50;  // a guard; passes only simplify, so rounds end sooner
};

struct ReduceStats {
  int queries = 0;     // calls of the interestingness test
  int cache_hits = 0;  // candidates answered from the verdict cache
  int passes_run = 0;
  int invalid = 0;   // candidates verify() rejected (never tested)
  int accepted = 0;  // interesting candidates that became the current program
  int rounds = 0;
  int start_nodes = 0, final_nodes = 0;
  double seconds = 0;
  bool start_interesting = false;
  bool budget_exhausted = false;  // stopped by max_time_seconds or max_queries
};

// Throws std::invalid_argument for an unknown pass name. Returns `start`
// (canonicalized) when it is not interesting to begin with.
Program reduce_program(const Program& start, const Interesting& is_interesting, const ReduceOptions& opt,
                       ReduceStats* stats = nullptr,
                       std::function<void(const std::string& progress_line)> progress = nullptr);

// FNV-1a over the program's .dlf text: the verdict cache key.
uint64_t program_hash(const Program& p);

}  // namespace dlfuzz
