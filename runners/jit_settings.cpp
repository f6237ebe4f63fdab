#include "runners/jit_settings.h"

#include <torch/csrc/jit/passes/tensorexpr_fuser.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/tensorexpr/kernel.h>

// Shipped in libtorch_cpu but its header (codegen/fuser/interface.h) is not.
namespace torch::jit {
TORCH_API bool canFuseOnCPU();
TORCH_API void overrideCanFuseOnCPU(bool value);
}  // namespace torch::jit

namespace dlfuzz {

JitSettingsGuard::JitSettingsGuard(const JitSettings& s) {
  profiling_ = torch::jit::getProfilingMode();
  executor_ = torch::jit::getExecutorMode();
  nnc_ = torch::jit::tensorExprFuserEnabled();
  can_fuse_ = torch::jit::canFuseOnCPU();
  must_llvm_ = torch::jit::tensorexpr::getTEMustUseLLVMOnCPU();
  torch::jit::getProfilingMode() = s.profiling_executor;
  torch::jit::getExecutorMode() = s.profiling_executor;
  torch::jit::setTensorExprFuserEnabled(s.nnc);
  torch::jit::overrideCanFuseOnCPU(s.nnc);
  // Debian's LibTorch has no LLVM: NNC falls back to its IR evaluator.
  torch::jit::tensorexpr::getTEMustUseLLVMOnCPU() = false;
}

JitSettingsGuard::~JitSettingsGuard() {
  torch::jit::getProfilingMode() = profiling_;
  torch::jit::getExecutorMode() = executor_;
  torch::jit::setTensorExprFuserEnabled(nnc_);
  torch::jit::overrideCanFuseOnCPU(can_fuse_);
  torch::jit::tensorexpr::getTEMustUseLLVMOnCPU() = must_llvm_;
}

}  // namespace dlfuzz
