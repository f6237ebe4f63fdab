// The lowest float precision each result was computed through. A compiler may
// keep a bfloat16 or float16 intermediate in float32 where eager rounds it
// (Inductor elides a downcast-upcast pair between fused ops unless
// torch._inductor.config.emulate_precision_casts is set; NNC's fused kernels
// compute half values in float), so a float32 output computed from bf16
// values may differ from eager by bf16 rounding, not by float32's. The
// numeric oracle judges each result with the tolerance of that lowest
// precision (`bf16 ones, - -0.096, .float()`: 1.09375 eager, 1.0962 Inductor).
// Likewise a float64 result of float32 values (`float_power(f32 bicubic
// upsample, 2)`) carries float32's rounding, not float64's.
#pragma once
#include <optional>
#include <vector>

#include "generator/program.h"

namespace dlfuzz {

struct PrecisionFlow {
  // Per program output and per param (its gradient and its value after the
  // step), in the order runners report them: the lowest-precision float
  // dtype (bf16 below f16 below f32) computed on the way, or nullopt where no
  // float value below float64 was computed (inputs are exact: only what an op
  // produces rounds).
  std::vector<std::optional<DType>> outputs, params;
  // Per value id, for locating a divergence among intermediates.
  std::vector<std::optional<DType>> values;
};

PrecisionFlow precision_flow(const Program& p);

// Whether a flow holds a half-precision float (bf16 or f16).
inline bool is_half_flow(const std::optional<DType>& f) { return f && (*f == DType::bf16 || *f == DType::f16); }

// The coarser of two dtypes' precisions (bf16 < f16 < f32 < f64); nullopt
// counts as no rounding.
std::optional<DType> coarser(std::optional<DType> a, std::optional<DType> b);

}  // namespace dlfuzz
