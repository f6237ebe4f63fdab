#include "runners/distributed/grad_sync.h"

#include <fmt/format.h>
#include <torch/optim.h>

#include <map>

#include "generator/hash.h"
#include "runners/program_driver.h"

namespace dlfuzz {

namespace {
// A rank's slice [lo, hi) of a parameter's flattened elements.
std::pair<int64_t, int64_t> slice_of(int64_t numel, int rank, int world) {
  int64_t per = (numel + world - 1) / world;
  int64_t lo = std::min(numel, per * rank), hi = std::min(numel, lo + per);
  return {lo, hi};
}
}  // namespace

void sync_gradients(RankContext& ctx, std::vector<at::Tensor>& params) {
  if (!ctx.group) return;
  // The planted deadlock: rank 0 never joins the all-reduce the others wait in.
  bool skip = ctx.fault == DistFault::deadlock && ctx.rank == 0;
  const char* op = ctx.fault == DistFault::wrong_op ? "max" : "sum";
  // One bucket per dtype, as DDP does: one all-reduce per step, not one per
  // parameter (the sums are the same element by element).
  std::map<at::ScalarType, std::vector<at::Tensor*>> buckets;
  for (auto& w : params) buckets[w.scalar_type()].push_back(&w);
  for (auto& [dtype, ws] : buckets) {
    std::vector<at::Tensor> flat;
    for (at::Tensor* w : ws)
      flat.push_back(w->grad().defined() ? w->grad().reshape(-1) : at::zeros({w->numel()}, w->options()));
    at::Tensor bucket = at::cat(flat);
    if (!skip) ctx.group->all_reduce(bucket, op);
    if (ctx.fault != DistFault::no_average) bucket.div_(ctx.world);
    int64_t offset = 0;
    for (at::Tensor* w : ws) {
      w->mutable_grad() = bucket.narrow(0, offset, w->numel()).view(w->sizes()).clone();
      offset += w->numel();
    }
  }
  if (ctx.fault == DistFault::corrupt_shard && ctx.rank == 1) {
    // One element of rank 1's own slice (the one ZeRO updates on rank 1).
    at::NoGradGuard no_grad;
    for (auto& w : params) {
      auto [lo, hi] = slice_of(w.numel(), ctx.rank, ctx.world);
      if (lo == hi) continue;
      w.mutable_grad().view(-1).narrow(0, lo, 1).add_(1e-3);
      break;
    }
  }
}

namespace {

struct ZeroState {
  std::vector<at::Tensor> slices;  // this rank's slice of each parameter
  std::unique_ptr<torch::optim::Optimizer> optimizer;
};
}  // namespace

void zero_optimizer_step(RankContext& ctx, std::vector<at::Tensor>& params, const TrainStep& s) {
  at::NoGradGuard no_grad;
  if (!ctx.zero_state) {
    auto st = std::make_shared<ZeroState>();
    for (auto& w : params) {
      auto [lo, hi] = slice_of(w.numel(), ctx.rank, ctx.world);
      st->slices.push_back(w.detach().reshape(-1).slice(0, lo, hi).clone());
    }
    st->optimizer = make_optimizer(s, st->slices);
    ctx.zero_state = st;
  }
  auto& st = *std::static_pointer_cast<ZeroState>(ctx.zero_state);
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& g = params[i].grad();
    auto [lo, hi] = slice_of(params[i].numel(), ctx.rank, ctx.world);
    // The driver gives every parameter a gradient (zeros where autograd gave
    // none), so every slice steps, as in the unsharded optimizer.
    if (g.defined()) st.slices[i].mutable_grad() = g.reshape(-1).slice(0, lo, hi).clone();
    else st.slices[i].mutable_grad() = at::zeros_like(st.slices[i]);
  }
  st.optimizer->step();
  // All-gather: each rank writes its slices into zeros and one sum over a
  // bucket of every parameter (per dtype) puts them together.
  std::map<at::ScalarType, std::vector<size_t>> buckets;
  for (size_t i = 0; i < params.size(); ++i) buckets[params[i].scalar_type()].push_back(i);
  for (auto& [dtype, idx] : buckets) {
    int64_t total = 0;
    for (size_t i : idx) total += params[i].numel();
    at::Tensor full = at::zeros({total}, params[idx[0]].options());
    int64_t offset = 0;
    for (size_t i : idx) {
      auto [lo, hi] = slice_of(params[i].numel(), ctx.rank, ctx.world);
      full.slice(0, offset + lo, offset + hi).copy_(st.slices[i]);
      offset += params[i].numel();
    }
    ctx.group->all_reduce(full, "sum");
    offset = 0;
    for (size_t i : idx) {
      params[i].detach().copy_(full.narrow(0, offset, params[i].numel()).view(params[i].sizes()));
      offset += params[i].numel();
    }
  }
}

std::string param_digest(const std::vector<at::Tensor>& params) {
  uint64_t h = kFnvOffset;
  for (const auto& w : params) {
    at::Tensor c = w.detach().contiguous();
    h = fnv1a(c.data_ptr(), c.nbytes(), h);
  }
  return fmt::format("{:016x}", h);
}

}  // namespace dlfuzz
