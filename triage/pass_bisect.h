// The pass inside a finding's layer, by the bisector that fits its runner:
// for ts-nnc, the NNC fusion decision (triage/nnc_bisect.h); for a
// torch.compile runner, PyTorch's CompilerBisector on the program's repro
// (triage/compiler_bisect.h). Both rerun the program many times: a triage
// step (`triage bisect`, `run --bisect`), not a campaign's.
#pragma once
#include <string>

#include "generator/program.h"
#include "runners/executor.h"

namespace dlfuzz {

// "" when a finding of `oracle` on `test_runner` can be bisected, else why not.
std::string why_not_bisectable(const std::string& test_runner, const std::string& oracle);

struct PassBisection {
  std::string pass;   // "tensorexpr_fuser #3 (aten::frac)", "inductor / lowerings #1 (var_mean)"; "" if none
  std::string error;  // why there is none
};

// `signature` is the finding's signature() (NNC compares it); `fail_above`
// the repro's max abs diff that still shows a torch.compile bug.
PassBisection bisect_pass(const ExecutorOptions& eo, const Program& p, const std::string& test_runner,
                          const std::string& signature, double fail_above);

}  // namespace dlfuzz
