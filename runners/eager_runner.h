// Eager ATen execution; see eager_runner.cpp.
#pragma once
#include "runners/op_caller.h"
#include "runners/runner.h"

namespace dlfuzz {

class EagerRunner : public Runner {
 public:
  // slowdown > 0: every timed call, forward and backward, takes that much
  // longer (0.2: 20%), spinning; the planted performance faults (fault-slow-*).
  explicit EagerRunner(bool fp64, double slowdown = 0);
  std::string name() const override;
  RunResult run(const Program& p, const RunConfig& cfg) override;

 private:
  bool fp64_;
  double slowdown_;
  OpCaller caller_;  // resolved overloads, kept across programs
};

}  // namespace dlfuzz
