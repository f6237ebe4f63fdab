#include "runners/distributed/gloo_group.h"

#include <stdexcept>

#ifdef DLFUZZ_HAVE_GLOO
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

namespace dlfuzz {

#ifdef DLFUZZ_HAVE_GLOO
namespace {
c10d::ReduceOp reduce_op(const std::string& op) {
  if (op == "sum" || op == "avg") return c10d::ReduceOp::SUM;
  if (op == "max") return c10d::ReduceOp::MAX;
  if (op == "min") return c10d::ReduceOp::MIN;
  if (op == "product") return c10d::ReduceOp::PRODUCT;
  throw std::runtime_error("unknown reduce op " + op);
}

class GlooGroup : public RankGroup {
 public:
  GlooGroup(c10::intrusive_ptr<c10d::ProcessGroupGloo> pg, int rank, int world)
      : pg_(std::move(pg)), rank_(rank), world_(world) {}
  int rank() const override { return rank_; }
  int world() const override { return world_; }

  void all_reduce(at::Tensor& t, const std::string& op) override {
    std::vector<at::Tensor> v = {t};
    c10d::AllreduceOptions o;
    o.reduceOp = reduce_op(op);
    pg_->allreduce(v, o)->wait();
    if (op == "avg") t.div_(world_);
  }

  std::vector<at::Tensor> all_gather(const at::Tensor& t) override {
    std::vector<at::Tensor> in = {t};
    std::vector<std::vector<at::Tensor>> out(1);
    for (int r = 0; r < world_; ++r) out[0].push_back(at::empty_like(t));
    pg_->allgather(out, in)->wait();
    return out[0];
  }

  void broadcast(at::Tensor& t, int src) override {
    std::vector<at::Tensor> v = {t};
    c10d::BroadcastOptions o;
    o.rootRank = src;
    pg_->broadcast(v, o)->wait();
  }

 private:
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg_;
  int rank_, world_;
};
}  // namespace

struct GlooRendezvous::Impl {
  int world;
  std::chrono::milliseconds timeout;
  c10::intrusive_ptr<c10d::HashStore> store = c10::make_intrusive<c10d::HashStore>();
};

GlooRendezvous::GlooRendezvous(int world, std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>(Impl{world, timeout})) {}
GlooRendezvous::~GlooRendezvous() = default;

std::unique_ptr<RankGroup> GlooRendezvous::join(int rank) {
  auto opts = c10d::ProcessGroupGloo::Options::create(impl_->timeout);
  opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, rank, impl_->world, opts);
  return std::make_unique<GlooGroup>(pg, rank, impl_->world);
}

bool have_gloo() { return true; }

#else

struct GlooRendezvous::Impl {};
GlooRendezvous::GlooRendezvous(int, std::chrono::milliseconds) {}
GlooRendezvous::~GlooRendezvous() = default;
std::unique_ptr<RankGroup> GlooRendezvous::join(int) {
  throw std::runtime_error("this dlfuzz build has no Gloo (c10d ProcessGroupGloo): programs with world > 1 "
                           "need the Debian LibTorch build (DLFUZZ_TORCH=debian with libgloo-dev)");
}
bool have_gloo() { return false; }

#endif

}  // namespace dlfuzz
