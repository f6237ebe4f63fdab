// The JIT's global knobs (executor, profiling, NNC fuser) for one run, restored
// afterwards, so TorchScript runners with different settings share a process.
// Guards may overlap only with the same settings (the rank threads of one
// distributed run): the first sets the globals, the last restores them.
#pragma once

namespace dlfuzz {

struct JitSettings {
  bool profiling_executor = true;  // false: the legacy executor
  bool nnc = false;                // the TensorExpr fuser on CPU
  // The layer ladder's rungs below an executor (oracles/layer_ladder.h):
  // optimize=false runs the graph as the frontend made it (the executors'
  // no-opt plan: no passes, no autodiff); simple=true is the profiling
  // executor with no profiled runs (bailout depth 0: its profiling-insensitive
  // passes only, no specialization, autodiff or fusion).
  bool optimize = true;
  bool simple = false;
};

class JitSettingsGuard {
 public:
  explicit JitSettingsGuard(const JitSettings& s);
  ~JitSettingsGuard();
};

}  // namespace dlfuzz
