// The JIT's global knobs (executor, profiling, NNC fuser) for one run, restored
// afterwards, so TorchScript runners with different settings share a process.
// Guards may overlap only with the same settings (the rank threads of one
// distributed run): the first sets the globals, the last restores them.
#pragma once

namespace dlfuzz {

struct JitSettings {
  bool profiling_executor = true;  // false: the legacy executor
  bool nnc = false;                // the TensorExpr fuser on CPU
};

class JitSettingsGuard {
 public:
  explicit JitSettingsGuard(const JitSettings& s);
  ~JitSettingsGuard();
};

}  // namespace dlfuzz
