#include "runners/distributed/rank_context.h"

#include <chrono>

namespace dlfuzz {

namespace {
thread_local RankContext* current = nullptr;
}

RankContext* current_rank() { return current; }

RankScope::RankScope(RankContext* ctx) : prev_(current) { current = ctx; }
RankScope::~RankScope() { current = prev_; }

namespace {
// Adds the lifetime of one collective call to *ms.
struct Clock {
  double* ms;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  ~Clock() { *ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); }
};
}  // namespace

void TimedGroup::all_reduce(at::Tensor& t, const std::string& op) {
  Clock c{ms_};
  inner_->all_reduce(t, op);
}

std::vector<at::Tensor> TimedGroup::all_gather(const at::Tensor& t) {
  Clock c{ms_};
  return inner_->all_gather(t);
}

void TimedGroup::broadcast(at::Tensor& t, int src) {
  Clock c{ms_};
  inner_->broadcast(t, src);
}

}  // namespace dlfuzz
