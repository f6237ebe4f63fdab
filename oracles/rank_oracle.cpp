#include "oracles/rank_oracle.h"

#include <fmt/format.h>

namespace dlfuzz {

std::optional<Finding> check_rank_consistency(const RunResult& r) {
  if (!r.ok() || r.rank_digests.size() < 2) return std::nullopt;
  const auto& first = r.rank_digests[0];
  for (size_t step = 0; step < first.size(); ++step)
    for (size_t rank = 1; rank < r.rank_digests.size(); ++rank) {
      const auto& d = r.rank_digests[rank];
      if (step < d.size() && d[step] == first[step]) continue;
      Finding f;
      f.oracle = "rank";
      f.ref_runner = r.runner;  // rank 0 of the same run
      f.test_runner = r.runner;
      f.stage = "optimizer";
      f.detail = fmt::format("after step {} of {}, rank {}'s parameters differ from rank 0's (digest {} vs {})",
                             step + 1, first.size(), rank, step < d.size() ? d[step] : "missing", first[step]);
      return f;
    }
  return std::nullopt;
}

}  // namespace dlfuzz
