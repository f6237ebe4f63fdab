// Where in the program a numeric finding starts. The program is rerun with
// every eligible top-level node's value returned as an extra output, on the
// finding's reference, its float64 twin and the runner under test; the first
// node (in program order) whose value differs beyond the numeric oracle's
// tolerance is the first diverging op. Values that share storage with a
// tensor some node writes in place are not returned (an output aliasing a
// mutated tensor changes what the compiler may do); values inside loops and
// branches are not returned either.
//
// The rewrite can hide the bug (a fusion that no longer happens once its
// intermediate is an output): the finding must still show on the original
// outputs of the rewritten program, or no op is named. A resized runner's
// values are compared at both batch sizes. A training finding
// whose forward values all agree is named as "in backward". A comparison
// flipped by its operands' rounding is named kNearTie (near_tie.h). An op
// that reads a value eager computed as Inf or NaN where float64 is finite
// (exp of 108 in float32, times a difference of two sums that rounded apart)
// is named kAfterEagerOverflow: eager's own result there is no reference, and
// ops downstream turn its Inf into a finite value and a compiled NaN into NaN.
// A jvp runner's tangent that is NaN or Inf in one run and finite in the
// other, where every tangent the op reads is 0 in the run that is not
// finite, is named kZeroTimesInfinitePartial: the op has no finite
// derivative at that point (hypot of (0, 0) behind a round), and the chain
// rule's 0 × ∞ is NaN in one mode while the other discards it.
#pragma once
#include <string>
#include <vector>

#include "generator/program.h"
#include "oracles/finding.h"
#include "oracles/numeric_oracle.h"
#include "runners/executor.h"

namespace dlfuzz {

inline constexpr const char* kAfterEagerOverflow = "(after eager's overflow)";
inline constexpr const char* kZeroTimesInfinitePartial = "(a zero tangent times an infinite partial)";

// p with each eligible node's value appended to its outputs; *observed gets
// the ids of the values to compare, in program order: the appended ones and
// those that were outputs already.
Program with_intermediates(const Program& p, std::vector<int>* observed);

// The first value n reads that the reference computed as Inf or NaN where
// float64 is finite, or -1: ref and fp64 are runs of q (with_intermediates),
// whose outputs from `offset` on hold the values n reads (a resized runner
// reports q's outputs once per batch size).
int reads_eager_overflow(const Program& q, const Node& n, const RunResult& ref, const RunResult& fp64,
                         size_t offset = 0);

// Whether output k of two jvp runs of q (ref and test; q's tangents from
// `offset` on) is kZeroTimesInfinitePartial's: every element where one run is
// NaN or Inf and the other finite has, in the run that is not finite, a
// tangent of 0 in each float value n reads (q must return them), and those
// elements are the whole difference. The run's name, or "".
std::string zero_times_infinite_partial(const Program& q, const Node& n, const RunResult& ref, const RunResult& test,
                                        size_t k, size_t offset, const HostTensor* fp64, const NumericOptions& options);

// "%7 = mul(f32[2,3], f32[]) -> f32[2,3]"
std::string describe_node(const Program& p, const Node& n);

// Sets first_op and first_op_detail of every numeric finding of world-1
// programs (one extra run per test runner).
void locate_first_divergence(Executor& ex, const Program& p, std::vector<Finding>& findings);

}  // namespace dlfuzz
