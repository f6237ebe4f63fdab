// Calls an ATen op by name with dlfuzz's named arguments, the way TorchScript
// does: find the overload whose schema accepts exactly these arguments (by
// name and kind), fill the rest from the schema's defaults, call it boxed.
// This is eager execution (same kernels, same autograd) for every op in the
// grammar without a line of per-op code.
#pragma once
#include <ATen/core/ivalue.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "generator/program.h"

namespace torch::jit {
struct Operator;
}

namespace dlfuzz {

class OpCaller {
 public:
  // Values of the program, by id; `fp64` maps float dtype arguments to f64.
  using Env = std::function<at::Tensor(int)>;

  // Runs the node; returns its outputs as tensors (one per node output).
  // Throws c10::Error / std::runtime_error on failure.
  std::vector<at::Tensor> call(const std::string& aten, const Node& n, const Env& env, bool fp64);

 private:
  std::shared_ptr<torch::jit::Operator> resolve(const std::string& aten, const Node& n);
  std::map<std::string, std::shared_ptr<torch::jit::Operator>> cache_;
};

}  // namespace dlfuzz
