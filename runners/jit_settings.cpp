#include "runners/jit_settings.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/tensorexpr/kernel.h>

#include "runners/shared_setting.h"

// Shipped in libtorch_cpu but its header (codegen/fuser/interface.h) is not.
namespace torch::jit {
TORCH_API bool canFuseOnCPU();
TORCH_API void overrideCanFuseOnCPU(bool value);
TORCH_API bool canFuseOnGPU();
TORCH_API void overrideCanFuseOnGPU(bool value);
}  // namespace torch::jit

namespace dlfuzz {

namespace {
// The JIT globals the runners set, as one value.
struct JitGlobals {
  bool profiling, executor, nnc, can_fuse, can_fuse_gpu, must_llvm, optimize;
  torch::jit::FusionStrategy strategy;
};

JitGlobals read_jit() {
  return {torch::jit::getProfilingMode(),
          torch::jit::getExecutorMode(),
          torch::jit::tensorExprFuserEnabled(),
          torch::jit::canFuseOnCPU(),
          torch::jit::canFuseOnGPU(),
          torch::jit::tensorexpr::getTEMustUseLLVMOnCPU(),
          torch::jit::getGraphExecutorOptimize(),
          torch::jit::getFusionStrategy()};
}

void write_jit(const JitGlobals& g) {
  torch::jit::getProfilingMode() = g.profiling;
  torch::jit::getExecutorMode() = g.executor;
  torch::jit::setTensorExprFuserEnabled(g.nnc);
  torch::jit::overrideCanFuseOnCPU(g.can_fuse);
  torch::jit::overrideCanFuseOnGPU(g.can_fuse_gpu);
  torch::jit::tensorexpr::getTEMustUseLLVMOnCPU() = g.must_llvm;
  torch::jit::setGraphExecutorOptimize(g.optimize);
  torch::jit::FusionStrategy strategy = g.strategy;
  torch::jit::setFusionStrategy(strategy);
}

// The process's own strategy (by default two static then ten dynamic
// specializations), or none: bailout depth 0, the simple executor.
torch::jit::FusionStrategy strategy_for(const JitSettings& s) {
  static const torch::jit::FusionStrategy initial = torch::jit::getFusionStrategy();
  if (s.simple) return {{torch::jit::FusionBehavior::STATIC, 0}};
  return initial;
}

SharedSetting<JitGlobals> jit_globals(read_jit, write_jit);
}  // namespace

JitSettingsGuard::JitSettingsGuard(const JitSettings& s) {
  // Debian's LibTorch has no LLVM: NNC falls back to its IR evaluator on the
  // CPU. On cuda, NNC generates CUDA kernels (NVRTC) where the LibTorch has them.
  jit_globals.enter({s.profiling_executor, s.profiling_executor, s.nnc, s.nnc, s.nnc, /*must_llvm=*/false, s.optimize,
                     strategy_for(s)});
}

JitSettingsGuard::~JitSettingsGuard() { jit_globals.leave(); }

}  // namespace dlfuzz
