// Host tensors from literal values, for the oracles' tests.
#pragma once
#include <cstring>
#include <vector>

#include "runners/run_result.h"

namespace dlfuzz::test {

template <class T>
HostTensor make_tensor(DType dt, const std::vector<T>& v) {
  HostTensor t;
  t.defined = true;
  t.dtype = dt;
  t.shape = {int64_t(v.size())};
  t.bytes.resize(v.size() * sizeof(T));
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

}  // namespace dlfuzz::test
