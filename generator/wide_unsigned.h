// Which ops a program may apply to uint16/32/64 tensors: PyTorch 2.x gives these
// "barebones" unsigned types CPU kernels in a few ops only.
#pragma once
#include <string>
#include <vector>

#include "generator/op_spec.h"

namespace dlfuzz {

// Whether op s has uint16/32/64 kernels (for some arguments: check_wide_unsigned).
bool takes_wide_unsigned(const OpSpec& s);

// "" when node n (of op s, with result types out) may touch a wide unsigned type,
// else why not. Checked for every node in infer_node.
std::string check_wide_unsigned(const OpSpec& s, const Program& p, const Node& n, const std::vector<TensorType>& out);

}  // namespace dlfuzz
