// Tensor element types and PyTorch's type-promotion rules, without LibTorch.
#pragma once
#include <optional>
#include <string>

namespace dlfuzz {

// i16, u16, u32 and u64 are PyTorch 2.x types for the generator (1.13 has i16 only
// as promote(u8, i8) and lacks the wide unsigned ones). The wide unsigned types
// come last so that the older types keep their values.
enum class DType { f32, f64, f16, bf16, i64, i32, i16, i8, u8, b8, u16, u32, u64 };

constexpr int kNumDTypes = 13;

const char* dtype_name(DType t);  // "f32", ..., "bool"
std::optional<DType> dtype_from_name(const std::string& s);
const char* dtype_torch_name(DType t);  // "torch.float32", ...
int dtype_size(DType t);                // bytes per element
int dtype_c10_code(DType t);            // c10::ScalarType's value

bool is_float(DType t);
// float16 or bfloat16.
bool is_half(DType t);
bool is_int(DType t);  // integral, bool excluded
bool is_bool(DType t);
// uint16/32/64: PyTorch 2.x's "barebones" unsigned types. Few CPU kernels take them,
// and they promote only with themselves and with floating types.
bool is_wide_unsigned(DType t);
// u8 or a wide unsigned type: never negative, generated in [0, 10).
bool is_unsigned(DType t);

// torch.promote_types; promotable(a, b) is false where PyTorch refuses (a wide
// unsigned type with another integer or bool type), and promote() is then a.
bool promotable(DType a, DType b);
DType promote(DType a, DType b);
// torch.can_cast(from, to): what an in-place op on a `to` tensor accepts.
bool can_cast(DType from, DType to);

// The dtype PyTorch gives a Python float / int / bool scalar ("wrapped number").
enum class ScalarKind { none, boolean, integer, floating };

// result_type over operands split by PyTorch's three categories: tensors with
// dim > 0, 0-dim tensors, and Python scalars (wrapped numbers).
class ResultType {
 public:
  void add_tensor(DType t, int rank);
  void add_scalar(ScalarKind k);
  DType result() const;
  // False when the operands need a promotion PyTorch refuses (see promotable).
  bool valid() const;

 private:
  std::optional<DType> resolve(bool& ok) const;
  std::optional<DType> dim_, zero_, wrapped_;
  bool valid_ = true;
};

// torch.finfo(t).max and .tiny (the smallest normal value) of a floating dtype.
double float_max(DType t);
double float_tiny(DType t);

// Ops like sin/exp/sqrt/div turn integer and bool inputs into the default float.
inline DType to_float_default(DType t) { return is_float(t) ? t : DType::f32; }

}  // namespace dlfuzz
