// Which fusion decision inside NNC a ts-nnc bug starts at. LibTorch's own
// optimization limiter, PYTORCH_JIT_OPT_LIMIT="tensorexpr_fuser=N" (read once
// per process; in 1.13 only the TensorExpr fuser consults it), lets the fuser
// accept its first N nodes and refuse the rest. Each step runs the program in
// a fresh worker with a limit, and a binary search finds the smallest limit
// that still shows the bug: the decision that breaks it, and the ops fused at
// that limit and not at the one below. As PyTorch's CompilerBisector does for
// Inductor, it assumes more fusion never hides a bug it once showed.
#pragma once
#include <string>

#include "generator/program.h"
#include "runners/executor.h"

namespace dlfuzz {

struct NncBisection {
  bool bisected = false;
  int decision = -1;       // the smallest limit that shows the bug; 0: it shows with nothing fused
  std::string fused_ops;   // "aten::frac aten::mul": fused at `decision`, not at decision - 1
  int steps = 0;           // fresh workers started
  std::string error;       // why not bisected

  // "tensorexpr_fuser #3 (aten::frac)", or "not the fusion: shows with nothing fused".
  std::string summary() const;
};

// `runner` (ts-nnc, in any environment) on `p` shows a finding whose
// signature() is `signature` without a limit; find the decision.
NncBisection bisect_nnc(const ExecutorOptions& eo, const Program& p, const std::string& runner,
                        const std::string& signature, int max_limit = 1 << 14);

}  // namespace dlfuzz
