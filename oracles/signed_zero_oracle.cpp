#include "oracles/signed_zero_oracle.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace dlfuzz {

namespace {
// "" or what differs: how many zeros flipped sign, and the first.
std::string compare_zeros(const HostTensor& ref, const HostTensor& test, const HostTensor* fp64) {
  if (!ref.defined || !test.defined || !is_float(ref.dtype) || ref.shape != test.shape ||
      ref.dtype != test.dtype)
    return "";
  bool arbiter = fp64 && fp64->defined && fp64->shape == ref.shape;
  int64_t flipped = 0, first = -1;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    double r = ref.at(i), t = test.at(i);
    if (r != 0 || t != 0 || std::signbit(r) == std::signbit(t)) continue;
    if (arbiter) {
      double e = fp64->at(i);
      if (e != 0 || std::signbit(e) != std::signbit(r)) continue;  // the reference is the odd one
    }
    if (first < 0) first = i;
    ++flipped;
  }
  if (!flipped) return "";
  return fmt::format("{} of {} zeros have the other sign (first at {}: {} vs {})", flipped, ref.numel(), first,
                     std::signbit(ref.at(first)) ? "-0" : "0", std::signbit(test.at(first)) ? "-0" : "0");
}
// An element's bits (up to 8 bytes).
uint64_t bits_at(const HostTensor& t, int64_t i) {
  uint64_t b = 0;
  const int size = dtype_size(t.dtype);
  std::memcpy(&b, t.bytes.data() + i * size, size);
  return b;
}

// "" or what differs: how many NaNs both sides give have other bits, and the first.
std::string compare_nans(const HostTensor& ref, const HostTensor& test) {
  if (!ref.defined || !test.defined || !is_float(ref.dtype) || ref.shape != test.shape || ref.dtype != test.dtype)
    return "";
  int64_t differ = 0, first = -1;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    if (!std::isnan(ref.at(i)) || !std::isnan(test.at(i)) || bits_at(ref, i) == bits_at(test, i)) continue;
    if (first < 0) first = i;
    ++differ;
  }
  if (!differ) return "";
  return fmt::format("{} NaNs have other bits (first at {}: {:#x} vs {:#x})", differ, first, bits_at(ref, first),
                     bits_at(test, first));
}
}  // namespace

std::optional<Finding> check_signed_zeros(const RunResult& ref, const RunResult& test, const RunResult* fp64) {
  if (!ref.ok() || !test.ok()) return std::nullopt;
  struct Part {
    const std::vector<HostTensor> *ref, *test, *fp64;
    const char* stage;
  };
  for (const Part& part : {Part{&ref.outputs, &test.outputs, fp64 ? &fp64->outputs : nullptr, "output"},
                           Part{&ref.grads, &test.grads, fp64 ? &fp64->grads : nullptr, "grad"}}) {
    for (size_t i = 0; i < part.ref->size() && i < part.test->size(); ++i) {
      const HostTensor* e = part.fp64 && i < part.fp64->size() ? &(*part.fp64)[i] : nullptr;
      std::string diff = compare_zeros((*part.ref)[i], (*part.test)[i], e);
      if (diff.empty()) diff = compare_nans((*part.ref)[i], (*part.test)[i]);
      if (diff.empty()) continue;
      Finding f;
      f.oracle = "signed-zero";
      f.ref_runner = ref.runner;
      f.test_runner = test.runner;
      f.stage = part.stage;
      f.detail = fmt::format("{} {}: {}", part.stage, i, diff);
      return f;
    }
  }
  return std::nullopt;
}

}  // namespace dlfuzz
