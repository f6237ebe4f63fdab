// TorchScript from torch::jit::compile of the emitted source, under one of the
// graph executors: `ts` (profiling executor, fusion off), `ts-nnc` (the NNC
// TensorExpr fuser on for CPU), `ts-legacy` (the legacy executor).
#pragma once
#include "runners/jit_settings.h"
#include "runners/runner.h"

namespace dlfuzz {

class TorchScriptRunner : public Runner {
 public:
  TorchScriptRunner(std::string name, JitSettings settings);
  std::string name() const override { return name_; }
  RunResult run(const Program& p, const RunConfig& cfg) override;

 private:
  std::string name_;
  JitSettings settings_;
};

}  // namespace dlfuzz
