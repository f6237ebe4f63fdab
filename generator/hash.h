// FNV-1a: the one hash of program texts, policies, byte streams and parameter
// digests. Plain integer arithmetic, so it is the same on every machine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dlfuzz {

constexpr uint64_t kFnvOffset = 1469598103934665603ULL;

// Continue from `h` to hash several pieces as one.
inline uint64_t fnv1a(const void* data, size_t size, uint64_t h = kFnvOffset) {
  const auto* b = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}
inline uint64_t fnv1a(std::string_view s, uint64_t h = kFnvOffset) { return fnv1a(s.data(), s.size(), h); }

}  // namespace dlfuzz
