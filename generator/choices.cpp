#include "generator/choices.h"

#include <cmath>

#include "generator/hash.h"

namespace dlfuzz {

bool Choices::coin(double p) {
  if (p <= 0) return false;
  if (p >= 1) return true;
  return below(1000000) < static_cast<uint64_t>(p * 1000000);
}

int64_t Choices::range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
}

double Choices::uniform(double lo, double hi) {
  // 1001 evenly spaced points: values print short and round-trip exactly.
  double t = static_cast<double>(below(1001)) / 1000.0;
  double v = lo + t * (hi - lo);
  return std::round(v * 1000.0) / 1000.0;
}

int Choices::weighted(const std::vector<double>& weights) {
  // Work in integer units so the outcome is exact on every machine.
  std::vector<uint64_t> w;
  uint64_t total = 0;
  for (double x : weights) {
    uint64_t u = x > 0 ? static_cast<uint64_t>(x * 1000 + 0.5) : 0;
    w.push_back(u);
    total += u;
  }
  if (total == 0) return -1;
  uint64_t r = below(total);
  for (size_t i = 0; i < w.size(); ++i) {
    if (r < w[i]) return static_cast<int>(i);
    r -= w[i];
  }
  return static_cast<int>(w.size()) - 1;
}

namespace {
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

SeededChoices::SeededChoices(uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

uint64_t SeededChoices::next() {
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t SeededChoices::below(uint64_t bound) {
  if (bound <= 1) return 0;
  // Rejection sampling keeps it unbiased.
  uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t x;
  do x = next();
  while (x >= limit);
  return x % bound;
}

ByteChoices::ByteChoices(const uint8_t* data, size_t size) : data_(data), size_(size), rest_(fnv1a(data, size)) {}

uint64_t ByteChoices::below(uint64_t bound) {
  if (bound <= 1) return 0;
  size_t need = bound <= (1ULL << 8) ? 1 : bound <= (1ULL << 16) ? 2 : bound <= (1ULL << 24) ? 3 : 8;
  if (pos_ + need > size_) {
    pos_ = size_;
    return rest_.below(bound);
  }
  uint64_t v = 0;
  for (size_t i = 0; i < need; ++i) v = (v << 8) | data_[pos_++];
  return v % bound;
}

}  // namespace dlfuzz
