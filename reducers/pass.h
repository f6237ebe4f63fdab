// The contract between the delta driver and its passes (llvm-reduce's Oracle
// and extractChunksFromModule). A pass walks the program in a fixed order and
// asks the oracle once per target ("keep this one?"); for each target it is
// told to drop, it applies its one reduction. The driver learns the number of
// targets from a counting run (an oracle that keeps everything) and then
// removes chunks of target indices, ddmin style. A pass must ask the same
// number of questions in the same order whatever the answers are, so that
// index i names the same target in every run on the same input.
#pragma once
#include <string>
#include <vector>

#include "generator/program.h"

namespace dlfuzz::reduce {

struct Chunk {
  int begin = 0, end = 0;  // inclusive target indices
  bool operator==(const Chunk& o) const { return begin == o.begin && end == o.end; }
};

class Oracle {
 public:
  Oracle() = default;  // counting run: keeps every target
  explicit Oracle(const std::vector<Chunk>* keep) : keep_(keep) {}

  bool shouldKeep() {
    int i = index_++;
    if (!keep_) return true;
    // Indices only grow and chunks are sorted: walk a cursor.
    while (cursor_ < keep_->size() && (*keep_)[cursor_].end < i) ++cursor_;
    return cursor_ < keep_->size() && (*keep_)[cursor_].begin <= i;
  }
  int count() const { return index_; }

 private:
  const std::vector<Chunk>* keep_ = nullptr;
  size_t cursor_ = 0;
  int index_ = 0;
};

// Edits `p` (a copy of the pass's input) in place.
using PassFn = void (*)(Oracle& o, Program& p);

struct ReducerPass {
  const char* name;
  const char* help;
  PassFn run;
};

// The rows of reducers/passes/Passes.def, in table order (big cuts first).
const std::vector<ReducerPass>& reducer_passes();
const ReducerPass* find_reducer_pass(const std::string& name);
// "  name   help" lines for --list-passes and --help.
std::string reducer_passes_help();

}  // namespace dlfuzz::reduce
