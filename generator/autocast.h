// CPU autocast's type rules: what torch.autocast("cpu", dtype) does to the
// result dtype of the ops dlfuzz generates (PyTorch 2.x's AutocastCPU kernels,
// aten/src/ATen/autocast_mode.cpp, and the composite ops that call them).
#pragma once
#include <string>
#include <vector>

#include "generator/program.h"

namespace dlfuzz {

struct OpSpec;

// lower: runs in the autocast dtype (float32 and the other half type are cast
// down; float64 is left alone). fp32: runs in float32 (half types cast up).
// promote: runs in the widest of its floating operands, and PyTorch refuses
// a half type that is not the autocast dtype (at::autocast::prioritize).
// unknown: a composite whose result dtype depends on how ATen decomposes it
// (einsum contracts through bmm or multiplies): not generated under autocast.
enum class AutocastPolicy { none, lower, fp32, promote, unknown };
AutocastPolicy autocast_policy(const std::string& op);

// The op's type rule as autocast runs it: its tensor operands cast as the
// op's policy casts them (none where p has no autocast), then s.infer.
std::string infer_under_autocast(const OpSpec& s, const Program& p, const Node& n, std::vector<TensorType>& out);

}  // namespace dlfuzz
