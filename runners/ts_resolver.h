// Name resolution for the TorchScript dlfuzz compiles from C++: `torch.X` is
// aten::X (as torch::jit::compile's native resolver has it) and `dlfuzz.X`
// is the collective op dlfuzz::X (runners/distributed/collectives.cpp), which
// `torch.ops.dlfuzz.X` cannot reach from C++.
#pragma once
#include <torch/csrc/jit/frontend/resolver.h>

namespace dlfuzz {

torch::jit::ResolverPtr ts_resolver();

}  // namespace dlfuzz
