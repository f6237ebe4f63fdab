// One bug is one signature, and a signature names the oracle, runners, stage,
// layer and first diverging op, not every op the bug needs: two bugs may
// still share one. So a campaign's --reduce reduces a few findings of each new
// bug, each alone (`dlfuzz reduce finding:ID`), and a bug whose findings
// reduce to different op sets is split: the findings of each other op set
// move to a bug of their own (bugs.split_from names where they came from).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "triage/store.h"

namespace dlfuzz {

// Up to `k` findings of `bug` not reduced yet, one per program, the one with
// the bug's example program first.
std::vector<int64_t> findings_to_reduce(Store& store, int64_t bug, int k);

// The finding of `bug` with its example program (0 if none).
int64_t example_finding(Store& store, int64_t bug);

// What one finding reduced to (its own row; the bug's is record_reduction's).
void record_finding_reduction(Store& store, int64_t finding, const std::string& program_hash, const std::string& ops);

// Moves the reduced findings whose op set is not the bug's own to one bug
// per op set (signature: the bug's plus "|ops=OPS"; an existing one is
// reused) and returns those bugs' ids. The bug's own op set is its reduced
// program's, else its example finding's. Findings not reduced stay.
std::vector<int64_t> split_by_reduced_ops(Store& store, int64_t bug);

}  // namespace dlfuzz
