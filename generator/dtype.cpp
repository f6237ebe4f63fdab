#include "generator/dtype.h"

#include <algorithm>

namespace dlfuzz {

namespace {
struct DTypeInfo {
  DType type;
  const char* name;
  const char* torch_name;
  int size;
  int c10_code;  // c10::ScalarType
};
constexpr DTypeInfo kInfo[kNumDTypes] = {
    {DType::f32, "f32", "torch.float32", 4, 6}, {DType::f64, "f64", "torch.float64", 8, 7},
    {DType::f16, "f16", "torch.float16", 2, 5}, {DType::bf16, "bf16", "torch.bfloat16", 2, 15},
    {DType::i64, "i64", "torch.int64", 8, 4},   {DType::i32, "i32", "torch.int32", 4, 3},
    {DType::i16, "i16", "torch.int16", 2, 2},   {DType::i8, "i8", "torch.int8", 1, 1},
    {DType::u8, "u8", "torch.uint8", 1, 0},     {DType::b8, "bool", "torch.bool", 1, 11},
    {DType::u16, "u16", "torch.uint16", 2, 27}, {DType::u32, "u32", "torch.uint32", 4, 28},
    {DType::u64, "u64", "torch.uint64", 8, 29},
};

// Rank within each category, for promotion; mirrors c10's promoteTypes table for
// the types we support.
int int_rank(DType t) {
  switch (t) {
    case DType::u8: return 0;
    case DType::i8: return 1;
    case DType::i16: return 2;
    case DType::i32: return 3;
    case DType::i64: return 4;
    default: return -1;
  }
}
}  // namespace

const char* dtype_name(DType t) { return kInfo[static_cast<int>(t)].name; }
const char* dtype_torch_name(DType t) { return kInfo[static_cast<int>(t)].torch_name; }
int dtype_size(DType t) { return kInfo[static_cast<int>(t)].size; }
int dtype_c10_code(DType t) { return kInfo[static_cast<int>(t)].c10_code; }

std::optional<DType> dtype_from_name(const std::string& s) {
  for (const auto& i : kInfo)
    if (s == i.name) return i.type;
  return std::nullopt;
}

bool is_float(DType t) { return t == DType::f32 || t == DType::f64 || is_half(t); }
bool is_half(DType t) { return t == DType::f16 || t == DType::bf16; }
bool is_bool(DType t) { return t == DType::b8; }
bool is_int(DType t) { return !is_float(t) && !is_bool(t); }
bool is_wide_unsigned(DType t) { return t == DType::u16 || t == DType::u32 || t == DType::u64; }
bool is_unsigned(DType t) { return t == DType::u8 || is_wide_unsigned(t); }

// c10::promoteTypes refuses a wide unsigned type with any other non-float type
// ("Promotion for uint16, uint32, uint64 types is not supported"), bool included.
bool promotable(DType a, DType b) {
  if (a == b || is_float(a) || is_float(b)) return true;
  return !is_wide_unsigned(a) && !is_wide_unsigned(b);
}

DType promote(DType a, DType b) {
  if (a == b) return a;
  if (!promotable(a, b)) return a;
  if (is_bool(a)) return b;
  if (is_bool(b)) return a;
  if (is_int(a) && is_int(b)) {
    // u8 with a signed type needs a wider signed type.
    if (a == DType::u8 || b == DType::u8) {
      DType other = a == DType::u8 ? b : a;
      return other == DType::i8 ? DType::i16 : other;
    }
    return int_rank(a) > int_rank(b) ? a : b;
  }
  if (is_int(a)) return b;
  if (is_int(b)) return a;
  // Both floating.
  if (a == DType::f64 || b == DType::f64) return DType::f64;
  return DType::f32;  // f16+bf16, or either with f32
}

bool can_cast(DType from, DType to) {
  // c10::canCast: no float->int, no non-bool->bool.
  if (is_float(from) && !is_float(to)) return false;
  if (!is_bool(from) && is_bool(to)) return false;
  return true;
}

void ResultType::add_tensor(DType t, int rank) {
  auto& slot = rank > 0 ? dim_ : zero_;
  if (slot && !promotable(*slot, t)) valid_ = false;
  slot = slot ? promote(*slot, t) : t;
}

void ResultType::add_scalar(ScalarKind k) {
  if (k == ScalarKind::none) return;
  DType t = k == ScalarKind::floating  ? DType::f32  // default dtype
            : k == ScalarKind::integer ? DType::i64
                                       : DType::b8;
  wrapped_ = wrapped_ ? promote(*wrapped_, t) : t;  // wrapped numbers are never wide unsigned
}

namespace {
// ATen's combine_categories: a lower-priority operand only matters when it is of
// a higher category (bool < int < float) than the higher-priority one.
std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower, bool& ok) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_float(*higher)) return higher;
  if (is_bool(*higher) || is_float(*lower)) {
    ok = ok && promotable(*higher, *lower);
    return promote(*higher, *lower);
  }
  return higher;
}
}  // namespace

std::optional<DType> ResultType::resolve(bool& ok) const {
  ok = valid_;
  return combine(dim_, combine(zero_, wrapped_, ok), ok);
}

DType ResultType::result() const {
  bool ok;
  auto r = resolve(ok);
  return r ? *r : DType::f32;
}

bool ResultType::valid() const {
  bool ok;
  resolve(ok);
  return ok;
}

double float_max(DType t) {
  switch (t) {
    case DType::f16: return 65504.0;
    case DType::bf16: return 3.3895313892515355e+38;
    case DType::f64: return 1.7976931348623157e+308;
    default: return 3.4028234663852886e+38;
  }
}

double float_tiny(DType t) {
  switch (t) {
    case DType::f16: return 6.103515625e-05;
    case DType::f64: return 2.2250738585072014e-308;
    default: return 1.1754943508222875e-38;  // f32 and bf16 share the exponent range
  }
}

}  // namespace dlfuzz
