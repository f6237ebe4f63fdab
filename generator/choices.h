// The one source of every random decision the generator makes. Seeded now;
// libFuzzer bytes later. Only integer arithmetic, so a seed gives the same
// program on every machine and compiler (no std::*_distribution).
#pragma once
#include <cstdint>
#include <vector>

namespace dlfuzz {

class Choices {
 public:
  virtual ~Choices() = default;
  // Uniform in [0, bound); bound >= 1.
  virtual uint64_t below(uint64_t bound) = 0;

  bool coin(double p);                   // true with probability p
  int64_t range(int64_t lo, int64_t hi);  // inclusive
  double uniform(double lo, double hi);  // rounded to 3 significant digits
  // Index drawn with probability proportional to weights; -1 if all are 0.
  int weighted(const std::vector<double>& weights);
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
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

}  // namespace dlfuzz
