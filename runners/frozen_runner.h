// `frozen`: the program as a torch::jit::Module whose params are module
// parameters; eval(), freeze() (params folded into the graph as constants,
// conv-bn/add/mul folding), then optimize_for_inference (conv-add-relu
// fusion, MKLDNN conversions, linear transpose). Inference programs only:
// freezing folds what training would update. The layer ladder's rungs stop
// earlier: `frozen-plain` freezes without the numeric folding, `frozen-fold`
// folds but skips optimize_for_inference.
#pragma once
#include <torch/csrc/jit/api/module.h>

#include <functional>

#include "runners/runner.h"

namespace dlfuzz {

struct FreezeSteps {
  bool fold_numerics = true;           // freeze(optimize_numerics): conv-bn, conv-add, conv-mul folding
  bool optimize_for_inference = true;  // torch::jit::optimize_for_inference after freezing
};

class FrozenRunner : public Runner {
 public:
  FrozenRunner(std::string name, FreezeSteps steps) : name_(std::move(name)), steps_(steps) {}
  std::string name() const override { return name_; }
  RunResult run(const Program& p, const RunConfig& cfg) override;

 private:
  std::string name_;
  FreezeSteps steps_;
};

// The module both `frozen` and `static` start from; throws on compile errors.
struct FrozenModuleSource {
  std::string source;                // methods program() and forward()
  std::vector<size_t> forward_args;  // indices of inputs forward() takes
  std::vector<size_t> param_inputs;  // indices of inputs that are parameters
};
FrozenModuleSource frozen_module_source(const Program& p);

// The eval-mode Module with the program's params registered as parameters.
torch::jit::Module program_module(const Program& p, const FrozenModuleSource& src);
// A forward result tuple as tensors (copied where the runtime reuses buffers).
std::vector<at::Tensor> tuple_tensors(const c10::IValue& out, bool copy);

// What `frozen` and `static` share: build the program's module, let `compile`
// turn it into a forward function (a compile error becomes a compile-stage
// result), then drive that function like any runner.
using ModuleForward = std::function<c10::IValue(std::vector<c10::IValue>)>;
RunResult run_module_program(const Program& p, const std::string& runner, const RunConfig& cfg,
                             const std::function<ModuleForward(torch::jit::Module&)>& compile, bool copy_outputs);

}  // namespace dlfuzz
