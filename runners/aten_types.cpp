#include "runners/aten_types.h"

#include <torch/version.h>

#include <cstring>
#include <stdexcept>

namespace dlfuzz {

at::ScalarType to_aten(DType t) {
  switch (t) {
    case DType::f32: return at::kFloat;
    case DType::f64: return at::kDouble;
    case DType::f16: return at::kHalf;
    case DType::bf16: return at::kBFloat16;
    case DType::i64: return at::kLong;
    case DType::i32: return at::kInt;
    case DType::i16: return at::kShort;
    case DType::i8: return at::kChar;
    case DType::u8: return at::kByte;
    case DType::b8: return at::kBool;
#if TORCH_VERSION_MAJOR >= 2
    case DType::u16: return at::kUInt16;
    case DType::u32: return at::kUInt32;
    case DType::u64: return at::kUInt64;
#else
    case DType::u16:
    case DType::u32:
    case DType::u64: throw std::runtime_error(std::string(dtype_name(t)) + " needs PyTorch 2.x's LibTorch (this is 1.x)");
#endif
  }
  return at::kFloat;
}

DType from_aten(at::ScalarType t) {
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i64, DType::i32, DType::i16, DType::i8,
                  DType::u8, DType::b8})
    if (to_aten(d) == t) return d;
#if TORCH_VERSION_MAJOR >= 2
  for (DType d : {DType::u16, DType::u32, DType::u64})
    if (to_aten(d) == t) return d;
#endif
  return DType::f32;
}

at::MemoryFormat to_aten(MemFormat m) {
  switch (m) {
    case MemFormat::contiguous: return at::MemoryFormat::Contiguous;
    case MemFormat::channels_last: return at::MemoryFormat::ChannelsLast;
    case MemFormat::preserve: return at::MemoryFormat::Preserve;
  }
  return at::MemoryFormat::Contiguous;
}

HostTensor to_host(const at::Tensor& t) {
  HostTensor h;
  if (!t.defined()) return h;
  // A ZeroTensor (what sgn's backward leaves in .grad: pytorch's efficient
  // zeros) has no storage to copy: its values are zeros.
  at::Tensor c = t._is_zerotensor() ? at::zeros(t.sizes(), t.options().device(at::kCPU))
                                    : t.detach().cpu().contiguous();
  h.defined = true;
  h.dtype = from_aten(c.scalar_type());
  h.shape.assign(c.sizes().begin(), c.sizes().end());
  h.bytes.resize(c.numel() * c.element_size());
  if (!h.bytes.empty()) std::memcpy(h.bytes.data(), c.data_ptr(), h.bytes.size());
  return h;
}

at::Tensor from_host(const HostTensor& h) {
  if (!h.defined) return at::Tensor();
  at::Tensor t = at::empty(h.shape, at::TensorOptions().dtype(to_aten(h.dtype)));
  if (!h.bytes.empty()) std::memcpy(t.data_ptr(), h.bytes.data(), h.bytes.size());
  return t;
}

}  // namespace dlfuzz
