#include "reducers/delta.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <unordered_map>

#include "generator/dlf.h"
#include "generator/hash.h"
#include "generator/verify.h"
#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz {

using namespace reduce;

uint64_t program_hash(const Program& p) { return fnv1a(print_program(p)); }

namespace {

class Reducer {
 public:
  Reducer(const Interesting& test, const ReduceOptions& opt, ReduceStats& stats,
          std::function<void(const std::string&)>& progress)
      : test_(test), opt_(opt), stats_(stats), progress_(progress), t0_(std::chrono::steady_clock::now()) {}

  Program run(Program start, const std::vector<const ReducerPass*>& passes) {
    tidy(start);
    cur_ = start;
    cur_hash_ = program_hash(cur_);
    stats_.start_nodes = stats_.final_nodes = cur_.count_nodes();
    if (!verify(cur_).empty()) {
      say("reduce: the input does not verify; nothing to do");
      return cur_;
    }
    ++stats_.queries;
    stats_.start_interesting = cache_[cur_hash_] = test_(cur_);
    if (!stats_.start_interesting) {
      say("reduce: the input is not interesting; nothing to do");
      return cur_;
    }
    for (int round = 1; round <= opt_.max_rounds && !stop_; ++round) {
      stats_.rounds = round;
      uint64_t before = cur_hash_;
      if (opt_.fan_in) fan_in(round == 1);
      for (const ReducerPass* pass : passes) {
        if (stop_) break;
        run_pass(*pass);
        ++stats_.passes_run;
        say(fmt::format("reduce: round {} {:<13} {} nodes, {} queries, {} cache hits", round, pass->name,
                        cur_.count_nodes(), stats_.queries, stats_.cache_hits));
      }
      if (cur_hash_ == before) break;
    }
    stats_.final_nodes = cur_.count_nodes();
    stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    return cur_;
  }

 private:
  // Tidies `cand` in place; true when it verifies, differs from the current
  // program and is interesting. An interesting candidate becomes current.
  bool try_candidate(Program& cand) {
    if (out_of_budget()) return false;
    tidy(cand);
    if (!verify(cand).empty()) {
      ++stats_.invalid;
      return false;
    }
    uint64_t h = program_hash(cand);
    if (h == cur_hash_) return false;  // the chunk changed nothing
    bool interesting;
    if (auto it = cache_.find(h); it != cache_.end()) {
      ++stats_.cache_hits;
      interesting = it->second;
    } else {
      ++stats_.queries;
      interesting = cache_[h] = test_(cand);
    }
    if (interesting) {
      cur_ = cand;
      cur_hash_ = h;
      ++stats_.accepted;
    }
    return interesting;
  }

  bool out_of_budget() {
    if (stop_) return true;
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    stats_.seconds = secs;
    if ((opt_.max_queries > 0 && stats_.queries >= opt_.max_queries) ||
        (opt_.max_time_seconds > 0 && secs >= opt_.max_time_seconds))
      stop_ = stats_.budget_exhausted = true;
    return stop_;
  }

  // Big cut first: only what the chosen outputs (and the loss) depend on. The
  // hint names outputs of the start program, so it holds in the first round only.
  void fan_in(bool first) {
    const auto& ys = cur_.body.yields;
    std::vector<std::vector<int>> choices;
    if (first && !opt_.keep_outputs.empty()) {
      std::vector<int> keep;
      for (int i : opt_.keep_outputs)
        if (i >= 0 && i < int(ys.size())) keep.push_back(ys[i]);
      choices.push_back(keep);
    } else if (ys.size() > 1) {
      for (int y : ys) choices.push_back({y});
    }
    choices.push_back(ys);  // all outputs: just dead code
    for (const auto& keep : choices) {
      Program cand = cur_;
      cand.body.yields = keep;
      remove_dead_nodes(cand);
      if (try_candidate(cand)) break;
    }
  }

  // ddmin over the pass's targets (llvm-reduce's runDeltaPass): try dropping
  // each chunk; keep every drop that stays interesting; when a whole sweep
  // drops nothing, halve the chunks, down to single targets.
  void run_pass(const ReducerPass& pass) {
    const Program base = cur_;
    Oracle counter;
    Program scratch = base;
    pass.run(counter, scratch);
    int n = counter.count();
    if (n == 0) return;
    std::vector<Chunk> chunks{{0, n - 1}};
    for (;;) {
      std::vector<Chunk> dropped;
      for (const Chunk& c : chunks) {
        std::vector<Chunk> keep;
        for (const Chunk& k : chunks)
          if (!(k == c) && std::find(dropped.begin(), dropped.end(), k) == dropped.end()) keep.push_back(k);
        Program cand = base;
        Oracle o(&keep);
        pass.run(o, cand);
        if (try_candidate(cand)) dropped.push_back(c);
        if (stop_) return;
      }
      std::vector<Chunk> left;
      for (const Chunk& k : chunks)
        if (std::find(dropped.begin(), dropped.end(), k) == dropped.end()) left.push_back(k);
      chunks = std::move(left);
      if (chunks.empty()) return;
      if (dropped.empty() && !split(chunks)) return;
    }
  }

  static bool split(std::vector<Chunk>& chunks) {
    std::vector<Chunk> out;
    bool any = false;
    for (const Chunk& c : chunks) {
      if (c.end > c.begin) {
        int mid = c.begin + (c.end - c.begin) / 2;
        out.push_back({c.begin, mid});
        out.push_back({mid + 1, c.end});
        any = true;
      } else {
        out.push_back(c);
      }
    }
    chunks = std::move(out);
    return any;
  }

  void say(const std::string& line) {
    if (progress_) progress_(line);
  }

  const Interesting& test_;
  const ReduceOptions& opt_;
  ReduceStats& stats_;
  std::function<void(const std::string&)>& progress_;
  std::chrono::steady_clock::time_point t0_;
  std::unordered_map<uint64_t, bool> cache_;
  Program cur_;
  uint64_t cur_hash_ = 0;
  bool stop_ = false;
};

}  // namespace

Program reduce_program(const Program& start, const Interesting& is_interesting, const ReduceOptions& opt,
                       ReduceStats* stats, std::function<void(const std::string&)> progress) {
  std::vector<const ReducerPass*> passes;
  if (opt.passes.empty()) {
    for (const auto& p : reducer_passes()) passes.push_back(&p);
  } else {
    for (const auto& name : opt.passes) {
      const ReducerPass* p = find_reducer_pass(name);
      if (!p) throw std::invalid_argument("unknown reducer pass '" + name + "'; passes:\n" + reducer_passes_help());
      passes.push_back(p);
    }
  }
  ReduceStats local;
  ReduceStats& s = stats ? *stats : local;
  s = ReduceStats{};
  Program out = Reducer(is_interesting, opt, s, progress).run(start, passes);
  return out;
}

}  // namespace dlfuzz
