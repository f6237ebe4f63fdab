#include "runners/distributed/rank_context.h"

namespace dlfuzz {

namespace {
thread_local RankContext* current = nullptr;
}

RankContext* current_rank() { return current; }

RankScope::RankScope(RankContext* ctx) : prev_(current) { current = ctx; }
RankScope::~RankScope() { current = prev_; }

}  // namespace dlfuzz
