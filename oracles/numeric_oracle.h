// Numeric oracle: compares a test run's outputs, losses, gradients and updated
// parameters with the reference run's, as PyTorch's own accuracy checker does:
// dtype-aware tolerances; integers and bools exact; shape and dtype must match;
// NaN/Inf positions must match; a float mismatch is arbitrated against the
// float64 reference — the test passes if its RMSE to float64 is at most
// `multiplier` x the reference's RMSE plus atol/10.
#pragma once
#include <optional>

#include "generator/program.h"
#include "oracles/finding.h"
#include "runners/run_result.h"

namespace dlfuzz {

struct NumericOptions {
  double multiplier = 2.0;
  // Adam and AdamW move a parameter by about lr a step whatever its
  // gradient's size, so a gradient of 1e-8 (rounding in a sum that cancels)
  // moves it by lr where an exact 0 does not move it at all. For such a
  // program this is 2 x lr x steps: a parameter element whose last gradient is
  // within tolerance of zero on both sides may differ by that much (the
  // gradients themselves are compared with the usual tolerance). 0: none.
  double adaptive_step_bound = 0;
  // The lowest precision each output and each param (gradient and updated
  // value) was computed through (precision_flow.h): judged with that dtype's
  // tolerance where it is coarser than the result's own. Empty: own dtype.
  std::vector<std::optional<DType>> output_precision, param_precision;
};

// Elements of a tensor that may differ by up to `bound` (empty: none); an
// infinite bound passes any value there, NaN and Inf included.
struct ElementSlack {
  std::vector<bool> excused;
  double bound = 0;
};

// The jvp runners' float64 arbiter: the program's outputs, then their
// tangents by finite differences, NaN where the program has no derivative
// in the tangent's direction (a kink or a jump: atan2 at (0, 0)). There any
// tangent passes: forward mode's NaN and reverse mode's 0 are both answers
// to a question without one. jvp2's arbiter (py-eager64-jvp2) alike.
inline constexpr const char* kJvpArbiter = "py-eager64-jvp";

// What a NaN or Inf position finding says when float64 holds the test's value
// there and not eager's: eager is the side that is wrong.
inline constexpr const char* kEagerOdd = "eager is the odd one";

// Compare one tensor; "" if they agree, else what differs. `computed_through`:
// the lowest precision its values were computed through (float results are
// judged with the coarser of its tolerance and their own dtype's).
std::string compare_tensor(const HostTensor& ref, const HostTensor& test, const HostTensor* fp64,
                           const NumericOptions& opt = {}, const ElementSlack* slack = nullptr,
                           std::optional<DType> computed_through = std::nullopt);

// The options for judging `p`'s results (NumericOptions::adaptive_step_bound
// from its optimizer, the precisions from its dataflow); the defaults without
// a program.
NumericOptions numeric_options_for(const Program* p);

// The kind of difference compare_tensor() describes, part of a numeric
// finding's signature (its error text): "NaN position", "Inf position",
// "exact value" (an integer or bool element), "shape", "dtype", "tensor
// count", "missing in test", "unexpected in test"; "" for float values beyond
// tolerance; "NaN position, eager is the odd one" (or Inf) where float64 sides
// with the test. A NaN where eager has a number and a last-bits drift are
// different bugs, and the reducer must not trade one for the other.
std::string numeric_symptom(const std::string& difference);

// Both runs must have succeeded; nullopt when they agree.
std::optional<Finding> check_numeric(const RunResult& ref, const RunResult& test, const RunResult* fp64,
                                     const NumericOptions& opt = {});

}  // namespace dlfuzz
