// One bug is one signature, and a signature names the oracle, runners, stage,
// layer and first diverging op, not every op the bug needs: two bugs may
// still share one. So a campaign's --reduce reduces a few findings of each new
// bug, each alone (`dlfuzz reduce finding:ID`), and a bug whose findings
// reduce to unrelated op sets is split. Op sets that share an op are one bug:
// reductions of one bug keep the op that triggers it and may keep different
// companions (NNC fuses nothing alone, so NNC's frac bug reduces to
// {frac, silu} from one program and {frac, hardtanh} from another). Each
// group of op sets linked that way, other than the example's, moves to a bug
// of its own (bugs.split_from names where it came from).
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

// Moves the reduced findings whose op sets share no op, directly or through
// others, with the bug's own to one bug per such group (signature: the bug's
// plus "|ops=" and the group's first op set; an existing one is reused) and
// returns those bugs' ids. The bug's own op set is its reduced program's, else
// its example finding's. Findings not reduced stay.
std::vector<int64_t> split_by_reduced_ops(Store& store, int64_t bug);

// The ops of an op set as generator/summary.h's op_set() writes it
// ("abs,div_+train": abs, div_).
std::vector<std::string> ops_of(const std::string& op_set);

// Groups op sets that share an op, directly or through others (each group's
// sets in the order given).
std::vector<std::vector<std::string>> linked_op_sets(const std::vector<std::string>& op_sets);

}  // namespace dlfuzz
