// Findings in values that rounding alone decides. A value can depend on its
// inputs so steeply that the last bits of any intermediate move it far: the
// std of rows a normalization made equal up to rounding, whose gradient then
// points wherever the rounding did (a campaign's group_norm -> std ->
// smooth_l1_loss: a param after two steps 1e-3 apart, eager nearer float64 by
// luck). A compiled path rounds differently, so such a value differs and even
// the float64 arbitration is a coin toss. The test: run the reference again
// with every float input changed by a few units in its last place (three
// times, in other directions); where the reference itself then moves at least
// a quarter as far as the runner did, at every element that differs, the
// finding is this: its first op becomes
// kIllConditioned, one labelled bug apart from real ones. A real miscompile
// moves a value far beyond what its inputs' last bits do, and stays a finding.
#pragma once
#include <optional>
#include <vector>

#include "generator/program.h"
#include "oracles/finding.h"
#include "runners/executor.h"

namespace dlfuzz {

inline constexpr const char* kIllConditioned = "(a value rounding decides)";

// The reference is run on three perturbed programs, each float input moved by
// this many units in its last place (times a direction in [-1, 1] per
// element): one sample can land where the value happens not to move.
inline constexpr double kPerturbations[] = {4, -4, 2};
inline constexpr const char* kPerturbationText = "+4, -4 and +2";

// `p` with each float input x (uniform or normal: values whose exactness the
// program does not rely on, unlike ones, ints or special values) read
// everywhere as x + x * e * u, where e is a new input in [-1, 1] of x's type
// and u is `ulps` units in the last place of x's dtype.
// Inputs a node writes into (directly or through a view) keep their values, as
// do the outputs and the loss that return an input as is. New inputs go last,
// so every other input keeps its values. nullopt when nothing can be moved or
// the program is over several ranks.
std::optional<Program> perturb_inputs(const Program& p, double ulps);

// Does the reference move as far as the test where they differ? For every
// element beyond tolerance between `ref` and `test`, one of `moved` (the
// reference on perturbed inputs) differs from `ref` by at least a quarter of
// that (or is NaN or Inf there), or, for a NaN or Inf where the other has a
// number, one of them is not what `ref` is there either. False when nothing
// differs or shapes disagree.
bool within_sensitivity(const HostTensor& ref, const HostTensor& test, const std::vector<HostTensor>& moved);

// Three extra runs of each finding's reference, one per perturbed program (one
// rank; numeric findings not explained otherwise).
// `results`: the runs the findings were judged on (by runner name).
void explain_ill_conditioning(Executor& ex, const Program& p, const std::vector<RunResult>& results,
                              std::vector<Finding>& findings);

}  // namespace dlfuzz
