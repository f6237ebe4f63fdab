#include "runners/distributed/nccl_group.h"

#include <stdexcept>
#include <string>

#ifdef DLFUZZ_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>
#endif

namespace dlfuzz {

#ifdef DLFUZZ_HAVE_NCCL
namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string("NCCL: ") + what + ": " + ncclGetErrorString(r));
}

ncclDataType_t nccl_type(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return ncclFloat32;
    case at::kDouble: return ncclFloat64;
    case at::kHalf: return ncclFloat16;
    case at::kLong: return ncclInt64;
    case at::kInt: return ncclInt32;
    case at::kChar: return ncclInt8;
    case at::kByte: return ncclUint8;
    default: throw std::runtime_error(std::string("NCCL: no reduction for dtype ") + c10::toString(t));
  }
}

ncclRedOp_t nccl_op(const std::string& op) {
  if (op == "sum" || op == "avg") return ncclSum;
  if (op == "max") return ncclMax;
  if (op == "min") return ncclMin;
  if (op == "product") return ncclProd;
  throw std::runtime_error("unknown reduce op " + op);
}

// A device buffer for one collective call.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) { check(cudaMalloc(&p_, bytes ? bytes : 1), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p_); }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

class NcclGroup : public RankGroup {
 public:
  NcclGroup(ncclComm_t comm, cudaStream_t stream, int rank, int world)
      : comm_(comm), stream_(stream), rank_(rank), world_(world) {}
  ~NcclGroup() override {
    ncclCommDestroy(comm_);
    cudaStreamDestroy(stream_);
  }
  int rank() const override { return rank_; }
  int world() const override { return world_; }

  void all_reduce(at::Tensor& t, const std::string& op) override {
    select();
    at::Tensor c = t.contiguous();
    DeviceBuffer d(c.nbytes());
    check(cudaMemcpy(d.get(), c.data_ptr(), c.nbytes(), cudaMemcpyHostToDevice), "copy to device");
    check(ncclAllReduce(d.get(), d.get(), c.numel(), nccl_type(c.scalar_type()), nccl_op(op), comm_, stream_),
          "ncclAllReduce");
    finish(c, d);
    if (op == "avg") c.div_(world_);
    if (!c.is_same(t)) t.copy_(c);
  }

  std::vector<at::Tensor> all_gather(const at::Tensor& t) override {
    select();
    at::Tensor c = t.contiguous();
    DeviceBuffer in(c.nbytes()), out(c.nbytes() * world_);
    check(cudaMemcpy(in.get(), c.data_ptr(), c.nbytes(), cudaMemcpyHostToDevice), "copy to device");
    check(ncclAllGather(in.get(), out.get(), c.numel(), nccl_type(c.scalar_type()), comm_, stream_), "ncclAllGather");
    std::vector<int64_t> shape = {world_};
    for (int64_t s : c.sizes()) shape.push_back(s);
    at::Tensor all = at::empty(shape, c.options());
    finish(all, out);
    return all.unbind(0);
  }

  void broadcast(at::Tensor& t, int src) override {
    select();
    at::Tensor c = t.contiguous();
    DeviceBuffer d(c.nbytes());
    check(cudaMemcpy(d.get(), c.data_ptr(), c.nbytes(), cudaMemcpyHostToDevice), "copy to device");
    check(ncclBroadcast(d.get(), d.get(), c.numel(), nccl_type(c.scalar_type()), src, comm_, stream_), "ncclBroadcast");
    finish(c, d);
    if (!c.is_same(t)) t.copy_(c);
  }

 private:
  void select() { check(cudaSetDevice(rank_), "cudaSetDevice"); }
  void finish(at::Tensor& host, const DeviceBuffer& d) {
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    check(cudaMemcpy(host.data_ptr(), d.get(), host.nbytes(), cudaMemcpyDeviceToHost), "copy to host");
  }

  ncclComm_t comm_;
  cudaStream_t stream_;
  int rank_, world_;
};

class NcclRendezvous : public Rendezvous {
 public:
  explicit NcclRendezvous(int world) : world_(world) { check(ncclGetUniqueId(&id_), "ncclGetUniqueId"); }
  std::unique_ptr<RankGroup> join(int rank) override {
    check(cudaSetDevice(rank), "cudaSetDevice");
    cudaStream_t stream;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    ncclComm_t comm;
    check(ncclCommInitRank(&comm, world_, id_, rank), "ncclCommInitRank");
    return std::make_unique<NcclGroup>(comm, stream, rank, world_);
  }

 private:
  int world_;
  ncclUniqueId id_;
};
}  // namespace

std::unique_ptr<Rendezvous> make_nccl_rendezvous(int world) {
  int devices = 0;
  if (cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0)
    throw std::runtime_error(std::string("NCCL needs a CUDA device and this machine has none (cudaGetDeviceCount: ") +
                             (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")");
  if (devices < world)
    throw std::runtime_error("NCCL runs one rank per GPU: world " + std::to_string(world) + " needs " +
                             std::to_string(world) + " GPUs, this machine has " + std::to_string(devices));
  return std::make_unique<NcclRendezvous>(world);
}

#else

std::unique_ptr<Rendezvous> make_nccl_rendezvous(int) {
  throw std::runtime_error(
      "this dlfuzz build has no NCCL (configure found no CUDA toolkit with nccl.h; "
      "the toolkit is expected at /usr/local/cuda)");
}

#endif

}  // namespace dlfuzz
