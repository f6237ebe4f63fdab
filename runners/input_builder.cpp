#include "runners/input_builder.h"

#include "runners/aten_types.h"

#include <cmath>
#include <vector>

namespace dlfuzz {

// The values `special` inputs mix in, for a tensor of floating dtype t. The
// Python builder (dlfuzz_runtime.py, _dlfuzz_special_table) lists the same.
std::vector<double> special_values(DType t) {
  double tiny = float_tiny(t), max = float_max(t);
  return {0.0, -0.0, NAN, INFINITY, -INFINITY, tiny / 4, -tiny / 4, tiny, max, -max, 1.0, -1.0};
}

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
    case Init::ints:
    case Init::decimals:
    case Init::special: {
      at::Tensor i = at::arange(n, opts);
      x = i.mul(0.6180339887498949).add(phase).frac().mul(d.hi - d.lo).add(d.lo);
      if (d.init == Init::ints) x = x.floor();
      if (d.init == Init::decimals) x = x.mul(10.0).floor().div(10.0);
      if (d.init == Init::special && is_float(t.dtype)) {
        std::vector<double> table = special_values(t.dtype);  // the declared dtype's, also for the float64 twin
        auto k = static_cast<int64_t>(table.size());
        at::Tensor values = at::tensor(table, opts);
        at::Tensor pick = i.mul(0.5698402909980532).add(phase).frac().mul(double(k)).floor().clamp_max(k - 1);
        at::Tensor where = i.mul(0.7548776662466927).add(phase).frac().lt(0.125);
        x = at::where(where, values.index_select(0, pick.to(at::kLong)), x);
      }
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
