#include "runners/input_builder.h"

#include "runners/aten_types.h"

namespace dlfuzz {

double input_phase(uint64_t seed, size_t index) {
  return static_cast<double>(((seed % 9973) * 31 + index * 17) % 997) / 997.0;
}

at::Tensor build_input(const Program& p, size_t index, bool fp64, int shard, int shards) {
  const InputDecl& d = p.inputs.at(index);
  const TensorType& local = p.type(d.value);
  int dim = d.placement.shard_dim;
  bool sharded = shards > 1 && dim >= 0 && dim < local.rank();
  // A sharded input is built whole (every rank computes the same tensor) and
  // this rank's slice taken from it.
  TensorType t = local;
  if (sharded) t.shape[dim] = d.placement.whole_size(local.shape[dim], shards);
  DType dt = fp64 && is_float(t.dtype) ? DType::f64 : t.dtype;
  auto opts = at::TensorOptions().dtype(at::kDouble);
  int64_t n = t.numel();
  double phase = input_phase(p.seed, index);
  at::Tensor x;
  switch (d.init) {
    case Init::zeros: x = at::zeros({n}, opts); break;
    case Init::ones: x = at::ones({n}, opts); break;
    case Init::uniform: {
      at::Tensor u = at::arange(n, opts).mul(0.6180339887498949).add(phase).frac();
      x = u.mul(d.hi - d.lo).add(d.lo);
      if (!is_float(t.dtype)) x = x.floor();
      break;
    }
    case Init::normal: {
      at::Tensor u1 = at::arange(n, opts).mul(0.6180339887498949).add(phase).frac();
      at::Tensor u2 = at::arange(n, opts).mul(0.7548776662466927).add(phase).frac();
      at::Tensor z = u1.neg().add(1.0).log().mul(-2.0).sqrt().mul(u2.mul(6.283185307179586).cos());
      x = z.mul(d.hi).add(d.lo);
      break;
    }
  }
  x = x.to(to_aten(dt)).reshape(t.shape);
  if (sharded && shard != kWholeTensor) {
    auto [start, size] = d.placement.slice(local.shape[dim], shard, shards);
    x = x.narrow(dim, start, size).contiguous();
  }
  if (p.device == "cuda") x = x.to(at::Device(at::kCUDA, 0));
  if (d.layout == Layout::channels_last && t.rank() == 4) x = x.contiguous(at::MemoryFormat::ChannelsLast);
  if (d.layout == Layout::strided && t.rank() >= 2) x = x.transpose(-1, -2).contiguous().transpose(-1, -2);
  return x;
}

}  // namespace dlfuzz
