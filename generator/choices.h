// The one source of every random decision the generator makes: a seeded
// stream (campaigns) or libFuzzer's bytes (ByteChoices). Only integer
// arithmetic, so a seed gives the same program on every machine and compiler
// (no std::*_distribution).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlfuzz {

class Choices {
 public:
  virtual ~Choices() = default;
  // Uniform in [0, bound); bound >= 1.
  virtual uint64_t below(uint64_t bound) = 0;
  // The generator is about to choose a new op: where structural mutations of
  // a choice stream cut (ByteChoices records it; others ignore it).
  virtual void mark_node() {}

  bool coin(double p);                    // true with probability p
  int64_t range(int64_t lo, int64_t hi);  // inclusive
  double uniform(double lo, double hi);   // rounded to 3 significant digits
  // Index drawn with probability proportional to weights; -1 if all are 0.
  int weighted(const std::vector<double>& weights);
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }
};

// splitmix64 seeding a xoshiro256** stream.
class SeededChoices : public Choices {
 public:
  explicit SeededChoices(uint64_t seed);
  uint64_t below(uint64_t bound) override;

 private:
  uint64_t next();
  uint64_t s_[4];
};

// Choices read from bytes (a libFuzzer input): each decision takes the fewest
// bytes that cover its bound. When the bytes run out, a stream seeded from
// their hash continues, so short inputs still make whole programs.
class ByteChoices : public Choices {
 public:
  ByteChoices(const uint8_t* data, size_t size);
  uint64_t below(uint64_t bound) override;
  void mark_node() override { node_starts_.push_back(pos_); }
  // Byte offsets where each op's decisions began (clamped to the input).
  const std::vector<size_t>& node_starts() const { return node_starts_; }

 private:
  const uint8_t* data_;
  size_t size_, pos_ = 0;
  SeededChoices rest_;
  std::vector<size_t> node_starts_;
};

}  // namespace dlfuzz
