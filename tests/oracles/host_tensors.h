// Host tensors from literal values, for the oracles' tests.
#pragma once
#include <cstring>
#include <utility>
#include <vector>

#include "runners/run_result.h"

namespace dlfuzz::test {

template <class T>
HostTensor make_tensor(DType dt, Shape shape, const std::vector<T>& v) {
  HostTensor t;
  t.defined = true;
  t.dtype = dt;
  t.shape = std::move(shape);
  t.bytes.resize(v.size() * sizeof(T));
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

template <class T>
HostTensor make_tensor(DType dt, const std::vector<T>& v) {
  return make_tensor(dt, {int64_t(v.size())}, v);
}

}  // namespace dlfuzz::test
