// Dtype-aware tolerances: torch.testing.assert_close's defaults.
#pragma once
#include <cmath>

#include "generator/dtype.h"

namespace dlfuzz {

struct Tolerance {
  double rtol, atol;
};

inline Tolerance default_tolerance(DType t) {
  switch (t) {
    case DType::f16: return {1e-3, 1e-5};
    case DType::bf16: return {1.6e-2, 1e-5};
    case DType::f32: return {1.3e-6, 1e-5};
    case DType::f64: return {1e-7, 1e-7};
    default: return {0, 0};  // integers and bools: exact
  }
}

// The looser of two tolerances, field by field.
inline Tolerance looser(const Tolerance& a, const Tolerance& b) {
  return {std::fmax(a.rtol, b.rtol), std::fmax(a.atol, b.atol)};
}

// |ref - test| beyond atol + rtol * |ref|, as torch.testing.assert_close judges.
inline bool beyond(const Tolerance& tol, double ref, double test) {
  return std::fabs(ref - test) > tol.atol + tol.rtol * std::fabs(ref);
}

}  // namespace dlfuzz
