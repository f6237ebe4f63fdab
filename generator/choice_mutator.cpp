#include "generator/choice_mutator.h"

#include <algorithm>

#include "generator/choices.h"
#include "generator/generator.h"

namespace dlfuzz {

std::vector<size_t> op_cut_points(const std::vector<uint8_t>& bytes, const GenPolicy& policy) {
  ByteChoices c(bytes.data(), bytes.size());
  generate_program(policy, c, 0);
  std::vector<size_t> cuts;
  for (size_t s : c.node_starts())
    if (s < bytes.size() && (cuts.empty() || s > cuts.back())) cuts.push_back(s);
  return cuts;
}

std::vector<uint8_t> mutate_choices(std::vector<uint8_t> v, size_t max_size, unsigned seed, const GenPolicy& policy,
                                    const ByteMutator& fallback) {
  SeededChoices r(seed);
  auto random_byte = [&] { return static_cast<uint8_t>(r.below(256)); };
  while (v.size() < 16 && v.size() < max_size) v.push_back(random_byte());
  std::vector<size_t> cuts = op_cut_points(v, policy);
  auto segment_end = [&](size_t i) { return i + 1 < cuts.size() ? cuts[i + 1] : v.size(); };
  switch (cuts.empty() ? 5 : r.below(6)) {
    case 0: {  // remove an op's decisions
      size_t i = r.below(cuts.size());
      v.erase(v.begin() + cuts[i], v.begin() + segment_end(i));
      break;
    }
    case 1: {  // duplicate one op's decisions before another's
      size_t from = r.below(cuts.size()), at = cuts[r.below(cuts.size())];
      std::vector<uint8_t> seg(v.begin() + cuts[from], v.begin() + segment_end(from));
      v.insert(v.begin() + at, seg.begin(), seg.end());
      break;
    }
    case 2: {  // replace an op: new family and op choices
      size_t at = cuts[r.below(cuts.size())];
      for (size_t k = at; k < std::min(v.size(), at + 4); ++k) v[k] = random_byte();
      break;
    }
    case 3: {  // the prologue: training or not, node count, the first input's dtype and shape
      v[r.below(std::max<size_t>(1, cuts[0]))] = random_byte();
      break;
    }
    case 4: {  // one op's arguments: a byte inside its segment
      size_t i = r.below(cuts.size());
      size_t len = segment_end(i) - cuts[i];
      if (len) v[cuts[i] + r.below(len)] = random_byte();
      break;
    }
    default: {  // byte-level
      size_t len = std::min(v.size(), max_size);
      v.resize(std::max(v.size(), max_size));
      v.resize(fallback ? fallback(v.data(), len, max_size) : len);
      break;
    }
  }
  if (v.size() > max_size) v.resize(max_size);
  return v;
}

std::vector<uint8_t> splice_choices(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t max_size,
                                    unsigned seed, const GenPolicy& policy) {
  SeededChoices r(seed);
  std::vector<size_t> ca = op_cut_points(a, policy), cb = op_cut_points(b, policy);
  size_t head = ca.empty() ? a.size() : ca[r.below(ca.size())];
  size_t tail = cb.empty() ? 0 : cb[r.below(cb.size())];
  std::vector<uint8_t> v(a.begin(), a.begin() + head);
  v.insert(v.end(), b.begin() + tail, b.end());
  if (v.size() > max_size) v.resize(max_size);
  return v;
}

}  // namespace dlfuzz
