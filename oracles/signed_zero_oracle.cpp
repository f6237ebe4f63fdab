#include "oracles/signed_zero_oracle.h"

#include <fmt/format.h>

#include <cmath>

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
