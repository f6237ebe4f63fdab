// The JIT's global knobs (executor, profiling, NNC fuser) for one run, restored
// afterwards, so TorchScript runners with different settings share a process.
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

 private:
  bool profiling_, executor_, nnc_, can_fuse_, must_llvm_;
};

}  // namespace dlfuzz
