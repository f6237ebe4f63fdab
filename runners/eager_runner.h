// Eager ATen execution; see eager_runner.cpp.
#pragma once
#include "runners/op_caller.h"
#include "runners/runner.h"

namespace dlfuzz {

class EagerRunner : public Runner {
 public:
  explicit EagerRunner(bool fp64);
  std::string name() const override;
  RunResult run(const Program& p, const RunConfig& cfg) override;

 private:
  bool fp64_;
  OpCaller caller_;  // resolved overloads, kept across programs
};

}  // namespace dlfuzz
