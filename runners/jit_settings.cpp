#include "runners/jit_settings.h"

#include <torch/csrc/jit/passes/tensorexpr_fuser.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/tensorexpr/kernel.h>

#include <mutex>

// Shipped in libtorch_cpu but its header (codegen/fuser/interface.h) is not.
namespace torch::jit {
TORCH_API bool canFuseOnCPU();
TORCH_API void overrideCanFuseOnCPU(bool value);
}  // namespace torch::jit

namespace dlfuzz {

namespace {
// The ranks of a distributed run are threads running the same runner: the
// first guard sets the globals, the last one restores them, so no rank
// changes them under another.
std::mutex guard_mutex;
int active_guards = 0;
// The globals as they were before the first active guard.
struct Saved {
  bool profiling, executor, nnc, can_fuse, must_llvm;
} saved;
}  // namespace

JitSettingsGuard::JitSettingsGuard(const JitSettings& s) {
  std::lock_guard<std::mutex> lock(guard_mutex);
  if (active_guards++ > 0) return;
  saved = {torch::jit::getProfilingMode(), torch::jit::getExecutorMode(), torch::jit::tensorExprFuserEnabled(),
           torch::jit::canFuseOnCPU(), torch::jit::tensorexpr::getTEMustUseLLVMOnCPU()};
  torch::jit::getProfilingMode() = s.profiling_executor;
  torch::jit::getExecutorMode() = s.profiling_executor;
  torch::jit::setTensorExprFuserEnabled(s.nnc);
  torch::jit::overrideCanFuseOnCPU(s.nnc);
  // Debian's LibTorch has no LLVM: NNC falls back to its IR evaluator.
  torch::jit::tensorexpr::getTEMustUseLLVMOnCPU() = false;
}

JitSettingsGuard::~JitSettingsGuard() {
  std::lock_guard<std::mutex> lock(guard_mutex);
  if (--active_guards > 0) return;
  torch::jit::getProfilingMode() = saved.profiling;
  torch::jit::getExecutorMode() = saved.executor;
  torch::jit::setTensorExprFuserEnabled(saved.nnc);
  torch::jit::overrideCanFuseOnCPU(saved.can_fuse);
  torch::jit::tensorexpr::getTEMustUseLLVMOnCPU() = saved.must_llvm;
}

}  // namespace dlfuzz
