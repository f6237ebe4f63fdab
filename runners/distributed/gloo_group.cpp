#include "runners/distributed/gloo_group.h"

#include <stdexcept>

#ifdef DLFUZZ_HAVE_GLOO
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
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

namespace {
std::unique_ptr<RankGroup> join_gloo(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                                     std::chrono::milliseconds timeout) {
  auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
  opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world, opts);
  return std::make_unique<GlooGroup>(pg, rank, world);
}

c10d::TCPStoreOptions store_options(int port, bool server, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions o;
  o.port = static_cast<std::uint16_t>(port);
  o.isServer = server;
  o.waitWorkers = false;
  o.timeout = timeout;
  return o;
}
}  // namespace

std::unique_ptr<RankGroup> GlooRendezvous::join(int rank) {
  return join_gloo(impl_->store, rank, impl_->world, impl_->timeout);
}

struct StoreServer::Impl {
  c10::intrusive_ptr<c10d::TCPStore> store;
};

StoreServer::StoreServer(std::chrono::milliseconds timeout) : impl_(std::make_unique<Impl>()) {
  // Port 0: the kernel picks a free one, so runs side by side never collide.
  impl_->store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options(0, true, timeout));
}
StoreServer::~StoreServer() = default;
int StoreServer::port() const { return impl_->store->getPort(); }

std::unique_ptr<RankGroup> join_gloo_over_tcp(int port, int rank, int world, std::chrono::milliseconds timeout) {
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options(port, false, timeout));
  return join_gloo(store, rank, world, timeout);
}

bool have_gloo() { return true; }

#else

struct GlooRendezvous::Impl {};
GlooRendezvous::GlooRendezvous(int, std::chrono::milliseconds) {}
GlooRendezvous::~GlooRendezvous() = default;
std::unique_ptr<RankGroup> GlooRendezvous::join(int) {
  throw std::runtime_error(
      "this dlfuzz build has no Gloo (c10d ProcessGroupGloo): programs with world > 1 "
      "need the Debian LibTorch build (DLFUZZ_TORCH=debian with libgloo-dev)");
}
bool have_gloo() { return false; }

struct StoreServer::Impl {};
StoreServer::StoreServer(std::chrono::milliseconds) {
  throw std::runtime_error("this dlfuzz build has no Gloo: ranks as processes need the Debian LibTorch build");
}
StoreServer::~StoreServer() = default;
int StoreServer::port() const { return 0; }
std::unique_ptr<RankGroup> join_gloo_over_tcp(int, int, int, std::chrono::milliseconds) {
  throw std::runtime_error("this dlfuzz build has no Gloo: ranks as processes need the Debian LibTorch build");
}

#endif

}  // namespace dlfuzz
